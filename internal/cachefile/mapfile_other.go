//go:build !unix

package cachefile

import "github.com/ctxls/ctxls/internal/osfile"

// Map reads the file at path whole where mapping it is not available. On
// Windows a mapped file could not be replaced or deleted while a reader
// holds it, and the index replaces and deletes its files while old
// snapshots are still read: the bytes are read, and the file's handle is
// shared for deletion while they are (osfile.ReadFile).
func Map(path string) (*Mapped, error) {
	data, err := osfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return &Mapped{Data: data}, nil
}
