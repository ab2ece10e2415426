package retrieve

import (
	"go/parser"
	"go/token"
	"path"
	"slices"
	"strconv"
	"strings"
)

// goImportNames maps the names a Go file's imports are known by (the
// alias, else the name goimports assumes: the path's last element, a
// major version suffix skipped, a "go-" prefix dropped, cut at the first
// '.' or '-') to their import paths; dot and blank imports are left out,
// and so is everything of a file whose imports do not parse.
func goImportNames(text string) map[string]string {
	out := map[string]string{}
	f, err := parser.ParseFile(token.NewFileSet(), "", text, parser.ImportsOnly)
	if err != nil {
		return out
	}
	for _, spec := range f.Imports {
		ip, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			continue
		}
		name := ""
		if spec.Name != nil {
			name = spec.Name.Name
		} else {
			name = assumedGoName(ip)
		}
		if name != "_" && name != "." && name != "" {
			out[name] = ip
		}
	}
	return out
}

// assumedGoName is the package name an import path is assumed to declare
// (goimports' rule): github.com/labstack/echo/v4 → echo, gopkg.in/yaml.v3
// → yaml, github.com/mattn/go-sqlite3 → sqlite3, …/opentracing-go →
// opentracing.
func assumedGoName(ip string) string {
	segs := strings.Split(ip, "/")
	name := segs[len(segs)-1]
	if len(segs) > 1 && len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
		name = segs[len(segs)-2]
	}
	name = strings.TrimPrefix(name, "go-")
	if i := strings.IndexAny(name, ".-"); i > 0 {
		name = name[:i]
	}
	return name
}

// importedFrom returns the import paths of the packages lines select
// name from (pkg.Name) when every selection of name in lines is on an
// imported package's name, else nil (some x.Name on a value).
func importedFrom(lines []string, name string, imports map[string]string) []string {
	var out []string
	for _, line := range lines {
		for q, selected := range selections(line, name) {
			ip, ok := imports[q]
			if !ok || selected {
				return nil
			}
			if !slices.Contains(out, ip) {
				out = append(out, ip)
			}
		}
	}
	return out
}

// inGoPackage reports whether the file at p (workspace-relative) can be
// in the Go package imported as ip: when a trailing part of p's directory
// ends ip (its module's go.mod may sit below the workspace root:
// backend/api/x.go is in example.com/proj/api), and for a file of the
// workspace root, when ip is not the standard library's (no dot in its
// first element).
func inGoPackage(p, ip string) bool {
	dir := path.Dir(p)
	if dir == "." {
		first, _, _ := strings.Cut(ip, "/")
		return strings.Contains(first, ".")
	}
	for suffix := dir; ; {
		if ip == suffix || strings.HasSuffix(ip, "/"+suffix) {
			return true
		}
		_, rest, ok := strings.Cut(suffix, "/")
		if !ok {
			return false
		}
		suffix = rest
	}
}
