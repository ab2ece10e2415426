//go:build !unix && !windows

package osfile

import (
	"io/fs"
	"os"
	"syscall"
)

// Open opens the file at path for reading.
func Open(path string) (*os.File, error) { return os.Open(path) }

// OpenNoFollow opens the file at path, refusing a symbolic link in its
// place (checked with Lstat first: this platform has no O_NOFOLLOW).
func OpenNoFollow(path string, flag int, perm fs.FileMode) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, &fs.PathError{Op: "open", Path: path, Err: syscall.ELOOP}
	}
	return os.OpenFile(path, flag, perm)
}

// Rename renames oldpath to newpath, replacing newpath.
func Rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

// Sync writes the file at path to disk (a directory: nothing).
func Sync(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err == nil && !fi.IsDir() {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// tryLock always succeeds: this platform has no file locks, and only one
// process runs.
func tryLock(*os.File, Lock) (bool, error) { return true, nil }

func unlock(*os.File) error { return nil }

// Stat describes the file at path by its size and modification time.
func Stat(path string) (FileStat, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return FileStat{}, false
	}
	return FileStat{Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}, true
}

// Owned is false: nothing here says who owns a file.
func Owned(fs.FileInfo) bool { return false }

// CheckEnter is nil: a directory that lists can be entered.
func CheckEnter(string) error { return nil }

func unwritable() []error {
	return []error{syscall.ENOSPC, syscall.EROFS, syscall.EACCES, syscall.EPERM, syscall.ENOTDIR}
}
