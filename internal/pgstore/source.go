package pgstore

import (
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/ctxls/ctxls/internal/secretfile"
)

// EnvStore holds the store's connection string for the commands that
// always read a store (ctxls store …, ctxls index and assemble with
// --repo) when no flag names one. The environment of a process is only
// its user's to read, unlike its command line.
const EnvStore = "CTXLS_STORE"

// EnvStoreFile names a file holding the store's connection string, where
// EnvStore would be read; it is read first.
const EnvStoreFile = "CTXLS_STORE_FILE"

// maxStoreFileSize bounds what a store file may hold.
const maxStoreFileSize = 16 << 10

// maxPassfileSize bounds the PostgreSQL password file Open checks.
const maxPassfileSize = 1 << 20

// SourceError is a connection string that cannot be had: both flags
// given, or a store file refused or unreadable (bad usage: the user named
// it).
type SourceError struct{ Err error }

func (e *SourceError) Error() string { return e.Err.Error() }
func (e *SourceError) Unwrap() error { return e.Err }

// Source is where a command reads its store's connection string: the
// --store flag, the file --store-file names, or the environment.
type Source struct {
	// URL is --store's value.
	URL string
	// File is --store-file's value.
	File string
}

// SourceFlags defines --store (storeHelp says what the store is for) and
// --store-file on fs.
func SourceFlags(fs *flag.FlagSet, storeHelp string) *Source {
	s := &Source{}
	fs.StringVar(&s.URL, "store", "", storeHelp+"; a password in it is on the command line, which other users see: put it in --store-file or a .pgpass file")
	fs.StringVar(&s.File, "store-file", "", "the file holding --store's connection string (one only its owner may read: chmod 600)")
	return s
}

// Named reports whether a flag names the store.
func (s *Source) Named() bool { return s.URL != "" || s.File != "" }

// Exposed reports whether --store's value holds a password, which the
// process list shows to every user of the machine.
func (s *Source) Exposed() bool { return HasPassword(s.URL) }

// DSN returns the connection string and what gave it, for messages
// ("--store", "--store-file FILE", "$CTXLS_STORE_FILE FILE",
// "$CTXLS_STORE"). The flags come first; with env true, then the file
// $CTXLS_STORE_FILE names, then $CTXLS_STORE. It returns "" when none gives
// one. A store file must be a regular file only its owner may read or
// write, owned by the user ctxls runs as; its content is trimmed of
// surrounding white space. Every error is a *SourceError.
func (s *Source) DSN(env bool) (dsn, from string, err error) {
	switch {
	case s.URL != "" && s.File != "":
		return "", "", &SourceError{errors.New("give --store or --store-file, not both")}
	case s.URL != "":
		return s.URL, "--store", nil
	case s.File != "":
		return loadStoreFile(s.File, "--store-file "+s.File)
	case !env:
		return "", "", nil
	}
	if f := os.Getenv(EnvStoreFile); f != "" {
		return loadStoreFile(f, "$"+EnvStoreFile+" "+f)
	}
	if v := strings.TrimSpace(os.Getenv(EnvStore)); v != "" {
		return v, "$" + EnvStore, nil
	}
	return "", "", nil
}

// loadStoreFile reads the connection string in file; from names it.
func loadStoreFile(file, from string) (string, string, error) {
	b, err := secretfile.Read(file, maxStoreFileSize)
	if err != nil {
		return "", "", &SourceError{fmt.Errorf("%s: %w", strings.TrimSuffix(from, " "+file), err)}
	}
	v := strings.TrimSpace(string(b))
	if v == "" {
		return "", "", &SourceError{fmt.Errorf("%s: %s is empty", strings.TrimSuffix(from, " "+file), file)}
	}
	return v, from, nil
}

// checkPassfile refuses the PostgreSQL password file that pgx would read
// for dsn when other users may read it, as libpq does (libpq skips it
// with a warning; here the connection fails, saying why). The file is
// read only when dsn holds no password and $PGPASSWORD is empty: then
// the passfile setting of dsn, else $PGPASSFILE, else ~/.pgpass
// (%APPDATA%\postgresql\pgpass.conf on Windows). A missing file is no
// error: there is no password to find.
func checkPassfile(dsn string) error {
	if HasPassword(dsn) || os.Getenv("PGPASSWORD") != "" {
		return nil
	}
	file := setting(dsn, "passfile")
	if file == "" {
		file = os.Getenv("PGPASSFILE")
	}
	if file == "" {
		if runtime.GOOS == "windows" {
			if d := os.Getenv("APPDATA"); d != "" {
				file = filepath.Join(d, "postgresql", "pgpass.conf")
			}
		} else if home, err := os.UserHomeDir(); err == nil {
			file = filepath.Join(home, ".pgpass")
		}
	}
	if file == "" {
		return nil
	}
	if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if _, err := secretfile.Read(file, maxPassfileSize); err != nil {
		return &SourceError{fmt.Errorf("the PostgreSQL password file: %w", err)}
	}
	return nil
}

// setting returns the value of key in the connection string dsn (the
// last one, as libpq takes it), or "".
func setting(dsn, key string) string {
	var v string
	if n, ok := isURL(dsn); ok {
		if q := strings.IndexByte(dsn[n:], '?'); q >= 0 {
			for _, pair := range strings.Split(dsn[n+q+1:], "&") {
				if k, val, ok := strings.Cut(pair, "="); ok && k == key {
					v = val
					if d, err := url.PathUnescape(val); err == nil {
						v = d
					}
				}
			}
		}
		return strings.TrimSpace(v)
	}
	pairs, _ := keywordPairs(dsn)
	for _, p := range pairs {
		if p.key == key {
			v = unquote(dsn[p.start:p.end])
		}
	}
	return v
}
