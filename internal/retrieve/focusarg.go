package retrieve

import (
	"fmt"
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
// absolute, clean and resolved). A path outside the root, or the root
// itself, is a *assemble.ParamError naming field.
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
	rel := filepath.ToSlash(filepath.Clean(p))
	if rel == ".." || strings.HasPrefix(rel, "../") || strings.HasPrefix(rel, "/") {
		return bad("%s is outside the root %s", p, root)
	}
	if rel == "." {
		return bad("%s names the root, not a file", p)
	}
	return rel, nil
}
