package retrieve

import (
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ctxls/ctxls/internal/assemble"
)

// ParseFocus reads a cursor as every face writes it: PATH:LINE or
// PATH:LINE:COL, 1-based, the numbers taken from the end so that a path
// may hold colons. The path is as given (relative to a root, or
// absolute): RootPath makes it a root's slash path. Errors are
// *assemble.ParamError naming the field "focus".
func ParseFocus(s string) (path string, line, col int, err error) {
	bad := func(format string, args ...any) (string, int, int, error) {
		return "", 0, 0, &assemble.ParamError{Field: "focus", Msg: fmt.Sprintf(format, args...)}
	}
	rest, last, ok := cutLastNumber(s)
	if !ok {
		return bad("%q: want path:line or path:line:col (1-based), e.g. assemble/pack.go:120", s)
	}
	path, line = rest, last
	if p, n, ok := cutLastNumber(rest); ok {
		path, line, col = p, n, last
	}
	if path == "" {
		return bad("%q: the path is missing (want path:line)", s)
	}
	if line < 1 || col < 0 || (col == 0 && path != rest) {
		return bad("%q: line and column are 1-based", s)
	}
	return path, line, col, nil
}

// cutLastNumber splits "x:123" into "x" and 123.
func cutLastNumber(s string) (string, int, bool) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil {
		return "", 0, false
	}
	return s[:i], n, true
}

// RootPath makes p — relative to root, or absolute inside it after its
// symlinks are resolved — a clean slash path relative to root (root is
// absolute, clean and resolved). A path outside the root, the root
// itself, or (on Windows) one relative to a drive's current directory
// (C:x) is a *assemble.ParamError naming field.
func RootPath(root, p, field string) (string, error) {
	bad := func(format string, args ...any) (string, error) {
		return "", &assemble.ParamError{Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	if filepath.IsAbs(p) {
		abs := p
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		rel, err := filepath.Rel(root, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			return bad("%s is outside the root %s", p, root)
		}
		p = rel
	}
	rel, why := slashRel(p, filepath.Separator)
	switch why {
	case relOutside:
		return bad("%s is outside the root %s", p, root)
	case relRoot:
		return bad("%s names the root, not a file", p)
	case relDrive:
		return bad("%s is relative to a drive's current directory: give a path relative to the root %s, or an absolute one", p, root)
	}
	return rel, nil
}

// What slashRel finds wrong with a path.
const (
	relOK      = iota
	relOutside // it leaves the root
	relRoot    // it names the root itself
	relDrive   // it starts with a drive letter but is not absolute (C:x)
)

// slashRel makes p, a relative path written with the separator sep (on
// Windows '\\', where '/' separates too), a clean slash path, or says why
// it cannot be one of the root's files: it leaves the root, names the
// root, or starts with a drive letter ("C:x", which Windows reads relative
// to that drive's current directory, not to the root).
func slashRel(p string, sep byte) (rel string, why int) {
	if sep != '/' {
		if len(p) >= 2 && p[1] == ':' && 'a' <= p[0]|0x20 && p[0]|0x20 <= 'z' {
			return "", relDrive
		}
		p = strings.ReplaceAll(p, string(sep), "/")
	}
	rel = path.Clean(p)
	switch {
	case rel == ".." || strings.HasPrefix(rel, "../") || strings.HasPrefix(rel, "/"):
		return "", relOutside
	case rel == ".":
		return "", relRoot
	}
	return rel, relOK
}
