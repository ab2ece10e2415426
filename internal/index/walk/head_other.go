//go:build !unix

package walk

import (
	"errors"
	"io"
	"os"

	"github.com/ctxls/ctxls/internal/osfile"
)

// readFileHead reads the first len(buf) bytes of the file name (fewer when
// it is shorter) into buf and returns how many it read.
func readFileHead(name string, buf []byte) (int, error) {
	f, err := osfile.Open(name)
	if err != nil {
		return 0, err
	}
	n, err := io.ReadFull(f, buf)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		err = nil
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// openRead opens name for reading.
func openRead(name string) (*os.File, error) { return osfile.Open(name) }
