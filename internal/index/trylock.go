package index

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ctxls/ctxls/internal/osfile"
)

// TryLock takes the lock of the index directory dir without waiting, for
// a caller about to remove a directory it made (a replica's union of
// repositories, evicted): ok is false when an index of this or another
// process holds it (the directory is in use and must stay), and true with
// release to call once done otherwise (also when dir has no lock file: no
// index was ever opened there).
func TryLock(dir string) (release func(), ok bool, err error) {
	p := filepath.Join(dir, lockName)
	f, err := osfile.OpenNoFollow(p, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return func() {}, true, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("lock %s: %w", p, err)
	}
	switch ok, err := osfile.TryLock(f, osfile.Exclusive); {
	case ok:
		return func() { _ = osfile.Unlock(f); f.Close() }, true, nil
	case err == nil:
		f.Close()
		return nil, false, nil
	default:
		f.Close()
		return nil, false, fmt.Errorf("lock %s: %w", p, err)
	}
}
