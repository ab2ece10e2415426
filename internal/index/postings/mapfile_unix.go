//go:build unix

package postings

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
)

// mapped is a file mapped in memory, read-only; it is unmapped when the
// mapped value is no longer reachable. Segments and Readers keep it.
type mapped struct{ data []byte }

// mapFile maps the file at path. A file renamed over it later does not
// change what is mapped.
func mapFile(path string) (*mapped, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	if size == 0 || size != int64(int(size)) {
		return nil, fmt.Errorf("%s: %w: %d bytes", path, ErrDamaged, size)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", path, err)
	}
	m := &mapped{data: data}
	runtime.AddCleanup(m, func(b []byte) { _ = syscall.Munmap(b) }, data)
	return m, nil
}
