package gotree

import (
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Root returns the Go installation's root, $(go env GOROOT), or skips tb
// when the go command cannot tell it.
func Root(tb testing.TB) string {
	tb.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		tb.Skipf("go env GOROOT: %v", err)
	}
	return dir
}

// Src returns the src directory of Root: the standard library and the
// toolchain's sources.
func Src(tb testing.TB) string {
	tb.Helper()
	return filepath.Join(Root(tb), "src")
}

// Files returns the sorted paths of the regular files under dir that keep
// accepts (nil: every one); tb fails when dir cannot be walked.
func Files(tb testing.TB, dir string, keep func(path string) bool) []string {
	tb.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && (keep == nil || keep(p)) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		tb.Fatalf("walk %s: %v", dir, err)
	}
	slices.Sort(files)
	return files
}

// IsGo reports whether path names a Go file: a keep for Files.
func IsGo(path string) bool { return strings.HasSuffix(path, ".go") }
