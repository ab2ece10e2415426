package access

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxls/ctxls/internal/index/walk"
)

// TestRootsCheckSecretDirs: inside an allowed root, a folder that is or
// lies in VCS metadata or a secret directory is refused with a
// *walk.RootError, however the path leads there; an allowed root there is
// refused at start.
func TestRootsCheckSecretDirs(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"r/.aws", "r/.git/refs", "r/src", "r/.config/gcloud", "r/.docker"} {
		if err := os.MkdirAll(filepath.Join(base, filepath.FromSlash(d)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	root := filepath.Join(base, "r")
	if err := os.Symlink(filepath.Join(root, ".aws"), filepath.Join(root, "src", "cfg")); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	r, err := NewRoots([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		root + "/.aws", root + "/.git", root + "/.git/refs", root + "/.config/gcloud",
		root + "/src/cfg",        // a symlink to .aws
		root + "/src/../.aws",    // ".." read either way
		root + "/.aws/not-there", // judged by its existing prefix
	} {
		var re *walk.RootError
		if err := r.Check(filepath.FromSlash(p)); !errors.As(err, &re) {
			t.Errorf("Check(%s) = %v, want a *walk.RootError", p, err)
		}
	}
	for _, p := range []string{root, root + "/src", root + "/.docker", root + "/.config"} {
		if err := r.Check(filepath.FromSlash(p)); err != nil {
			t.Errorf("Check(%s) = %v, want nil", p, err)
		}
	}
	var re *walk.RootError
	if _, err := NewRoots([]string{filepath.Join(root, ".git")}); !errors.As(err, &re) {
		t.Errorf("NewRoots(.git) = %v, want a *walk.RootError", err)
	}
}
