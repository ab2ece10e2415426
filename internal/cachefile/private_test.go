package cachefile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWriteIsPrivate: a cache file and the directories Write makes for it
// are the user's alone (a cache holds what the workspace holds), under
// the usual umask 022.
func TestWriteIsPrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	top := filepath.Join(t.TempDir(), "made")
	path := filepath.Join(top, "sub", "x.v1")
	if err := Write(path, []byte("code\n")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{top, filepath.Dir(path), path} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: mode %v, want no access for the group and others", p, fi.Mode())
		}
	}
}
