package osfile_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/ctxls/ctxls/internal/osfile"
	"github.com/ctxls/ctxls/internal/osfile/osfiletest"
)

// tempDir is a temporary directory that can be cleaned up under wine.
func tempDir(t *testing.T) string { return osfiletest.TempDir(t) }

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestOpenNoFollow: a file is opened (and created with O_CREATE); a
// symbolic link in its place, to a file or to nothing, is refused and
// the file it names is left untouched.
func TestOpenNoFollow(t *testing.T) {
	dir := tempDir(t)
	p := filepath.Join(dir, "lock")
	f, err := osfile.OpenNoFollow(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if _, err := f.WriteString("1\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if f, err = osfile.OpenNoFollow(p, os.O_RDWR, 0); err != nil {
		t.Fatalf("open existing: %v", err)
	}
	f.Close()
	if got := read(t, p); got != "1\n" {
		t.Fatalf("content %q", got)
	}

	target := filepath.Join(dir, "target")
	write(t, target, "keep")
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Skipf("os.Symlink made no link that Lstat sees (wine): %v", err)
	}
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(dir, "nothing"), dangling); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{link, dangling} {
		for _, flag := range []int{os.O_RDWR, os.O_RDWR | os.O_CREATE, os.O_RDONLY} {
			if f, err := osfile.OpenNoFollow(name, flag, 0o600); err == nil {
				f.Close()
				t.Errorf("OpenNoFollow(%s, %#x) opened a symbolic link", filepath.Base(name), flag)
			}
		}
	}
	if got := read(t, target); got != "keep" {
		t.Errorf("the link's target now holds %q", got)
	}
	if _, err := os.Lstat(filepath.Join(dir, "nothing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a dangling link's target was created (%v)", err)
	}
}

