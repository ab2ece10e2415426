package cachefile

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ctxls/ctxls/internal/osfile"
)

// Encode returns the gob encoding of v followed by its SHA-256.
func Encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(buf.Bytes())
	return append(buf.Bytes(), sum[:]...), nil
}

// Decode checks b's checksum and decodes its gob into v.
func Decode(b []byte, v any) error {
	if len(b) < sha256.Size {
		return errors.New("truncated")
	}
	body, sum := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if s := sha256.Sum256(body); !bytes.Equal(s[:], sum) {
		return errors.New("checksum mismatch")
	}
	return gob.NewDecoder(bytes.NewReader(body)).Decode(v)
}

// Read returns the bytes of the cache file at path; nil when path is ""
// or the file cannot be read (a cache that is not there is read again
// from its source, so the reason does not matter).
func Read(path string) []byte {
	if path == "" {
		return nil
	}
	b, err := osfile.ReadFile(path)
	if err != nil {
		return nil
	}
	return b
}

// Write writes b to path atomically: a temporary file in path's directory
// (created if needed, 0700), renamed over path. The file is readable by
// the user alone (0600, as os.CreateTemp makes it): a cache holds what
// the workspace holds.
func Write(path string, b []byte) error {
	return WriteFunc(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// WriteFunc is Write with the content written by fn, for a file too large
// to be made in memory first; path is left as it was when fn fails.
func WriteFunc(path string, fn func(w io.Writer) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := fn(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := osfile.Rename(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
