//go:build unix

package osfile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Open opens the file at path for reading.
func Open(path string) (*os.File, error) { return os.Open(path) }

// OpenNoFollow opens the file at path as os.OpenFile does, but fails when
// path is itself a symbolic link (dangling or not) rather than open what
// it points to.
func OpenNoFollow(path string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag|syscall.O_NOFOLLOW, perm)
}

// Rename renames oldpath to newpath, replacing newpath atomically.
func Rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

// Sync writes the file or directory at path to disk (a directory: the
// names in it, after a rename or a new file).
func Sync(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func tryLock(f *os.File, l Lock) (bool, error) {
	how := unix.LOCK_SH
	if l == Exclusive {
		how = unix.LOCK_EX
	}
	for {
		err := unix.Flock(int(f.Fd()), how|unix.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EWOULDBLOCK):
			return false, nil
		}
		return false, &fs.PathError{Op: "lock", Path: f.Name(), Err: err}
	}
}

func unlock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_UN)
		if !errors.Is(err, unix.EINTR) {
			if err != nil {
				return &fs.PathError{Op: "unlock", Path: f.Name(), Err: err}
			}
			return nil
		}
	}
}

// Stat describes the file at path (following a link); false when it
// cannot be stat'ed.
func Stat(path string) (FileStat, bool) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return FileStat{}, false
	}
	return FileStat{st.Size, int64(st.Ino), st.Mtim.Nano(), st.Ctim.Nano()}, true
}

// Owned reports whether the user running this process owns the file fi
// describes (what makes tightening its mode theirs to do).
func Owned(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

// CheckEnter fails when this process may not enter the directory dir
// (search permission), as the user it runs as.
func CheckEnter(dir string) error {
	return unix.Faccessat(unix.AT_FDCWD, dir, unix.X_OK, unix.AT_EACCESS)
}

// unwritable are the errors of a place that cannot be written.
func unwritable() []error {
	return []error{
		syscall.ENOSPC, syscall.EDQUOT, syscall.EFBIG, syscall.EROFS,
		syscall.EACCES, syscall.EPERM, syscall.ENOTDIR,
	}
}
