package index

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// cdtTree describes every entry under dir (not following links): its
// path, type and mode, a file's content, a link's target.
func cdtTree(t *testing.T, dir string) []string {
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
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			line += " -> " + target
		case fi.Mode().IsRegular():
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

// cdtUserDir makes a directory of the user's own that looks, in part, like
// what the collector of generations deleted: directories named g-…
// (one even named as a generation is) and files named *.tmp.
func cdtUserDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mine")
	writeTree(t, dir, map[string]string{
		"g-notes/todo.txt":         "buy milk\n",
		"g-1-0000abcd/keep.txt":    "mine\n",
		"draft.tmp":                "half a thought\n",
		"lock":                     "my lock\n",
		"CURRENT":                  "g-notes\n",
		"projects/report.md":       "# Report\n",
		"projects/report.md.tmp~":  "backup\n",
		".history.v2-123/data.txt": "a directory, not a file\n",
	})
	return dir
}

// cdtSame fails unless dir's tree is still before.
func cdtSame(t *testing.T, dir string, before []string) {
	t.Helper()
	if after := cdtTree(t, dir); !slices.Equal(before, after) {
		t.Errorf("%s changed:\nbefore %q\nafter  %q", dir, before, after)
	}
}

// A directory of the user's given as the cache directory is refused —
// with NoMemoryFallback an error naming it and why, else an index in
// memory and one warning — and nothing in it is touched: no generation
// collected, no file written.
func TestCacheDirForeignIsRefused(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, fixture())
	otherTag := func(t *testing.T) string {
		// Another program's cache directory: a tag without ctxls's line.
		dir := filepath.Join(t.TempDir(), "other")
		writeTree(t, dir, map[string]string{
			tagName:              tagSignature + "\n# ccache\n",
			lockName:             "1\n",
			"g-5-0000abcd/x.bin": "theirs\n",
		})
		return dir
	}
	lockAndMore := func(t *testing.T) string {
		// The lock file ctxls writes, beside a file it never writes.
		dir := filepath.Join(t.TempDir(), "lockish")
		writeTree(t, dir, map[string]string{lockName: "1\n", "notes.txt": "mine\n", "CURRENT.tmp": "x\n"})
		return dir
	}
	for _, c := range []struct {
		name string
		dir  func(*testing.T) string
	}{{"user files", cdtUserDir}, {"another program's tag", otherTag}, {"lock beside other files", lockAndMore}} {
		t.Run(c.name+"/no fallback", func(t *testing.T) {
			dir := c.dir(t)
			before := cdtTree(t, dir)
			opts := testOptions(t)
			opts.CacheDir, opts.NoMemoryFallback = dir, true
			_, err := Build(ctx, root, opts)
			var ce *CacheDirError
			if !errors.As(err, &ce) || !errors.Is(err, ErrNotCacheDir) {
				t.Fatalf("Build: %v, want a *CacheDirError wrapping ErrNotCacheDir", err)
			}
			msg := err.Error()
			for _, want := range []string{dir, "not a ctxls cache directory", tagName, "choose an empty or new directory"} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not say %q", msg, want)
				}
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("error %q is more than one line", msg)
			}
			cdtSame(t, dir, before)
		})
		t.Run(c.name+"/in memory", func(t *testing.T) {
			dir := c.dir(t)
			before := cdtTree(t, dir)
			opts := testOptions(t)
			opts.CacheDir = dir
			var warnings []string
			opts.Warnf = func(format string, args ...any) { warnings = append(warnings, fmt.Sprintf(format, args...)) }
			x := mustOpen(t, root, opts)
			if got := hitPaths(t, x, Query{Identifiers: []string{"Stitch"}}); len(got) == 0 {
				t.Error("the in-memory index finds nothing")
			}
			if err := x.Close(); err != nil {
				t.Fatal(err)
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], dir) || !strings.Contains(warnings[0], "not a ctxls cache directory") || !strings.Contains(warnings[0], "in memory") {
				t.Errorf("warnings %q, want one naming %s, why, and what instead", warnings, dir)
			}
			cdtSame(t, dir, before)
		})
	}
}

// A cache directory that is a symbolic link is refused, whatever it
// points to: a directory of the user's, or an index directory of ctxls's.
// Neither target is touched.
func TestCacheDirSymlinkIsRefused(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, fixture())
	built := filepath.Join(t.TempDir(), "built")
	opts := testOptions(t)
	opts.CacheDir = built
	if _, err := Build(ctx, root, opts); err != nil {
		t.Fatal(err)
	}
	// A stale generation in the real index directory: collected when it
	// is opened as itself, never through the link.
	if err := os.Mkdir(filepath.Join(built, "g-7-0000abcd"), 0o700); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"to user files": cdtUserDir(t), "to an index directory": built} {
		t.Run(name, func(t *testing.T) {
			before := cdtTree(t, target)
			link := filepath.Join(t.TempDir(), "link")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			opts := testOptions(t)
			opts.CacheDir, opts.NoMemoryFallback, opts.Rebuild = link, true, true
			_, err := Build(ctx, root, opts)
			if !errors.Is(err, ErrNotCacheDir) || !strings.Contains(err.Error(), link) || !strings.Contains(err.Error(), "symbolic link") {
				t.Fatalf("Build through a link: %v, want a refusal naming %s and the link", err, link)
			}
			cdtSame(t, target, before)
		})
	}
}

