//go:build !unix

package cachefile

import "os"

// Map reads the file at path whole where mapping it is not available.
func Map(path string) (*Mapped, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return &Mapped{Data: data}, nil
}
