package walk

import (
	"context"
	"encoding/binary"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// dirent encodes one linux_dirent64 record, padded to 8 bytes.
func dirent(ino uint64, typ byte, name string) []byte {
	n := (direntHeader + len(name) + 1 + 7) &^ 7
	b := make([]byte, n)
	binary.NativeEndian.PutUint64(b[0:8], ino)
	binary.NativeEndian.PutUint16(b[16:18], uint16(n))
	b[18] = typ
	copy(b[direntHeader:], name)
	return b
}

func TestParseDirents(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "unknown.txt"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "unknown-dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	var buf []byte
	for _, r := range [][]byte{
		dirent(1, syscall.DT_DIR, "."),
		dirent(1, syscall.DT_DIR, ".."),
		dirent(2, syscall.DT_REG, "a.go"),
		dirent(0, syscall.DT_REG, "deleted.go"),
		dirent(3, syscall.DT_DIR, "sub"),
		dirent(4, syscall.DT_LNK, "link"),
		dirent(5, syscall.DT_FIFO, "fifo"),
		dirent(6, syscall.DT_UNKNOWN, "unknown.txt"),
		dirent(7, syscall.DT_UNKNOWN, "unknown-dir"),
		dirent(8, syscall.DT_UNKNOWN, "vanished"),
		dirent(9, syscall.DT_REG, "a-name-of-some-length-that-needs-padding.txt"),
	} {
		buf = append(buf, r...)
	}
	got, err := parseDirents(dir, buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []dirEntry{
		{"a.go", 0}, {"sub", fs.ModeDir}, {"link", fs.ModeSymlink}, {"fifo", fs.ModeNamedPipe},
		{"unknown.txt", 0}, {"unknown-dir", fs.ModeDir},
		{"a-name-of-some-length-that-needs-padding.txt", 0},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entries %v, want %v", got, want)
	}

	// A record whose length runs past the buffer is an error, not a panic.
	bad := dirent(2, syscall.DT_REG, "a.go")
	binary.NativeEndian.PutUint16(bad[16:18], uint16(len(bad)+8))
	if _, err := parseDirents(dir, bad, nil); err == nil {
		t.Error("a record longer than the buffer: no error")
	}
}

// readDir lists what os.ReadDir lists, with the same types, however small
// its buffer (a directory read in many calls).
func TestReadDirMatchesOS(t *testing.T) {
	dir := t.TempDir()
	for i := range 300 {
		name := filepath.Join(dir, "file-with-a-longish-name-"+string(rune('a'+i%26))+"-"+strconv.Itoa(i))
		if i%7 == 0 {
			if err := os.Mkdir(name, 0o700); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(name, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("nowhere", filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	want := map[string]fs.FileMode{}
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		want[e.Name()] = e.Type()
	}
	for _, size := range []int{512, dirBufSize} {
		got, err := readDir(dir, make([]byte, size))
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]fs.FileMode{}
		for _, e := range got {
			m[e.name] = e.typ
		}
		if !reflect.DeepEqual(m, want) {
			t.Errorf("buffer of %d bytes: %d entries, os.ReadDir %d, or their types differ", size, len(m), len(want))
		}
	}
	if _, err := readDir(filepath.Join(dir, "missing"), make([]byte, 512)); !os.IsNotExist(err) {
		t.Errorf("missing directory: %v, want a not-exist error", err)
	}
}

// TestDirHandleLstatMatchesOS: a file stat'ed relative to its open
// directory has os.Lstat's mode, size and modification time — a regular
// file, a directory, a symlink (itself, not its target), a FIFO, a
// setuid file — and a missing one os.Lstat's error text.
func TestDirHandleLstatMatchesOS(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n"), 0o640))
	must(os.Mkdir(filepath.Join(dir, "sub"), 0o750))
	must(os.Symlink("a.go", filepath.Join(dir, "link")))
	must(syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600))
	must(os.WriteFile(filepath.Join(dir, "suid"), nil, 0o700))
	must(os.Chmod(filepath.Join(dir, "suid"), 0o700|fs.ModeSetuid))
	_, h, err := openDir(dir, make([]byte, 4096))
	must(err)
	defer h.release()
	for _, name := range []string{"a.go", "sub", "link", "fifo", "suid", "missing"} {
		abs := filepath.Join(dir, name)
		want, werr := os.Lstat(abs)
		got, gerr := h.lstat(name, abs)
		if werr != nil || gerr != nil {
			if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
				t.Errorf("%s: error %v, os.Lstat's %v", name, gerr, werr)
			}
			continue
		}
		if got.Name() != want.Name() || got.Mode() != want.Mode() || got.Size() != want.Size() || !got.ModTime().Equal(want.ModTime()) || got.IsDir() != want.IsDir() {
			t.Errorf("%s: %v %v %d %v, os.Lstat's %v %v %d %v", name, got.Name(), got.Mode(), got.Size(), got.ModTime(), want.Name(), want.Mode(), want.Size(), want.ModTime())
		}
	}
}

// TestWalkClosesDirectories: the directories a walk keeps open for its
// workers' stat calls are all closed when it returns, whether it
// finished or was cancelled midway.
func TestWalkClosesDirectories(t *testing.T) {
	root := t.TempDir()
	for d := range 40 {
		sub := filepath.Join(root, "d"+strconv.Itoa(d), "e")
		if err := os.MkdirAll(sub, 0o700); err != nil {
			t.Fatal(err)
		}
		for f := range 30 {
			for _, p := range []string{filepath.Dir(sub), sub} {
				if err := os.WriteFile(filepath.Join(p, "f"+strconv.Itoa(f)+".go"), []byte("package x\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	openFDs := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("no /proc/self/fd here")
		}
		return len(ents)
	}
	before := openFDs()
	files, _, err := Walk(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 40*30*2 {
		t.Fatalf("listed %d files, want %d", len(files), 40*30*2)
	}
	if n := openFDs(); n != before {
		t.Errorf("%d descriptors open after the walk, %d before", n, before)
	}
	for _, after := range []int{1, 10, 100, 1000} {
		ctx, cancel := context.WithCancel(context.Background())
		var n atomic.Int32
		m, err := NewMatcher(root, Options{Unchanged: func(string, int64, time.Time) bool {
			if n.Add(1) == int32(after) {
				cancel()
			}
			return false
		}})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := m.Walk(ctx); err == nil {
			t.Errorf("a walk cancelled after %d files succeeded", after)
		}
		cancel()
		if n := openFDs(); n != before {
			t.Errorf("cancelled after %d files: %d descriptors open, %d before", after, n, before)
		}
	}
}

// TestPathOrder: a depth-first walk that takes each directory's entries
// in comparePathOrder's order meets the files in path order — names that
// sort around '/' ("a.go", "a-b", "a_b", "a0") next to a directory "a"
// included — so that the walk's final sort finds them sorted.
func TestPathOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	parts := []string{"a", "a.go", "a-b", "a_b", "a0", "b", "ab", "a.b", "A"}
	for round := range 20 {
		root := t.TempDir()
		for range 40 {
			var elems []string
			for range 1 + rng.IntN(4) {
				elems = append(elems, parts[rng.IntN(len(parts))])
			}
			p := filepath.Join(append([]string{root}, elems...)...)
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				continue // a file is where a directory would go
			}
			os.WriteFile(p, nil, 0o600) // fails where a directory is
		}
		var got []string
		var walk func(dir, rel string)
		walk = func(dir, rel string) {
			entries, err := readDir(dir, make([]byte, 4096))
			if err != nil {
				t.Fatal(err)
			}
			slices.SortFunc(entries, comparePathOrder)
			for _, e := range entries {
				r := e.name
				if rel != "" {
					r = rel + "/" + e.name
				}
				if e.typ.IsDir() {
					walk(filepath.Join(dir, e.name), r)
				} else {
					got = append(got, r)
				}
			}
		}
		walk(root, "")
		if !slices.IsSorted(got) {
			t.Fatalf("round %d: files met out of path order: %q", round, got)
		}
	}
}
