//go:build !linux

package walk

import (
	"io/fs"
	"os"
)

// readDir lists the directory dir (buf is unused here: the Linux version
// reads into it).
func readDir(dir string, _ []byte) ([]dirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	es, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	out := make([]dirEntry, len(es))
	for i, e := range es {
		out[i] = dirEntry{name: e.Name(), typ: e.Type()}
	}
	return out, nil
}

// openDir is readDir; there is no handle to stat relative to here.
func openDir(dir string, buf []byte) ([]dirEntry, *dirHandle, error) {
	out, err := readDir(dir, buf)
	return out, nil, err
}

// dirHandle is an open directory where the walk can stat relative to one
// (Linux); elsewhere there is none, and a nil one stats the path.
type dirHandle struct{}

func (h *dirHandle) acquire() {}
func (h *dirHandle) release() {}

// lstat is os.Lstat(abs).
func (h *dirHandle) lstat(_, abs string) (fs.FileInfo, error) { return os.Lstat(abs) }
