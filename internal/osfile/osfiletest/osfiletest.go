package osfiletest

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TempDir is t.TempDir, emptied file by file when the test ends: under
// wine, os.RemoveAll fails (wine lacks the POSIX deletion it asks for) and
// the test's own clean-up would fail the test.
func TempDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	t.Cleanup(func() {
		var paths []string
		_ = filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
			if err == nil {
				paths = append(paths, p)
			}
			return nil
		})
		paths = append([]string{filepath.Dir(dir)}, paths...) // the test's own, which holds dir
		for i := len(paths) - 1; i >= 0; i-- {
			os.Remove(paths[i])
		}
	})
	return dir
}