// In its own (tagged) directory, ctxls collects only what it makes: old
// generations and its temporary files. A directory or file someone put
// there, and a link named like a generation, stay (and what the link
// points to).
func TestCacheDirCollectsOnlyOwnEntries(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, fixture())
	opts := testOptions(t)
	if _, err := Build(ctx, root, opts); err != nil {
		t.Fatal(err)
	}
	dir := opts.CacheDir
	outside := cdtUserDir(t)
	outsideBefore := cdtTree(t, outside)
	writeTree(t, dir, map[string]string{
		"g-user/notes.txt":          "mine\n",
		"notes.tmp":                 "mine\n",
		"g-3-0000abcd/bleve/x":      "an old generation\n",
		currentName + ".tmp":        "g-3-0000abcd\n",
		".history.v2-4242":          "a temporary file of the history cache\n",
		".semantic.v1-9/inside.txt": "a directory named like a temporary file\n",
	})
	if err := os.Symlink(outside, filepath.Join(dir, "g-4-0000abcd")); err != nil {
		t.Fatal(err)
	}
	opts.Rebuild = true
	if _, err := Build(ctx, root, opts); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"g-3-0000abcd", currentName + ".tmp", ".history.v2-4242"} {
		if _, err := os.Lstat(filepath.Join(dir, gone)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %v, want it collected", gone, err)
		}
	}
	for _, kept := range []string{"g-user/notes.txt", "notes.tmp", "g-4-0000abcd", ".semantic.v1-9/inside.txt"} {
		if _, err := os.Lstat(filepath.Join(dir, kept)); err != nil {
			t.Errorf("%s: %v, want it left alone", kept, err)
		}
	}
	cdtSame(t, outside, outsideBefore)
	x := mustOpen(t, root, opts) // still served
	defer x.Close()
	if got := hitPaths(t, x, Query{Identifiers: []string{"Stitch"}}); len(got) == 0 {
		t.Error("the index finds nothing after the collection")
	}
}

// An index directory of an earlier ctxls (no tag, mode 0755, a 0644
// lock; only what ctxls writes) is recognised by its layout: served as it
// is, then tagged and made private. The same with one file ctxls never
// writes is not ctxls's.
func TestCacheDirEarlierVersion(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, fixture())
	opts := testOptions(t)
	if _, err := Build(ctx, root, opts); err != nil {
		t.Fatal(err)
	}
	dir := opts.CacheDir
	cdtMakeEarlier := func(t *testing.T) {
		t.Helper()
		if err := os.Remove(filepath.Join(dir, tagName)); err != nil {
			t.Fatal(err)
		}
		writeTree(t, dir, map[string]string{"history.v1": "old history\n", ".semantic.v1-77": "tmp\n"})
		if err := os.Chmod(filepath.Join(dir, lockName), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cdtMakeEarlier(t)
	st, err := Build(ctx, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode != "open" {
		t.Errorf("mode %q (%s), want the earlier index opened as it is", st.Mode, st.Reason)
	}
	if !hasTag(dir) {
		t.Error("the earlier index directory was not tagged")
	}
	for p, want := range map[string]fs.FileMode{dir: 0o700, filepath.Join(dir, lockName): 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v %v, want mode %v", p, fi.Mode(), err, want)
		}
	}

	cdtMakeEarlier(t)
	writeTree(t, dir, map[string]string{"README": "not ctxls's\n"})
	before := cdtTree(t, dir)
	opts.NoMemoryFallback = true
	if _, err := Build(ctx, root, opts); !errors.Is(err, ErrNotCacheDir) {
		t.Fatalf("Build into an earlier layout with a file of someone else's: %v, want ErrNotCacheDir", err)
	}
	cdtSame(t, dir, before)
}

// An empty directory, made by the user for the index, is used: tagged and
// made private.
func TestCacheDirEmptyIsUsed(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, fixture())
	dir := filepath.Join(t.TempDir(), "empty")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	opts := testOptions(t)
	opts.CacheDir, opts.NoMemoryFallback = dir, true
	if _, err := Build(ctx, root, opts); err != nil {
		t.Fatal(err)
	}
	if !hasTag(dir) {
		t.Error("no tag")
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("%s: %v %v, want 0700", dir, fi.Mode(), err)
	}
}

// cdtPrivate fails for each entry under dir (dir included) that the group
// or others may use.
func cdtPrivate(t *testing.T, dir string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		n++
		if fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: mode %v, want no access for the group and others", p, fi.Mode())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Errorf("only %d entries under %s: no index there?", n, dir)
	}
}

