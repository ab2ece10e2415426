package semantic

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ctxls/ctxls/internal/cachefile"
	"github.com/ctxls/ctxls/internal/index"
)

// CacheFile is the name of the vector store in an index directory (its
// layout: vecfile.go).
const CacheFile = "semantic.v2"

// oldCacheFile is the name earlier versions gave it (gob whole); a save
// removes it.
const oldCacheFile = "semantic.v1"

// DeltaSuffix names the delta file beside a cache file (its path and
// this): what a store changed since the cache file was written whole
// (vecfile.go). Whatever copies a cache file elsewhere folds the delta
// into it first (Fold).
const DeltaSuffix = ".delta"

// deltaShare is the most a delta holds, as a share of the store's
// vectors, before a save writes the cache file whole again: reading a
// store then costs at most this much more than reading it whole.
const deltaShare = 0.125

// MarshalBinary encodes the store as a cache file.
func (s *Store) MarshalBinary() ([]byte, error) { return encodeStore(s) }

// Unmarshal opens a cache file's content, checking its checksum and every
// length. The store's vectors alias b.
func Unmarshal(b []byte) (*Store, error) { return decodeStore(&mapped{Data: b}) }

// Load returns the vectors of snap, using the cache file at cachePath
// ("" for none): the cached store brought up to date (Sync: only the
// changed files embedded, with the model it has, trained again past the
// drift thresholds), or a new one (Build) when there is no usable cache,
// it was made with other options, or retrain is set. The vectors are then
// a function of the indexed content and the model (Store.ModelID), which
// the answers name with the index state. A changed store is written back;
// a cache that cannot be written is told to warnf (nil: not told), and
// the store used all the same.
func Load(ctx context.Context, snap *index.Snapshot, cachePath string, opts Options, retrain bool, warnf func(format string, args ...any)) (*Store, SyncStats, error) {
	return loadStore(ctx, snap, cachePath, readStore(cachePath), opts, retrain, warnf)
}

// Prefetch is the cache file of a Load to come, read on a goroutine of
// its own meanwhile (a CLI call reads it while the index opens).
type Prefetch struct {
	path string
	done chan struct{}
	s    *Store
}

// Path returns the cache file's path.
func (p *Prefetch) Path() string { return p.path }

// PrefetchStore starts reading the cache file at path.
func PrefetchStore(path string) *Prefetch {
	p := &Prefetch{path: path, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.s = readStore(path)
	}()
	return p
}

// LoadPrefetched is Load with the cache file p started reading.
func LoadPrefetched(ctx context.Context, snap *index.Snapshot, p *Prefetch, opts Options, retrain bool, warnf func(format string, args ...any)) (*Store, SyncStats, error) {
	<-p.done
	return loadStore(ctx, snap, p.path, p.s, opts, retrain, warnf)
}

// loadStore is Load with old, the store read from cachePath (nil: none).
func loadStore(ctx context.Context, snap *index.Snapshot, cachePath string, old *Store, opts Options, retrain bool, warnf func(format string, args ...any)) (*Store, SyncStats, error) {
	if old != nil && (old.model == nil || old.opts != opts || retrain) {
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
	if saveChanged(cachePath, s, old, warnf, "the vectors are computed again next time") {
		markSynced(cachePath, snap.StateRoot(), opts)
	}
	return s, st, nil
}

// readStore reads the store of the cache file at path, with the delta
// file beside it over it when there is one of that file; nil when there
// is none or it cannot be used (damaged, another version).
func readStore(path string) *Store {
	if path == "" {
		return nil
	}
	m, err := cachefile.Map(path)
	if err != nil {
		return nil
	}
	s, _ := decodeStore(m)
	if s == nil || s.base == nil {
		return s
	}
	d, err := cachefile.Map(path + DeltaSuffix)
	if err != nil {
		return s
	}
	if n, err := applyDelta(s, d); err == nil {
		return n
	}
	return s // the delta's files are embedded again
}

// saveChanged writes s to the cache file at path ("" for none) unless it
// is old, the store read from there; a failure is told to warnf (nil: not
// told) with what it means. It reports whether the file at path now holds
// s.
func saveChanged(path string, s, old *Store, warnf func(format string, args ...any), means string) (saved bool) {
	if path == "" || s == old {
		return path != ""
	}
	dropSynced(path)
	if err := saveStore(path, s); err != nil {
		if warnf != nil {
			warnf("%v (%s)", err, means)
		}
		return false
	}
	return true
}

// saveStore writes s to path: as a delta over the cache file there when s
// goes back to it (Store.base) and the delta is small (deltaShare), else
// whole (Save).
func saveStore(path string, s *Store) error {
	b, nvec, ok, err := encodeDelta(s)
	if err != nil {
		return err
	}
	total := 0
	for _, f := range s.order {
		total += len(f.Scales)
	}
	if !ok || float64(nvec) > deltaShare*float64(total) {
		return Save(path, s)
	}
	if err := cachefile.Write(path+DeltaSuffix, b); err != nil {
		return fmt.Errorf("vector cache: %w", err)
	}
	return nil
}

// Fold writes the cache file at path whole when a delta file is beside
// it (the store they make, read back), so that the file alone holds the
// store: for copying it elsewhere (a published generation's side file).
// A delta that does not apply is removed.
func Fold(path string) error {
	dpath := path + DeltaSuffix
	if _, err := os.Stat(dpath); err != nil {
		return nil // no delta
	}
	s := readStore(path)
	if s == nil || s.base == nil || s.model == nil {
		return removeDelta(path)
	}
	if _, _, ok, err := encodeDelta(s); err != nil || !ok {
		return removeDelta(path)
	}
	return Save(path, s)
}

// removeDelta removes the delta file beside the cache file at path.
func removeDelta(path string) error {
	if err := os.Remove(path + DeltaSuffix); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("vector cache: %w", err)
	}
	return nil
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

// Save writes the store to path whole, atomically (a temporary file
// renamed), and removes the delta file beside it (which was of the file
// replaced).
func Save(path string, s *Store) error {
	b, err := s.MarshalBinary()
	if err != nil {
		return err
	}
	if err := cachefile.Write(path, b); err != nil {
		return fmt.Errorf("vector cache: %w", err)
	}
	if filepath.Base(path) == CacheFile {
		_ = os.Remove(filepath.Join(filepath.Dir(path), oldCacheFile))
	}
	return removeDelta(path)
}
