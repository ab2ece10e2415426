package walk

import (
	"os"
	"path/filepath"
	"testing"
)

// TestBufferPathAllowed: a buffer's path is refused when a symlink on it
// leads out of the root, into .git, nowhere, or onto a secret; ordinary
// paths, new files and new directories are allowed.
func TestBufferPathAllowed(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	writeTree(t, root, map[string]string{"a.go": "", "dir/b.go": "", ".env": "", ".git/config": ""})
	writeTree(t, outside, map[string]string{"s.go": ""})
	for link, target := range map[string]string{
		"out.go":   filepath.Join(outside, "s.go"),
		"outdir":   outside,
		"in.go":    filepath.Join(root, "a.go"),
		"indir":    filepath.Join(root, "dir"),
		"env.txt":  filepath.Join(root, ".env"),
		"gitlink":  filepath.Join(root, ".git"),
		"dangling": filepath.Join(base, "missing"),
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	m, err := NewMatcher(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{
		"a.go": true, "dir/b.go": true, "new.go": true, "newdir/x/y.go": true,
		"in.go": true, "indir/b.go": true, "indir/new.go": true,
		"out.go": false, "outdir/s.go": false, "outdir/new.go": false,
		"env.txt": false, "gitlink/config": false, "dangling": false, "../outside/s.go": false,
	} {
		if got, r := m.BufferPathAllowed(p); got != want {
			t.Errorf("BufferPathAllowed(%s) = %v (%s), want %v", p, got, r, want)
		}
	}
}
