//go:build unix

package main

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// cdirTree describes every entry under dir, not following links: path,
// mode, a file's content, a link's target.
func cdirTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		line := fmt.Sprintf("%s %v", rel, fi.Mode())
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			line += " -> " + target
		} else if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			line += " " + string(b)
		}
		out = append(out, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// cdirOneLine fails unless stderr is one line holding every one of want.
func cdirOneLine(t *testing.T, what, stderr string, want ...string) {
	t.Helper()
	if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
		t.Errorf("%s: want one line on stderr, got:\n%s", what, stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("%s: stderr %q does not say %q", what, stderr, w)
		}
	}
	if strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine ") {
		t.Errorf("%s: a crash:\n%s", what, stderr)
	}
}

// TestIndexCacheDirNotOwned: `ctxls index --cache-dir DIR` on a directory
// of the user's (files and directories named like what ctxls collects:
// g-*, *.tmp), or on a symbolic link to one, exits 1 with one line naming
// DIR and why, and leaves everything there as it was — it deleted every
// g-* directory and *.tmp file before. `ctxls assemble` answers from an
// index in memory with one warning, touching nothing either.
func TestIndexCacheDirNotOwned(t *testing.T) {
	root := cdirRoot(t)
	mine := filepath.Join(t.TempDir(), "mine")
	cdirWrite(t, mine, map[string]string{
		"g-photos/cat.jpg":       "meow",
		"g-1-0000abcd/notes.txt": "named like a generation\n",
		"draft.tmp":              "half a thought\n",
		"lock":                   "mine\n",
		"CURRENT.tmp":            "mine too\n",
	})
	before := cdirTree(t, mine)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(mine, link); err != nil {
		t.Fatal(err)
	}
	bin := os.Args[0]

	code, _, stderr := cdirRun(t, bin, nil, "", nil, "index", "--root", root, "--cache-dir", mine)
	if code != 1 {
		t.Errorf("index --cache-dir %s: exit status %d, want 1\n%s", mine, code, stderr)
	}
	cdirOneLine(t, "index into a directory of the user's", stderr, mine, "not a ctxls cache directory", "CACHEDIR.TAG", "choose an empty or new directory")

	code, _, stderr = cdirRun(t, bin, nil, "", nil, "index", "--root", root, "--cache-dir", link)
	if code != 1 {
		t.Errorf("index --cache-dir %s: exit status %d, want 1\n%s", link, code, stderr)
	}
	cdirOneLine(t, "index through a symbolic link", stderr, link, "symbolic link")

	code, stdout, stderr := cdirRun(t, bin, nil, "", nil, "assemble", "--root", root, "--cache-dir", mine, "--query", "how is the tax computed", "--budget", "500")
	if code != 0 || !strings.Contains(stdout, "Compute") {
		t.Errorf("assemble --cache-dir %s: exit status %d, want 0 and an answer\n%s\n%s", mine, code, stdout, stderr)
	}
	cdirOneLine(t, "assemble with a directory of the user's", stderr, "warning", mine, "not a ctxls cache directory", "in memory")

	if after := cdirTree(t, mine); !slices.Equal(before, after) {
		t.Errorf("%s changed:\nbefore %q\nafter  %q", mine, before, after)
	}
}

// cdirGitRoot is cdirRoot as a git checkout with two commits, so that
// ctxls caches its history too.
func cdirGitRoot(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := cdirRoot(t)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.email=t@t", "-c", "user.name=t", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "shop")
	cdirWrite(t, root, map[string]string{"tax/tax.go": "package tax\n\n// Compute returns the tax on amount at rate, rounded down.\nfunc Compute(amount, rate int) int {\n\treturn amount * rate / 100\n}\n"})
	git("commit", "-q", "-am", "tax: say how it rounds")
	return root
}

// TestIndexCacheIsPrivate: after `ctxls index` and `ctxls assemble` on a
// git checkout, with the cache in the default layout under a new
// $CTXLS_CACHE_DIR, nothing there — directories, the index, the lexical
// store's segments and manifest, the history and vector caches, the lock, the tags — is open to
// the group or others (it was 0755 / 0644 under the usual umask 022).
func TestIndexCacheIsPrivate(t *testing.T) {
	root := cdirGitRoot(t)
	cache := filepath.Join(t.TempDir(), "cache")
	env := []string{"CTXLS_CACHE_DIR=" + cache}
	old := syscall.Umask(0o022) // the child's
	defer syscall.Umask(old)
	if code, _, stderr := cdirRun(t, os.Args[0], nil, "", env, "index", "--root", root); code != 0 {
		t.Fatalf("index: exit status %d\n%s", code, stderr)
	}
	if code, _, stderr := cdirRun(t, os.Args[0], nil, "", env, "assemble", "--root", root, "--diff", "HEAD~1", "--budget", "800"); code != 0 {
		t.Fatalf("assemble: exit status %d\n%s", code, stderr)
	}
	var files []string
	err := filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		files = append(files, d.Name())
		if fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: mode %v, want no access for the group and others", p, fi.Mode())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"CACHEDIR.TAG", "lock", "CURRENT", "tables.bin", "MANIFEST", "s-1.seg", "history.v2", "semantic.v2"} {
		if !slices.Contains(files, want) {
			t.Errorf("no %s in the cache (%q): the walk did not see all of it", want, files)
		}
	}
}
