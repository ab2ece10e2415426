package history

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctxls/ctxls/internal/cachefile"
)

// cacheVersion changes whenever the cache file's content changes meaning.
const cacheVersion = 2

// CacheFile is the name of the history cache in an index directory.
const CacheFile = "history.v2"

// cacheFile is the cache file's content, before its checksum.
type cacheFile struct {
	Version int
	Head    string
	Shallow bool
	Opts    Options
	Paths   []string
	Pos     []int32
	Files   [][]int32
	Terms   [][]string // each commit's message terms
}

// MarshalBinary encodes the log for the cache file (cachefile: gob, then
// its SHA-256).
func (l *Log) MarshalBinary() ([]byte, error) {
	c := cacheFile{Version: cacheVersion, Head: l.head, Shallow: l.shallow, Opts: l.opts, Paths: l.paths,
		Pos: make([]int32, len(l.commits)), Files: make([][]int32, len(l.commits)), Terms: make([][]string, len(l.commits))}
	for i, cm := range l.commits {
		c.Pos[i], c.Files[i], c.Terms[i] = cm.pos, cm.files, cm.terms
	}
	b, err := cachefile.Encode(&c)
	if err != nil {
		return nil, fmt.Errorf("encode history: %w", err)
	}
	return b, nil
}

// Unmarshal decodes a cache file's content, checking its checksum and
// that every index is in range.
func Unmarshal(b []byte) (*Log, error) {
	var c cacheFile
	if err := cachefile.Decode(b, &c); err != nil {
		return nil, fmt.Errorf("history cache: %w", err)
	}
	if c.Version != cacheVersion {
		return nil, fmt.Errorf("history cache: version %d, want %d", c.Version, cacheVersion)
	}
	if len(c.Pos) != len(c.Files) || len(c.Terms) != len(c.Pos) {
		return nil, errors.New("history cache: commit tables disagree")
	}
	l := &Log{head: c.Head, shallow: c.Shallow, opts: c.Opts, paths: c.Paths, commits: make([]commit, len(c.Pos))}
	for i := range c.Pos {
		for _, id := range c.Files[i] {
			if id < 0 || int(id) >= len(c.Paths) {
				return nil, errors.New("history cache: file index out of range")
			}
		}
		l.commits[i] = commit{c.Pos[i], c.Files[i], c.Terms[i]}
	}
	return l, nil
}

// Load returns root's history, using the cache file at cachePath (""
// for none): it reads the cache, refreshes it (Refresh) and writes it back
// when HEAD moved. A cache that cannot be read is read again from git; one
// that cannot be written is told to warnf (nil: not told), and the log is
// used all the same.
func Load(ctx context.Context, root, cachePath string, opts Options, warnf func(format string, args ...any)) (*Log, error) {
	return refreshCached(ctx, root, cachePath, readCache(cachePath), opts, warnf)
}

// LoadCache returns the log kept in the cache file at path, as it is: for
// a tree that is not a git checkout but comes with its history's cache (a
// replica's checkout of a stored index). nil when there is none or it is
// bad.
func LoadCache(path string) *Log { return readCache(path) }

// readCache decodes the cache file at path; nil when there is none or it
// is bad (then the history is read again from git).
func readCache(path string) *Log {
	l, _ := Unmarshal(cachefile.Read(path)) // nil bytes: "truncated", no log
	return l
}

// refreshCached refreshes old (Refresh) and, when that gives a new log,
// writes it to the cache file at cachePath ("": none), telling warnf (nil:
// not told) when it cannot.
func refreshCached(ctx context.Context, root, cachePath string, old *Log, opts Options, warnf func(format string, args ...any)) (*Log, error) {
	l, err := Refresh(ctx, root, old, opts)
	if err != nil {
		return nil, err
	}
	if cachePath != "" && l != old {
		if err := save(cachePath, l); err != nil && warnf != nil {
			warnf("%v (the history is read from git again next time)", err)
		}
	}
	return l, nil
}

// save writes the log to path atomically (a temporary file renamed).
func save(path string, l *Log) error {
	b, err := l.MarshalBinary()
	if err != nil {
		return err
	}
	if err := cachefile.Write(path, b); err != nil {
		return fmt.Errorf("history cache: %w", err)
	}
	return nil
}