// TestTryLock: an exclusive lock keeps every other handle's lock off
// until released, shared locks share, and a handle converts its lock.
func TestTryLock(t *testing.T) {
	p := filepath.Join(tempDir(t), "lock")
	open := func() *os.File {
		f, err := osfile.OpenNoFollow(p, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	try := func(f *os.File, l osfile.Lock, want bool) {
		t.Helper()
		ok, err := osfile.TryLock(f, l)
		if err != nil || ok != want {
			t.Fatalf("TryLock(%d) = %v, %v; want %v", l, ok, err, want)
		}
	}
	a, b := open(), open()
	try(a, osfile.Exclusive, true)
	try(b, osfile.Exclusive, false)
	try(b, osfile.Shared, false)
	// The holder may write the file (the lock's pid), and another handle
	// read it: the lock covers no byte of its content.
	if _, err := a.WriteAt([]byte("123\n"), 0); err != nil {
		t.Fatalf("the holder writes: %v", err)
	}
	if got := read(t, p); got != "123\n" {
		t.Fatalf("another handle reads %q", got)
	}
	if err := osfile.Unlock(a); err != nil {
		t.Fatal(err)
	}
	try(b, osfile.Shared, true)
	try(a, osfile.Shared, true)
	try(a, osfile.Exclusive, false) // b shares it
	if err := osfile.Unlock(b); err != nil {
		t.Fatal(err)
	}
	try(a, osfile.Exclusive, true)
	try(a, osfile.Shared, true) // converted back: b may share again
	try(b, osfile.Shared, true)
	if err := osfile.Unlock(a); err != nil {
		t.Fatal(err)
	}
	if err := osfile.Unlock(a); err != nil {
		t.Fatalf("unlocking twice: %v", err)
	}
	// Closing releases it.
	osfile.Unlock(b)
	c := open()
	try(c, osfile.Exclusive, true)
	c.Close()
	try(b, osfile.Exclusive, true)
}

// TestRenameOverOpenFile: a rename replaces a file that a reader holds
// open through Open; the reader keeps reading the old bytes, and the
// next open reads the new ones.
func TestRenameOverOpenFile(t *testing.T) {
	if underWine() {
		t.Skip("wine refuses a rename over a file open anywhere, shared for deletion or not (real Windows 10 renames with POSIX semantics): TestRenameRefusedLeavesBoth checks what a refused rename leaves")
	}
	dir := tempDir(t)
	p, tmp := filepath.Join(dir, "CURRENT"), filepath.Join(dir, "CURRENT.tmp")
	write(t, p, "old\n")
	f, err := osfile.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	write(t, tmp, "new\n")
	if err := osfile.Rename(tmp, p); err != nil {
		t.Fatalf("rename over a file held by Open: %v", err)
	}
	var buf [16]byte
	n, _ := f.Read(buf[:])
	if got := string(buf[:n]); got != "old\n" {
		t.Errorf("the reader's handle reads %q, want the old bytes", got)
	}
	b, err := osfile.ReadFile(p)
	if err != nil || string(b) != "new\n" {
		t.Errorf("ReadFile = %q, %v; want the new bytes", b, err)
	}
	if _, err := os.Stat(tmp); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the temporary file is still there (%v)", err)
	}
}

// TestReadFile reads files of every size, an empty one included.
func TestReadFile(t *testing.T) {
	dir := tempDir(t)
	for _, n := range []int{0, 1, 511, 512, 513, 1 << 20} {
		want := bytes.Repeat([]byte{'x'}, n)
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, want, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := osfile.ReadFile(p)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%d bytes: read %d, %v", n, len(got), err)
		}
	}
	if _, err := osfile.ReadFile(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
}

// TestSync syncs a file and a directory.
func TestSync(t *testing.T) {
	dir := tempDir(t)
	p := filepath.Join(dir, "f")
	write(t, p, "x")
	for _, name := range []string{p, dir} {
		if err := osfile.Sync(name); err != nil {
			t.Errorf("Sync(%s): %v", name, err)
		}
	}
	if err := osfile.Sync(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Sync of a missing file: %v", err)
	}
}

// TestStat: a file replaced by a rename gets another identity; one
// rewritten in place another size or time.
func TestStat(t *testing.T) {
	dir := tempDir(t)
	p := filepath.Join(dir, "seg")
	write(t, p, "one")
	a, ok := osfile.Stat(p)
	if !ok || a.Size != 3 || a.ModTime == 0 {
		t.Fatalf("Stat = %+v, %v", a, ok)
	}
	if b, _ := osfile.Stat(p); b != a {
		t.Errorf("Stat twice: %+v, then %+v", a, b)
	}
	tmp := filepath.Join(dir, "seg.tmp")
	write(t, tmp, "two")
	if err := osfile.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	if b, _ := osfile.Stat(p); b.ID == a.ID && b.ModTime == a.ModTime && b.ChangeTime == a.ChangeTime {
		t.Errorf("a file renamed over the first looks the same: %+v", b)
	}
	if _, ok := osfile.Stat(filepath.Join(dir, "missing")); ok {
		t.Error("Stat of a missing file is ok")
	}
}

// TestIsUnwritable: the errors of a full or read-only place are
// unwritable; a missing file is not.
func TestIsUnwritable(t *testing.T) {
	for _, err := range []error{syscall.ENOSPC, syscall.EROFS, syscall.EACCES,
		&fs.PathError{Op: "open", Path: "x", Err: syscall.ENOSPC}} {
		if !osfile.IsUnwritable(err) {
			t.Errorf("IsUnwritable(%v) = false", err)
		}
	}
	for _, err := range []error{fs.ErrNotExist, errors.New("other"), nil} {
		if osfile.IsUnwritable(err) {
			t.Errorf("IsUnwritable(%v) = true", err)
		}
	}
	// What this system says when a directory cannot be written.
	// What this system says when a directory cannot be written (root
	// writes anyway; Windows keeps no mode on a directory).
	dir := tempDir(t)
	if err := os.Chmod(dir, 0o500); err == nil {
		defer os.Chmod(dir, 0o700)
		f, err := os.Create(filepath.Join(dir, "f"))
		if err == nil {
			f.Close()
		} else if !osfile.IsUnwritable(err) {
			t.Errorf("IsUnwritable(%v) = false", err)
		}
	}
}
