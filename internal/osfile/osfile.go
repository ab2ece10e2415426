package osfile

import (
	"errors"
	"io"
	"os"
)

// FileStat is what Stat says of a file: its size, its identity on its
// file system (the inode, or Windows's file index) and its modification
// and change times in Unix nanoseconds, enough to tell that the file was
// replaced or written since.
type FileStat struct {
	Size, ID, ModTime, ChangeTime int64
}

// ReadFile reads the whole file at path, opened as Open opens it.
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var size int
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 && int64(int(fi.Size())) == fi.Size() {
		size = int(fi.Size())
	}
	b := make([]byte, 0, size+1) // +1: EOF is seen without growing
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// Lock is what TryLock takes: a lock other processes may share, or one
// they may not.
type Lock int

const (
	// Shared lets other processes take shared locks too.
	Shared Lock = iota
	// Exclusive keeps every other lock off.
	Exclusive
)

// TryLock takes the lock l on f without waiting: false (and no error)
// when another process holds one that conflicts. A file that holds a lock
// of the other kind releases it first, then tries, as flock(2) converts a
// lock: when the new lock cannot be had, f holds none. Closing f, or
// Unlock, releases it.
func TryLock(f *os.File, l Lock) (bool, error) { return tryLock(f, l) }

// Unlock releases f's lock (none held is not an error).
func Unlock(f *os.File) error { return unlock(f) }

// IsUnwritable reports whether err says a place cannot be written: no
// space, a quota, a file size limit, a read-only file system, no
// permission, a file where a directory should be (and on Windows a file
// another program keeps from being replaced).
func IsUnwritable(err error) bool {
	for _, e := range unwritable() {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