// cdtUmask sets the process's umask to the usual 022 for the test, so
// that files made with mode 0666 or 0755 show.
func cdtUmask(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
}

// Everything an index writes — the default parent it creates, the index
// directory, generations, bleve's files, tables, markers, the lock — is
// the user's alone; and a build in the default place tags the parent it
// created.
func TestCacheFilesArePrivate(t *testing.T) {
	cdtUmask(t)
	root := t.TempDir()
	writeTree(t, root, fixture())
	parent := filepath.Join(t.TempDir(), "new", "ctxls-cache")
	t.Setenv(EnvCacheDir, parent)
	opts := testOptions(t)
	opts.CacheDir = ""
	st, err := Build(ctx, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(st.Dir) != parent {
		t.Fatalf("index in %s, want it under %s", st.Dir, parent)
	}
	// A refresh after a change, and a checkpoint, write again.
	writeTree(t, root, map[string]string{"ranges/more.go": "package ranges\n\nfunc More() {}\n"})
	if _, err := Build(ctx, root, opts); err != nil {
		t.Fatal(err)
	}
	cdtPrivate(t, parent)
	if !hasTag(parent) || !hasTag(st.Dir) {
		t.Errorf("tags: parent %v, index directory %v; want both", hasTag(parent), hasTag(st.Dir))
	}

	// An index directory named by the caller, whose parents do not exist:
	// they are made private too.
	made := filepath.Join(t.TempDir(), "made")
	opts.CacheDir = filepath.Join(made, "by", "ctxls")
	if _, err := Build(ctx, root, opts); err != nil {
		t.Fatal(err)
	}
	cdtPrivate(t, made)
}

// The parent of the default index directories: os.UserCacheDir()/ctxls
// is ctxls's, so an earlier one (0755, no tag) is tagged and tightened; a
// $CTXLS_CACHE_DIR that existed before may be any directory of the
// user's, and is left as it is.
func TestDefaultCacheParent(t *testing.T) {
	cdtUmask(t)
	root := t.TempDir()
	writeTree(t, root, fixture())
	opts := testOptions(t)
	opts.CacheDir = ""

	home := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", home)
	t.Setenv(EnvCacheDir, "")
	ucd, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("no user cache directory: %v", err)
	}
	own := filepath.Join(ucd, "ctxls")
	if err := os.MkdirAll(own, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(ctx, root, opts); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(own); err != nil || fi.Mode().Perm() != 0o700 || !hasTag(own) {
		t.Errorf("%s: %v %v, tagged %v; want 0700 and tagged", own, fi.Mode(), err, hasTag(own))
	}

	shared := filepath.Join(t.TempDir(), "shared")
	writeTree(t, shared, map[string]string{"other/file.txt": "x\n"})
	if err := os.Chmod(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvCacheDir, shared)
	st, err := Build(ctx, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(shared); err != nil || fi.Mode().Perm() != 0o755 || hasTag(shared) {
		t.Errorf("%s: %v %v, tagged %v; want it left as it was", shared, fi.Mode(), err, hasTag(shared))
	}
	cdtPrivate(t, st.Dir)
}

// $CTXLS_CACHE_DIR as a client's configuration gives it (no shell, any
// working directory): "~" is the home directory, a relative path is an
// error naming the variable — never a directory made in the working
// directory (the workspace).
func TestCacheParentFromEnv(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	wd := t.TempDir()
	t.Chdir(wd)
	for _, c := range []struct{ env, want, err string }{
		{"~/.cache/ctxls-mcp", filepath.Join(home, ".cache/ctxls-mcp"), ""},
		{"~", home, ""},
		{"/var/cache/ctxls/", "/var/cache/ctxls", ""},
		{"cache", "", "CTXLS_CACHE_DIR=\"cache\" is not an absolute path"},
		{"./x", "", "is not an absolute path"},
		{"~other/x", "", "is not an absolute path"},
	} {
		t.Setenv(EnvCacheDir, c.env)
		got, err := DefaultCacheParent()
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s=%q: %q, %v; want an error saying %q", EnvCacheDir, c.env, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s=%q: %q, %v; want %q", EnvCacheDir, c.env, got, err, c.want)
		}
	}
	// A build under "~/…" writes there, and nothing into the working
	// directory.
	root := t.TempDir()
	writeTree(t, root, fixture())
	opts := testOptions(t)
	opts.CacheDir = ""
	t.Setenv(EnvCacheDir, "~/.cache/ctxls-mcp")
	st, err := Build(ctx, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(st.Dir, filepath.Join(home, ".cache/ctxls-mcp")+string(filepath.Separator)) {
		t.Errorf("index in %s, want it under ~/.cache/ctxls-mcp", st.Dir)
	}
	if ents, _ := os.ReadDir(wd); len(ents) != 0 {
		t.Errorf("the working directory holds %d entries (%s…)", len(ents), ents[0].Name())
	}
}
