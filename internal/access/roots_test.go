package access

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rootsFixture builds:
//
//	base/allowed/proj/          a directory inside the root
//	base/allowed/out -> ../secret       a symlink out of the root
//	base/allowed/in -> proj             a symlink inside the root
//	base/allowed/deep -> proj/a/b       a symlink two levels down
//	base/allowed/dangling -> ../nowhere a dangling symlink
//	base/secret/
//	base/link-to-allowed -> allowed     a symlink to the root
func rootsFixture(t *testing.T) (base string, roots *Roots) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"allowed/proj/a/b", "secret"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"allowed/out":      "../secret",
		"allowed/in":       "proj",
		"allowed/deep":     "proj/a/b",
		"allowed/dangling": "../nowhere",
		"link-to-allowed":  "allowed",
	} {
		if err := os.Symlink(target, filepath.Join(base, link)); err != nil {
			t.Skipf("symlinks: %v", err)
		}
	}
	// The root is named through a symlink and with a trailing slash:
	// NewRoots resolves it.
	roots, err = NewRoots([]string{filepath.Join(base, "link-to-allowed") + "/"})
	if err != nil {
		t.Fatal(err)
	}
	if got := roots.List(); len(got) != 1 || got[0] != filepath.Join(base, "allowed") {
		t.Fatalf("List = %v", got)
	}
	return base, roots
}

func TestRootsCheck(t *testing.T) {
	base, roots := rootsFixture(t)
	allowed := filepath.Join(base, "allowed")
	for _, p := range []string{
		allowed,
		allowed + "/",
		allowed + "/proj",
		allowed + "/proj/a/b",
		allowed + "/in",                    // a symlink inside
		allowed + "/in/a",                  // through it
		allowed + "/proj/new/dir",          // not there yet, inside
		allowed + "/proj/../proj",          // ".." inside
		allowed + "/deep/..",               // proj/a (kernel) and allowed (lexical): both inside
		base + "/link-to-allowed/proj",     // the root through its symlink
		base + "/secret/../allowed/proj/a", // ".." back into the root
	} {
		if err := roots.Check(p); err != nil {
			t.Errorf("Check(%s): %v", p, err)
		}
	}
	for _, c := range []struct{ path, why string }{
		{base + "/secret", "outside"},
		{base, "the parent of the root"},
		{"/", "the file system root"},
		{base + "/allowedx", "a sibling sharing the root's name as a prefix"},
		{allowed + "/out", "a symlink to outside"},
		{allowed + "/out/x", "below a symlink to outside"},
		{allowed + "/../secret", "'..' out of the root"},
		{allowed + "/proj/../../secret", "'..' out of the root, deeper"},
		{allowed + "/deep/../../../..", "'..' after a symlink: base to the kernel (proj/a/b/../../../..), base's parent lexically"},
		{allowed + "/deep/../../..", "inside to the kernel (proj/a/b/../../.. is allowed), outside lexically (allowed/../..)"},
		{base + "/nowhere/x", "a path that does not exist, outside"},
	} {
		err := roots.Check(c.path)
		var oe *OutsideError
		if !errors.As(err, &oe) {
			t.Errorf("Check(%s) (%s): %v; want an OutsideError", c.path, c.why, err)
			continue
		}
		if !strings.Contains(err.Error(), allowed) || !strings.Contains(err.Error(), "--root") {
			t.Errorf("Check(%s): the error does not name the allowed roots: %v", c.path, err)
		}
	}
	// The error says where a symlink leads.
	if err := roots.Check(allowed + "/out"); err == nil || !strings.Contains(err.Error(), "resolves to "+base+"/secret") {
		t.Errorf("symlink error: %v", err)
	}
	// A dangling symlink inside cannot be judged: refused.
	for _, p := range []string{allowed + "/dangling", allowed + "/dangling/x"} {
		if err := roots.Check(p); err == nil || !strings.Contains(err.Error(), "cannot resolve") {
			t.Errorf("Check(%s): %v; want cannot resolve", p, err)
		}
	}
	if err := roots.Check("relative/path"); err == nil {
		t.Error("a relative path was accepted")
	}
}

// The ".." readings differ: a path that is inside read one way only is
// refused.
func TestRootsCheckDotDotReadings(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// base/root/link -> base/other/sub; root/link/../x is other/x to the
	// kernel and root/x lexically.
	for _, d := range []string{"root/x", "other/sub", "other/x"} {
		os.MkdirAll(filepath.Join(base, d), 0o755)
	}
	if err := os.Symlink(filepath.Join(base, "other/sub"), filepath.Join(base, "root/link")); err != nil {
		t.Skip(err)
	}
	roots, err := NewRoots([]string{filepath.Join(base, "root")})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(base, "root") + "/link/../x"
	if err := roots.Check(p); err == nil || !strings.Contains(err.Error(), filepath.Join(base, "other/x")) {
		t.Errorf("Check(%s): %v; want refused as %s", p, err, filepath.Join(base, "other/x"))
	}
	// Root both: with base/other allowed too, the kernel reading passes.
	roots, err = NewRoots([]string{filepath.Join(base, "root"), filepath.Join(base, "other")})
	if err != nil {
		t.Fatal(err)
	}
	if err := roots.Check(p); err != nil {
		t.Errorf("Check(%s) with both roots: %v", p, err)
	}
}

func TestNewRoots(t *testing.T) {
	wd, _ := os.Getwd()
	realWD, _ := filepath.EvalSymlinks(wd)
	r, err := NewRoots(nil)
	if err != nil || len(r.List()) != 1 || r.List()[0] != realWD {
		t.Errorf("default roots: %v %v; want the working directory %s", r, err, realWD)
	}
	// Relative roots are against the working directory; duplicates go.
	r, err = NewRoots([]string{".", wd, "testdata/.."})
	if err != nil || len(r.List()) != 1 {
		t.Errorf("relative and duplicate roots: %v %v", r, err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o600)
	for _, bad := range []string{filepath.Join(dir, "missing"), file} {
		if _, err := NewRoots([]string{bad}); err == nil {
			t.Errorf("NewRoots(%s) accepted", bad)
		}
	}
	// The file system root contains everything.
	r, err = NewRoots([]string{"/"})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Check(dir); err != nil {
		t.Errorf("root /: %v", err)
	}
}
