package access

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/ctxls/ctxls/internal/secretfile"
)

// EnvTokenFile names the token file when no --token-file flag does.
const EnvTokenFile = "CTXLS_TOKEN_FILE"

// MinTokenLen is the shortest token a token file may hold.
const MinTokenLen = 16

// maxTokenFileSize bounds what LoadToken reads.
const maxTokenFileSize = 4096

// tokenBytes is how many random bytes a generated token holds.
const tokenBytes = 32

// ErrBadTokenFile wraps every reason LoadToken refuses a token file (a
// usage error: the user named the file).
var ErrBadTokenFile = errors.New("bad token file")

// Token is a network face's secret and the file it lives in.
type Token struct {
	// Value is the secret the client must present.
	Value string
	// Path is the token file: the one the user named, or the one
	// generated.
	Path string
	// Generated: the file was created at start and is removed by Remove.
	Generated bool
}

// Remove removes a generated token file (a file the user named is left
// alone). It is for the end of the server's run.
func (t Token) Remove() error {
	if !t.Generated || t.Path == "" {
		return nil
	}
	if err := os.Remove(t.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing the token file: %w", err)
	}
	return nil
}

// LoadOrCreateToken returns the token of a network face: read from file
// when it is not empty, else from the file $CTXLS_TOKEN_FILE names, else
// generated into a new file in DefaultTokenDir. Errors reading a named
// file wrap ErrBadTokenFile.
func LoadOrCreateToken(file string) (Token, error) {
	if file == "" {
		file = os.Getenv(EnvTokenFile)
	}
	if file != "" {
		v, err := LoadToken(file)
		if err != nil {
			return Token{}, err
		}
		return Token{Value: v, Path: file}, nil
	}
	v, path, err := NewTokenFile("")
	if err != nil {
		return Token{}, err
	}
	return Token{Value: v, Path: path, Generated: true}, nil
}

// LoadToken reads the token in file: its content without surrounding
// white space. The file must be a regular file only its owner may read or
// write, owned by the user the server runs as (both skipped on Windows);
// a FIFO, a device or a directory is refused without waiting on it. The
// token must be at least MinTokenLen characters of visible ASCII. Every
// refusal wraps ErrBadTokenFile.
func LoadToken(file string) (string, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w %s: %s", ErrBadTokenFile, file, fmt.Sprintf(format, args...))
	}
	data, err := secretfile.Read(file, maxTokenFileSize)
	if r := (*secretfile.Refusal)(nil); errors.As(err, &r) {
		return "", bad("%s", r.Reason)
	}
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrBadTokenFile, err)
	}
	tok := strings.TrimSpace(string(data))
	switch {
	case tok == "":
		return "", bad("empty")
	case len(tok) < MinTokenLen:
		return "", bad("the token is shorter than %d characters", MinTokenLen)
	}
	for i := 0; i < len(tok); i++ {
		if c := tok[i]; c < 0x21 || c > 0x7e {
			return "", bad("the token holds a character that is not visible ASCII (byte %d)", i)
		}
	}
	return tok, nil
}

// NewToken returns a fresh random token: 32 bytes from crypto/rand,
// base64url without padding (43 characters).
func NewToken() (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generating a token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// NewTokenFile generates a token (NewToken) and writes it, with a final
// newline, to a new file only its owner may read (0600) in dir, created
// 0700 if missing; "" means DefaultTokenDir(). It returns the token and the
// file's path; the caller prints the path and removes the file when it
// stops.
func NewTokenFile(dir string) (token, path string, err error) {
	if dir == "" {
		if dir, err = DefaultTokenDir(); err != nil {
			return "", "", err
		}
	}
	if token, err = NewToken(); err != nil {
		return "", "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", fmt.Errorf("token file: %w", err)
	}
	f, err := os.CreateTemp(dir, "token-*") // created 0600
	if err != nil {
		return "", "", fmt.Errorf("token file: %w", err)
	}
	path = f.Name()
	if err := f.Chmod(0o600); err != nil && runtime.GOOS != "windows" {
		f.Close()
		os.Remove(path)
		return "", "", fmt.Errorf("token file: %w", err)
	}
	if _, err := f.WriteString(token + "\n"); err != nil {
		f.Close()
		os.Remove(path)
		return "", "", fmt.Errorf("token file: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return "", "", fmt.Errorf("token file: %w", err)
	}
	return token, path, nil
}

// DefaultTokenDir is where generated token files go:
// $XDG_RUNTIME_DIR/ctxls when $XDG_RUNTIME_DIR is an absolute path (a
// per-user directory that only lives while the user is logged in), else
// os.UserCacheDir()/ctxls.
func DefaultTokenDir() (string, error) {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "ctxls"), nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("token file: no runtime or cache directory: %w", err)
	}
	return filepath.Join(d, "ctxls"), nil
}

// TokenEqual reports whether got is the token want, in time that depends
// only on the lengths. An empty want matches nothing.
func TokenEqual(got, want string) bool {
	if want == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
