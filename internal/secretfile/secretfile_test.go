package secretfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, content string, perm os.FileMode) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(p, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, perm); err != nil { // whatever the umask
		t.Fatal(err)
	}
	return p
}

// TestRead: a 0600 file of this user is read whole; one that others may
// read or write, a directory or one over the bound is refused with a
// *Refusal saying what to change; a missing file is the os package's
// error.
func TestRead(t *testing.T) {
	p := writeFile(t, "postgres://ctxls:pw@db/ctxls\n", 0o600)
	if b, err := Read(p, 100); err != nil || string(b) != "postgres://ctxls:pw@db/ctxls\n" {
		t.Fatalf("Read = %q, %v", b, err)
	}
	for _, c := range []struct {
		path string
		max  int
		want string
	}{
		{writeFile(t, "x", 0o644), 100, "chmod 600"},
		{writeFile(t, "x", 0o640), 100, "chmod 600"},
		{writeFile(t, "x", 0o602), 100, "chmod 600"},
		{writeFile(t, strings.Repeat("x", 101), 0o600), 100, "larger than 100 bytes"},
		{t.TempDir(), 100, "not a regular file (a directory)"},
	} {
		_, err := Read(c.path, c.max)
		var r *Refusal
		if !errors.As(err, &r) || r.File != c.path || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Read(%s): %v; want a refusal of that file mentioning %q", c.path, err, c.want)
		}
	}
	if _, err := Read(filepath.Join(t.TempDir(), "missing"), 100); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}
