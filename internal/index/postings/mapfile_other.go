//go:build !unix

package postings

import "os"

// mapped holds a segment file's bytes.
type mapped struct{ data []byte }

// mapFile reads the file at path whole where mapping it is not available.
func mapFile(path string) (*mapped, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return &mapped{data: data}, nil
}
