//go:build !unix

package secretfile

import (
	"io/fs"
	"os"
)

// open opens file for reading.
func open(file string) (*os.File, error) { return os.Open(file) }

// checkOwner accepts every owner where file ownership is not a uid.
func checkOwner(fs.FileInfo) error { return nil }
