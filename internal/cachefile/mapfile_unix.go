//go:build unix

package cachefile

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
)

// Map maps the file at path in memory, read-only; it is unmapped when the
// returned value is no longer reachable, so whatever reads Data keeps a
// pointer to it. A file renamed over it later (the next save) does not
// change what is mapped. An empty file is an error.
func Map(path string) (*Mapped, error) {
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
		return nil, fmt.Errorf("%s: %d bytes", path, size)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", path, err)
	}
	m := &Mapped{Data: data}
	runtime.AddCleanup(m, func(b []byte) { _ = syscall.Munmap(b) }, data)
	return m, nil
}
