//go:build unix

package walk

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadFileTakesWhatWalkTakes: ReadFile reads a file the walk lists,
// and refuses, without opening it, what the walk leaves out — symlinks out
// of the root (to a file, to /proc/self/environ, to /dev/zero), into .git,
// to a FIFO; secret names; ignored files; files over the size limit —
// plus a file whose whole text holds a secret (the indexer's rule). No
// read blocks or runs without a bound.
func TestReadFileTakesWhatWalkTakes(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	code := "package a\n\nfunc A() int { return 1 }\n"
	writeTree(t, root, map[string]string{
		"a.go":         code,
		".env":         "TOKEN=x\n",
		".gitignore":   "gen/\n",
		"gen/g.go":     code,
		"big.go":       code + strings.Repeat("// padding\n", 2000),
		"tail.go":      code + strings.Repeat("// padding\n", 2*sniffSize/11) + "const k = \"" + armor("RSA PRIVATE KEY") + "\"\n",
		".git/config":  "[core]\n",
		"sub/b.go":     code,
		"bin/blob.dat": "\x00\x01",
	})
	writeTree(t, outside, map[string]string{"s.go": code})
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for link, target := range map[string]string{
		"out.go":     filepath.Join(outside, "s.go"),
		"outdir":     outside,
		"environ.go": "/proc/self/environ",
		"zero.go":    "/dev/zero",
		"gitcfg.go":  ".git/config",
		"env.go":     ".env",
		"in.go":      "a.go",
		"pipe.go":    "pipe",
		"dangling":   "missing",
	} {
		symlink(t, target, filepath.Join(root, link))
	}
	opts := Options{MaxFileSize: 20000}
	m, err := NewMatcher(root, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Reason{
		"a.go": "", "in.go": "", "sub/b.go": "", ".gitignore": "",
		"out.go": ReasonSymlinkOutside, "outdir/s.go": ReasonSymlinkOutside,
		"environ.go": ReasonSymlinkOutside, "zero.go": ReasonSymlinkOutside,
		"gitcfg.go": ReasonVCS, ".git/config": ReasonVCS, "env.go": ReasonSecret, ".env": ReasonSecret,
		"gen/g.go": ReasonIgnored, "big.go": ReasonTooLarge, "tail.go": ReasonSecret,
		"pipe": ReasonSpecial, "pipe.go": ReasonSpecial, "dangling": ReasonBrokenSymlink,
		"bin/blob.dat": ReasonBinary, "../outside/s.go": ReasonOutsideRoot,
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for p, reason := range want {
			f, b, s, err := m.ReadFile(p)
			switch {
			case err != nil:
				t.Errorf("ReadFile(%s): %v", p, err)
			case reason == "" && s != nil:
				t.Errorf("ReadFile(%s) refused it: %+v", p, *s)
			case reason == "" && (f.Path != p || f.Size != int64(len(b)) || !strings.HasPrefix(string(b), map[bool]string{true: "gen/", false: "package a"}[p == ".gitignore"])):
				t.Errorf("ReadFile(%s) = %+v, %q", p, f, b)
			case reason != "" && (s == nil || s.Reason != reason || b != nil):
				t.Errorf("ReadFile(%s) = %+v, %d bytes, %+v; want it refused: %s", p, f, len(b), s, reason)
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("ReadFile blocked (a FIFO or an endless file was opened)")
	}
	// What ReadFile takes, the walk lists; what the walk leaves out,
	// ReadFile refuses.
	files, skipped, err := Walk(context.Background(), root, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if _, _, s, err := m.ReadFile(f.Path); err != nil || (s != nil && f.Path != "tail.go") {
			t.Errorf("the walk lists %s; ReadFile: %+v, %v", f.Path, s, err)
		}
	}
	for _, s := range skipped {
		if s.Reason == ReasonDuplicate {
			continue
		}
		if _, b, rs, err := m.ReadFile(s.Path); rs == nil && err == nil {
			t.Errorf("the walk leaves %s out (%s); ReadFile read %d bytes", s.Path, s.Reason, len(b))
		}
	}
	if _, _, _, err := m.ReadFile("nope.go"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile(missing): %v, want an error wrapping fs.ErrNotExist", err)
	}
}

// TestReadFileReadsWhatWasJudged: a file that grew past the size limit,
// or was replaced by another file, after its stat is not read.
func TestReadFileReadsWhatWasJudged(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.go": "package a\n", "b.go": "package b\n"})
	m, err := NewMatcher(root, Options{MaxFileSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	f, info, s, err := m.checkPath("a.go")
	if err != nil || s != nil {
		t.Fatal(s, err)
	}
	if err := os.WriteFile(f.Abs, []byte(strings.Repeat("x", 200)), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, s := m.readJudged(f, info); s == nil || s.Reason != ReasonTooLarge {
		t.Errorf("a file grown past the limit: %d bytes, %+v", len(b), s)
	}
	if err := os.Rename(filepath.Join(root, "b.go"), f.Abs); err != nil {
		t.Fatal(err)
	}
	if b, s := m.readJudged(f, info); s == nil || s.Reason != ReasonUnreadable {
		t.Errorf("a file replaced since its stat: %q, %+v", b, s)
	}
}
