package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ctxls/ctxls/internal/osfile"
)

// On-disk layout of one root's cache directory (mode 0700, its files
// 0600: they hold the workspace's paths, names and code):
//
//	<dir>/CACHEDIR.TAG      ctxls's cache directory tag (cachedir.go): only a
//	                        tagged directory is written or collected
//	<dir>/lock              lock target (flock(2), LockFileEx on Windows: osfile);
//	                        held by the one Index writing here
//	<dir>/CURRENT           name of the live generation, replaced by rename
//	<dir>/g-<time>-<rand>/  one generation (a full build)
//	    SCHEMA              schemaVersion, written first
//	    postings/           the lexical store (package postings): its
//	                        segments and their MANIFEST
//	    tables.bin          file and chunk tables (codec.go)
//	    COMPLETE            marker (JSON), written last; removed before an
//	                        incremental change touches the lexical
//	                        store, rewritten by
//	                        the next checkpoint
//	    SKIPPED             files left out for their content, with their
//	                        size and mtime (verdicts.go; advisory)
//	    CHECKED             lexical segments whose checksum passed, with their
//	                        stat (storage.go; advisory)
//	<dir>/history.v2        the git history channel's cache (package history)
//	<dir>/semantic.v2       the vector store (package semantic, vecfile.go)
//
// A full build writes a new generation next to the live one and switches
// CURRENT to it with an atomic rename once its marker is written; older
// generations are deleted after the switch (or on the next open if the
// process died first). A generation without marker, with another schema,
// or whose tables or lexical store fail to open is never served: the index
// is rebuilt.
const (
	// schemaVersion changes with the tables' format, with the chunker's
	// output (3: JavaScript object literals of methods are class-like; 4:
	// JavaScript functions called in place are scopes) and with the rules
	// that admit files (5: a private key or a token anywhere in a file's
	// text keeps it out; older indexes judged only its first KiB, and a
	// refresh does not read unchanged files again) and with the lexical
	// store's format (6: the postings store replaces bleve's) and again
	// with the chunker's (7: Go function bodies are left out of the parse,
	// so a syntax error inside one no longer moves the file's chunks; 8:
	// a short comment between units that holds a word is a chunk), so
	// that no index built by older rules is served.
	schemaVersion = 8

	lockName     = "lock"
	currentName  = "CURRENT"
	schemaName   = "SCHEMA"
	tablesName   = "tables.bin"
	deltaName    = "tables.delta.bin"
	completeName = "COMPLETE"
	postingsName = "postings"
	genPrefix    = "g-"
)

// ErrLocked is returned (wrapped) by Open when another Index, in this or
// another process, holds the root's cache directory past LockTimeout.
var ErrLocked = errors.New("index directory is locked by another ctxls")

// marker is the content of COMPLETE.
type marker struct {
	Schema    int       `json:"schema"`
	Root      string    `json:"root"`
	StateRoot string    `json:"stateRoot"`
	Files     int       `json:"files"`
	Chunks    int       `json:"chunks"`
	Encodings []string  `json:"encodings"`
	ConfigKey string    `json:"configKey"`
	Written   time.Time `json:"written"`
	// Delta, when set, says that the state is the tables file with the
	// delta file's rows over it (tablesDelta).
	Delta *tablesDelta `json:"delta,omitempty"`
}

// tablesDelta is what a checkpoint wrote beside the tables file instead
// of writing it again: the rows of the files changed since (the delta
// file, in the tables file's format) and the files removed since. It
// applies to one tables file only, named by its checksum.
type tablesDelta struct {
	Base    uint32   `json:"base"` // the tables file's checksum
	Sum     uint32   `json:"sum"`  // the delta file's checksum
	Removed []string `json:"removed,omitempty"`
}

// dirLock is an exclusive lock on <dir>/lock.
type dirLock struct{ f *os.File }

