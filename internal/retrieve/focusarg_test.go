package retrieve

import (
	"os"
	"path/filepath"
	"testing"
)

// TestParseFocus: the one cursor grammar of every face.
func TestParseFocus(t *testing.T) {
	for _, c := range []struct {
		in        string
		path      string
		line, col int
		bad       bool
	}{
		{in: "a.go:3", path: "a.go", line: 3},
		{in: "a.go:3:7", path: "a.go", line: 3, col: 7},
		{in: "dir:with:colons/a.go:12", path: "dir:with:colons/a.go", line: 12},
		{in: "/abs/a.go:1:1", path: "/abs/a.go", line: 1, col: 1},
		{in: "a.go", bad: true},
		{in: ":3", bad: true},
		{in: "a.go:0", bad: true},
		{in: "a.go:3:0", bad: true},
		{in: "a.go:-1", bad: true},
		{in: "a.go:x", bad: true},
	} {
		p, line, col, err := ParseFocus(c.in)
		if (err != nil) != c.bad || !c.bad && (p != c.path || line != c.line || col != c.col) {
			t.Errorf("ParseFocus(%q) = %q, %d, %d, %v", c.in, p, line, col, err)
		}
	}
}

// TestRootPath: relative and absolute paths inside the root, symlinks
// resolved; outside, or the root itself, refused.
func TestRootPath(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "out")
	for _, d := range []string{filepath.Join(root, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"sub/a.go": "sub/a.go", "./sub/../a.go": "a.go", filepath.Join(root, "sub", "a.go"): "sub/a.go",
		"../x.go": "", filepath.Join(outside, "x.go"): "", filepath.Join(root, "link"): "", ".": "", root: "",
	} {
		got, err := RootPath(root, in, "focus")
		if got != want || (err != nil) != (want == "") {
			t.Errorf("RootPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// TestSlashRel: a relative path as Windows writes it ('\\', or '/', and
// drive letters) and as Unix writes it ('\\' a plain character there)
// becomes the root's slash path, or is refused for leaving the root,
// naming it, or naming a drive's current directory.
func TestSlashRel(t *testing.T) {
	for _, c := range []struct {
		in   string
		sep  byte
		want string
		why  int
	}{
		{`cart\cart.go`, '\\', "cart/cart.go", relOK},
		{`cart/cart.go`, '\\', "cart/cart.go", relOK},
		{`.\cart\..\cart\cart.go`, '\\', "cart/cart.go", relOK},
		{`cart\\sub\.\a.go`, '\\', "cart/sub/a.go", relOK},
		{`dir:with:colons\a.go`, '\\', "dir:with:colons/a.go", relOK},
		{`..\x.go`, '\\', "", relOutside},
		{`cart\..\..\x.go`, '\\', "", relOutside},
		{`\cart\cart.go`, '\\', "", relOutside},
		{`.`, '\\', "", relRoot},
		{`cart\..`, '\\', "", relRoot},
		{`C:cart\cart.go`, '\\', "", relDrive},
		{`z:cart.go`, '\\', "", relDrive},
		{`cart\cart.go`, '/', `cart\cart.go`, relOK},
		{`a\..\b.go`, '/', `a\..\b.go`, relOK},
		{`C:cart/cart.go`, '/', "C:cart/cart.go", relOK},
		{`sub/../../x.go`, '/', "", relOutside},
		{`/abs.go`, '/', "", relOutside},
		{`./`, '/', "", relRoot},
	} {
		got, why := slashRel(c.in, c.sep)
		if got != c.want || why != c.why {
			t.Errorf("slashRel(%q, %q) = %q, %d; want %q, %d", c.in, c.sep, got, why, c.want, c.why)
		}
	}
}
