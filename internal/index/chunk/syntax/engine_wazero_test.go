//go:build !cgo || ctxls_wasm

package syntax

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ctxls/ctxls/internal/osfile/osfiletest"
)

// entries counts the files under dir.
func entries(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The compiled module is cached on disk only in a directory private to
// the user: machine code read from a directory others can write to would
// run as the user's own.
func TestCompilationCacheOnlyInPrivateDir(t *testing.T) {
	compileInto := func(dir string) {
		t.Helper()
		w, err := compile(context.Background(), compilationCache(dir))
		if err != nil {
			t.Fatal(err)
		}
		w.rt.Close(context.Background())
	}
	private := filepath.Join(osfiletest.TempDir(t), "private")
	compileInto(private)
	if entries(t, private) == 0 {
		t.Fatalf("nothing cached in the private directory %s", private)
	}
	// Windows has no mode bits to judge: its per-user cache directory is
	// private by its access list, and a directory is taken as it is.
	if runtime.GOOS != "windows" {
		if fi, err := os.Stat(private); err != nil || fi.Mode().Perm() != 0o700 {
			t.Fatalf("the cache directory was made %v (%v), want 0700", fi.Mode().Perm(), err)
		}
		worldWritableNotUsed(t, compileInto)
	}

	link := filepath.Join(osfiletest.TempDir(t), "link")
	if err := os.Symlink(private, link); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Skipf("os.Symlink made no link that Lstat sees (wine): %v", err)
	}
	before := entries(t, private)
	if c := compilationCache(link); c == nil || !privateDir(private) || privateDir(link) {
		t.Fatalf("a symbolic link to the cache directory is taken for it")
	}
	if entries(t, private) != before {
		t.Fatal("the link's target changed")
	}
}

// worldWritableNotUsed: nothing is cached in a directory anyone can write.
func worldWritableNotUsed(t *testing.T, compileInto func(string)) {
	t.Helper()
	open := filepath.Join(osfiletest.TempDir(t), "open")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	compileInto(open)
	if n := entries(t, open); n != 0 {
		t.Fatalf("%d files cached in a world-writable directory", n)
	}
}

// A trap in the module (here an edit of a tree at an address outside its
// memory) fails that call; the Parser then starts a new instance, and
// trees of the old one can still be closed.
func TestTrapStartsNewInstance(t *testing.T) {
	p := NewParser()
	defer p.Close()
	before, err := p.Parse(Go, []byte(goSrc), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := p.e
	before.Edit(EditInput{})
	first.edit(0xFFFFFFF0, EditInput{})
	if !first.broken() {
		t.Fatal("an edit outside the module's memory did not trap")
	}
	after, err := p.Parse(Go, []byte(goSrc), nil, before)
	if err != nil {
		t.Fatalf("parse after a trap: %v", err)
	}
	defer after.Close()
	if p.e == first || dump(after.RootNode()) == "" || after.RootNode().HasError() {
		t.Fatal("the broken instance was kept")
	}
	before.Close()
}

// A trap while a tree's nodes are listed leaves them childless and is the
// tree's error: a walk cannot mistake it for a small tree.
func TestTrapWhileListing(t *testing.T) {
	p := NewParser()
	defer p.Close()
	tree, err := p.Parse(Go, []byte(goSrc), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	body := tree.RootNode().NamedChild(2).ChildByFieldName("body")
	p.e.edit(0xFFFFFFF0, EditInput{})
	if body.NamedChild(0) != nil || tree.Err() == nil {
		t.Fatalf("after a trap: child %v, error %v", body.NamedChild(0), tree.Err())
	}
	if _, err := p.Parse(Go, []byte(goSrc), nil, nil); err != nil {
		t.Fatalf("the next parse: %v", err)
	}
}