// lockDir takes the lock of dir, polling until timeout or ctx ends.
func lockDir(ctx context.Context, dir string, timeout time.Duration) (*dirLock, error) {
	p := filepath.Join(dir, lockName)
	f, err := osfile.OpenNoFollow(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", p, err)
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().Perm()&0o077 != 0 {
		_ = f.Chmod(0o600) // made 0644 by earlier versions; best effort
	}
	deadline := time.Now().Add(timeout)
	for {
		ok, err := osfile.TryLock(f, osfile.Exclusive)
		if ok {
			// Record the holder for people debugging a stuck lock.
			_ = f.Truncate(0)
			_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
			return &dirLock{f}, nil
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", p, err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("lock %s after %v: %w", p, timeout, ErrLocked)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (l *dirLock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	_ = osfile.Unlock(l.f) // closing drops it too, on Windows eventually
	err := l.f.Close()
	l.f = nil
	return err
}

// createPrivate creates the file path for writing, readable by the user
// alone (0600): a file left there by a process that died (a temporary
// file) is removed first, so that its mode, or a link in its place, is
// not inherited.
func createPrivate(path string) (*os.File, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
}

// writeFileSync writes data to path atomically: temp file, fsync, rename,
// fsync of the directory. A rename refused (on Windows, path held open by
// another program past osfile.Rename's retries) leaves path as it was.
func writeFileSync(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := createPrivate(tmp)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := osfile.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return osfile.Sync(filepath.Dir(path))
}

// newGeneration creates an empty generation directory in dir with its
// SCHEMA file.
func newGeneration(dir string) (string, error) {
	name := fmt.Sprintf("%s%d-%08x", genPrefix, time.Now().UnixNano(), rand.Uint32())
	gen := filepath.Join(dir, name)
	if err := os.Mkdir(gen, 0o700); err != nil {
		return "", fmt.Errorf("new index generation: %w", err)
	}
	if err := os.WriteFile(filepath.Join(gen, schemaName), []byte(strconv.Itoa(schemaVersion)+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("new index generation: %w", err)
	}
	return gen, nil
}

// readCurrent returns the live generation directory of dir, or "" if there
// is none.
func readCurrent(dir string) (string, error) {
	b, err := osfile.ReadFile(filepath.Join(dir, currentName))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", currentName, err)
	}
	name := strings.TrimSpace(string(b))
	if !strings.HasPrefix(name, genPrefix) || strings.ContainsAny(name, `/\`) {
		return "", fmt.Errorf("read %s: bad generation name %q", currentName, name)
	}
	return filepath.Join(dir, name), nil
}

// switchCurrent makes gen the live generation of dir, atomically.
func switchCurrent(dir, gen string) error {
	if err := writeFileSync(filepath.Join(dir, currentName), []byte(filepath.Base(gen)+"\n")); err != nil {
		return fmt.Errorf("switch index generation: %w", err)
	}
	return nil
}

// removeOtherGenerations deletes every generation of dir but keep, and
// leftover temporary files: only in a directory that carries ctxls's tag,
// and only entries ctxls makes — directories named as newGeneration
// names them, temporary files named as ctxls names them (ownTempFile) —,
// never following a symbolic link (one in their place is left alone; the
// deletion stays inside dir, os.Root). Errors are ignored: the next open
// retries.
func removeOtherGenerations(dir, keep string) {
	if !hasTag(dir) {
		return
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return
	}
	defer r.Close()
	f, err := r.Open(".")
	if err != nil {
		return
	}
	ents, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return
	}
	for _, e := range ents {
		name, t := e.Name(), e.Type()
		switch {
		case t.IsDir() && isGenName(name) && name != filepath.Base(keep):
			_ = r.RemoveAll(name)
		case t.IsRegular() && ownTempFile(name):
			_ = r.Remove(name)
		}
	}
}

// checkGeneration reports why gen cannot be served as is ("" if it can):
// schema, completeness marker, root, encodings and configuration key.
func checkGeneration(gen string, want marker) (string, marker) {
	if gen == "" {
		return "no index", marker{}
	}
	if _, err := os.Stat(gen); errors.Is(err, fs.ErrNotExist) {
		return "no index: live generation missing", marker{}
	}
	b, err := osfile.ReadFile(filepath.Join(gen, schemaName))
	if err != nil {
		return "damaged: no schema version", marker{}
	}
	if v, err := strconv.Atoi(strings.TrimSpace(string(b))); err != nil || v != schemaVersion {
		return fmt.Sprintf("schema version %q, want %d", strings.TrimSpace(string(b)), schemaVersion), marker{}
	}
	b, err = osfile.ReadFile(filepath.Join(gen, completeName))
	if err != nil {
		return "incomplete: no completeness marker", marker{}
	}
	var m marker
	if err := json.Unmarshal(b, &m); err != nil {
		return "damaged: bad completeness marker", marker{}
	}
	switch {
	case m.Schema != schemaVersion:
		return fmt.Sprintf("schema version %d, want %d", m.Schema, schemaVersion), m
	case m.Root != want.Root:
		return fmt.Sprintf("built for root %s", m.Root), m
	case strings.Join(m.Encodings, ",") != strings.Join(want.Encodings, ","):
		return fmt.Sprintf("built with encodings %v, want %v", m.Encodings, want.Encodings), m
	case m.ConfigKey != want.ConfigKey:
		return "configuration changed", m
	}
	return "", m
}

func writeMarker(gen string, m marker) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileSync(filepath.Join(gen, completeName), append(b, '\n')); err != nil {
		return fmt.Errorf("write completeness marker: %w", err)
	}
	return nil
}

func removeMarker(gen string) error {
	err := os.Remove(filepath.Join(gen, completeName))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove completeness marker: %w", err)
	}
	return osfile.Sync(gen)
}

// dirSize returns the total size of the regular files under dir.
func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
