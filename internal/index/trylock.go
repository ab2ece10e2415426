package index

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// TryLock takes the lock of the index directory dir without waiting, for
// a caller about to remove a directory it made (a replica's union of
// repositories, evicted): ok is false when an index of this or another
// process holds it (the directory is in use and must stay), and true with
// release to call once done otherwise (also when dir has no lock file: no
// index was ever opened there).
func TryLock(dir string) (release func(), ok bool, err error) {
	p := filepath.Join(dir, lockName)
	f, err := os.OpenFile(p, os.O_RDWR|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return func() {}, true, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("lock %s: %w", p, err)
	}
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch {
		case err == nil:
			return func() { f.Close() }, true, nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EWOULDBLOCK):
			f.Close()
			return nil, false, nil
		}
		f.Close()
		return nil, false, fmt.Errorf("lock %s: %w", p, err)
	}
}
