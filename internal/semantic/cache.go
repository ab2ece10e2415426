package semantic

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctxls/ctxls/internal/cachefile"
	"github.com/ctxls/ctxls/internal/index"
)

// cacheVersion changes whenever the cache file's content changes meaning.
const cacheVersion = 2

// CacheFile is the name of the vector store in an index directory.
const CacheFile = "semantic.v1"

// cacheFile is the cache file's content, before its checksum.
type cacheFile struct {
	Version   int
	TrainedAt string
	// Endpoint names the service and model of an endpoint's store ("":
	// the workspace embedder's); Dim is then its vectors' size.
	Endpoint string
	Dim      int
	Opts     Options
	Model    *Model
	Paths    []string
	Files    []*fileVecs
}

// MarshalBinary encodes the store for the cache file (cachefile: gob,
// then its SHA-256).
func (s *Store) MarshalBinary() ([]byte, error) {
	c := cacheFile{Version: cacheVersion, TrainedAt: s.trainedAt, Opts: s.opts, Model: s.model, Paths: s.paths, Files: s.order}
	if s.ep != nil {
		c.Endpoint, c.Dim = s.ep.id(), s.epDim
	}
	b, err := cachefile.Encode(&c)
	if err != nil {
		return nil, fmt.Errorf("encode vectors: %w", err)
	}
	return b, nil
}

// Unmarshal decodes a cache file's content, checking its checksum and
// every length.
func Unmarshal(b []byte) (*Store, error) {
	var c cacheFile
	if err := cachefile.Decode(b, &c); err != nil {
		return nil, fmt.Errorf("vector cache: %w", err)
	}
	if c.Version != cacheVersion {
		return nil, fmt.Errorf("vector cache: version %d, want %d", c.Version, cacheVersion)
	}
	if c.Endpoint != "" {
		return unmarshalEndpoint(&c)
	}
	m := c.Model
	if m == nil || m.Dim < 0 || len(m.IDF) != len(m.Terms) || len(m.Scales) != len(m.Terms) || len(m.Codes) != len(m.Terms)*m.Dim || len(c.Files) != len(c.Paths) {
		return nil, errors.New("vector cache: tables disagree")
	}
	s := &Store{opts: c.Opts, model: m.index(), files: make(map[string]*fileVecs, len(c.Paths)), trainedAt: c.TrainedAt}
	for i, p := range c.Paths {
		f := c.Files[i]
		if f == nil || len(f.Vecs) != len(f.Scales)*m.Dim {
			return nil, fmt.Errorf("vector cache: %s: bad vectors", p)
		}
		s.files[p] = f
	}
	s.finish()
	return s, nil
}

// Load returns the vectors of snap, using the cache file at cachePath
// ("" for none): the cached store brought up to date (Sync), or a new one
// (Build) when there is no usable cache or it was made with other
// options. With exact, a cached store whose model was trained on another
// state than snap's is trained again too, so that the vectors are a
// function of the indexed content alone — what a one-shot run (the CLI)
// promises: the same files, the same answer, whatever the cache's past. A
// changed store is written back; a cache that cannot be written is told
// to warnf (nil: not told), and the store used all the same.
func Load(ctx context.Context, snap *index.Snapshot, cachePath string, opts Options, exact bool, warnf func(format string, args ...any)) (*Store, SyncStats, error) {
	old := readStore(cachePath)
	if old != nil && (old.model == nil || old.opts != opts || exact && old.trainedAt != snap.StateRoot()) {
		old = nil
	}
	var s *Store
	var st SyncStats
	var err error
	if old == nil {
		s, st, err = Build(ctx, snap, opts)
	} else {
		s, st, err = old.Sync(ctx, snap)
	}
	if err != nil {
		return nil, st, err
	}
	saveChanged(cachePath, s, old, warnf, "the vectors are computed again next time")
	return s, st, nil
}

// readStore reads the store of the cache file at path; nil when there is
// none or it cannot be used (damaged, another version).
func readStore(path string) *Store {
	s, _ := Unmarshal(cachefile.Read(path)) // nil bytes: "truncated", no store
	return s
}

// saveChanged writes s to the cache file at path ("" for none) unless it
// is old, the store read from there; a failure is told to warnf (nil: not
// told) with what it means.
func saveChanged(path string, s, old *Store, warnf func(format string, args ...any), means string) {
	if path == "" || s == old {
		return
	}
	if err := Save(path, s); err != nil && warnf != nil {
		warnf("%v (%s)", err, means)
	}
}

// unmarshalEndpoint makes the store of an endpoint's cache file; its
// endpoint is set by LoadEndpoint (epID says which it must be).
func unmarshalEndpoint(c *cacheFile) (*Store, error) {
	if c.Dim < 1 || len(c.Files) != len(c.Paths) {
		return nil, errors.New("vector cache: tables disagree")
	}
	s := &Store{epDim: c.Dim, epID: c.Endpoint, files: make(map[string]*fileVecs, len(c.Paths))}
	for i, p := range c.Paths {
		f := c.Files[i]
		if f == nil || len(f.Vecs) != len(f.Scales)*c.Dim || len(f.Hashes) != len(f.Scales) {
			return nil, fmt.Errorf("vector cache: %s: bad vectors", p)
		}
		s.files[p] = f
	}
	s.finish()
	return s, nil
}

// LoadEndpoint returns the vectors of snap computed by the service ep,
// through the cache file at cachePath ("" for none): a cached store of the
// same service and model brought up to date (only new texts are sent),
// else all of them. The store is written back when it changed; a cache
// that cannot be written is told to warnf.
func LoadEndpoint(ctx context.Context, snap *index.Snapshot, cachePath string, ep *Endpoint, warnf func(format string, args ...any)) (*Store, SyncStats, error) {
	old := readStore(cachePath)
	if old != nil {
		if old.epID != ep.id() {
			old = nil
		} else {
			old.ep = ep
		}
	}
	s, st, err := syncEndpoint(ctx, snap, ep, old)
	if err != nil {
		return nil, st, err
	}
	saveChanged(cachePath, s, old, warnf, "the vectors are asked for again next time")
	return s, st, nil
}

// Save writes the store to path atomically (a temporary file renamed).
func Save(path string, s *Store) error {
	b, err := s.MarshalBinary()
	if err != nil {
		return err
	}
	if err := cachefile.Write(path, b); err != nil {
		return fmt.Errorf("vector cache: %w", err)
	}
	return nil
}
