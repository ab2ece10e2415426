//go:build !unix

package access

import (
	"io/fs"
	"os"
)

// openTokenFile opens file for reading.
func openTokenFile(file string) (*os.File, error) { return os.Open(file) }

// checkTokenOwner accepts every owner where file ownership is not a uid.
func checkTokenOwner(fs.FileInfo) error { return nil }
