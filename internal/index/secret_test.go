package index

import (
	"context"
	"errors"
	"github.com/ctxls/ctxls/internal/index/walk"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// secretIdxKey is an OpenSSH private key's first lines, its armor built
// so that this file holds none.
func secretIdxKey(marker string) string {
	return "-----BEGIN " + "OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA " + marker + "\n-----END OPENSSH PRIVATE KEY-----\n"
}

// secretIdxPadded is Go code of more than the 8 KiB the walk sniffs,
// then tail.
func secretIdxPadded(tail string) string {
	return "package pad\n\n" + strings.Repeat("// padding line of an ordinary source file\n", 400) + "\n" + tail
}

// secretIdxAbsent fails when marker is found in the index: by search, in
// the file table, or in any indexed text.
func secretIdxAbsent(t *testing.T, x *Index, marker string, paths ...string) {
	t.Helper()
	if got := hitPaths(t, x, Query{Text: marker}); len(got) != 0 {
		t.Errorf("%s found in %v", marker, got)
	}
	s, release := x.Snapshot()
	defer release()
	for _, p := range paths {
		if _, ok := s.Stat(p); ok {
			t.Errorf("%s is in the file table", p)
		}
	}
	for _, p := range s.Paths() {
		if text, ok := s.Text(p); ok && strings.Contains(text, marker) {
			t.Errorf("%s's indexed text holds %s", p, marker)
		}
	}
}

// TestSecretWholeText: a file whose private key or token lies past the
// bytes the walk reads is left out whole by the indexer — in a build, in
// a refresh, through Update and as an editor buffer — and counted as a
// secret.
func TestSecretWholeText(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"keep.go":       "package keep\n\n// Keep stays indexed.\nfunc Keep() {}\n",
		"late/key.go":   secretIdxPadded(secretIdxKey("latekeymarker")),
		"late/putty.go": secretIdxPadded("PuTTY-User-Key-File-" + "3: ssh-ed25519\nComment: puttykeymarker\n"),
		"late/token.go": secretIdxPadded("// tokenmarker\nconst tok = \"ghp_" + "R8x2Kq0ZtW5mN7bV3cL9pA1sD4fG6hJ0kQ2e" + "\"\n"),
	})
	opts := testOptions(t)
	x, err := Open(ctx, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	st := x.Stats()
	if st.Skipped[string(walk.ReasonSecret)] != 3 {
		t.Errorf("build skipped %v, want 3 secrets", st.Skipped)
	}
	secretIdxAbsent(t, x, "latekeymarker", "late/key.go")
	secretIdxAbsent(t, x, "puttykeymarker", "late/putty.go")
	secretIdxAbsent(t, x, "tokenmarker", "late/token.go")
	if got := hitPaths(t, x, Query{Identifiers: []string{"Keep"}}); len(got) != 1 {
		t.Errorf("keep.go: hits %v", got)
	}

	// Update with new content (a watcher's change) and an editor buffer.
	if err := x.Update(ctx, "keep.go", []byte(secretIdxPadded(secretIdxKey("updatemarker")))); err != nil {
		t.Fatal(err)
	}
	secretIdxAbsent(t, x, "updatemarker", "keep.go")
	writeTree(t, root, map[string]string{"open.go": "package open\n\nfunc Open() {}\n"})
	if err := x.Update(ctx, "open.go", nil); err != nil {
		t.Fatal(err)
	}
	if err := x.SetOverlay(ctx, "open.go", []byte(secretIdxPadded(secretIdxKey("buffermarker")))); err != nil {
		t.Fatal(err)
	}
	secretIdxAbsent(t, x, "buffermarker", "open.go")
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}

	// A refresh reads the changed file again, drops it and counts it.
	writeTree(t, root, map[string]string{
		"keep.go": "package keep\n\nfunc Keep() {}\n",
		"b.go":    "package b\n\nfunc B() {}\n",
	})
	x, err = Open(ctx, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	writeTree(t, root, map[string]string{"b.go": secretIdxPadded(secretIdxKey("refreshmarker"))})
	st, err = x.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Skipped[string(walk.ReasonSecret)] != 4 || st.Removed != 1 {
		t.Errorf("refresh: skipped %v, removed %d; want 4 secrets (3 + b.go), b.go removed", st.Skipped, st.Removed)
	}
	secretIdxAbsent(t, x, "refreshmarker", "b.go")
}

// secretIdxLister lists every regular file below root, filtering nothing:
// a Lister that leaves the secret rules to the index.
type secretIdxLister struct{}

func (secretIdxLister) List(_ context.Context, root string) ([]Entry, []Skipped, error) {
	var out []Entry
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out = append(out, Entry{Path: filepath.ToSlash(rel), Size: fi.Size(), ModTime: fi.ModTime()})
		return nil
	})
	return out, nil, err
}

// TestSecretAnyLister: the whole-text check holds whatever the Lister.
func TestSecretAnyLister(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"a.go":    "package a\n\nfunc A() {}\n",
		"key.txt": secretIdxKey("listermarker"),
	})
	opts := testOptions(t)
	opts.Lister = secretIdxLister{}
	x, err := Open(context.Background(), root, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	secretIdxAbsent(t, x, "listermarker", "key.txt")
}

// TestSecretRootRefused: Open refuses a root inside VCS metadata or a
// secret directory with a *walk.RootError, before it writes anything.
func TestSecretRootRefused(t *testing.T) {
	base := t.TempDir()
	writeTree(t, base, map[string]string{
		".aws/credentials": "[default]\naws_secret_access_key = rootmarker\n",
		".git/config":      "[remote \"origin\"]\n\turl = https://u:rootmarker@example.com/r\n",
	})
	for _, dir := range []string{".aws", ".git"} {
		opts := testOptions(t)
		_, err := Open(context.Background(), filepath.Join(base, dir), opts)
		var re *walk.RootError
		if !errors.As(err, &re) {
			t.Errorf("Open(%s) = %v, want a *walk.RootError", dir, err)
		}
		if _, err := os.Stat(opts.CacheDir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("Open(%s) created its cache directory (%v)", dir, err)
		}
	}
}
