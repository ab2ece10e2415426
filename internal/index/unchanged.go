package index

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
)

// Unchanged tells whether root's kept index is up to date with the disk
// without opening it: the live generation's stat sections (the tables
// file's and its delta's, a few bytes per file) are compared with a walk
// of the root, as a refresh would, and nothing else is decoded. When every
// listed file has the size and modification time the index holds, no
// indexed file is gone, the files left out are left out as before, and
// the index's files pass their checksums, it returns the statistics the
// refresh would have reported (Mode "open") and true, in the time of the
// walk. Otherwise — anything changed, no usable index, another process
// holding it, a lister other than the walk, an index in memory — it
// returns false and the caller opens the index (Open, Build), which does
// the work. It never writes anything.
//
// A nothing-changed `ctxls index` is this call: on four copies of Go's
// src it spares the decoding of the tables that Open does before it can
// compare (docs/benchmarks.md).
func Unchanged(ctx context.Context, root string, opts Options) (Stats, bool) {
	start := time.Now()
	opts.Background, opts.Warm = false, false
	x, err := newIndex(root, opts)
	if err != nil || x.set.InMemory || x.set.Rebuild {
		return Stats{}, false
	}
	dir, err := x.set.CacheDirOf(x.env.root)
	if err != nil {
		return Stats{}, false
	}
	// Only a directory Open would use as it is (prepareCacheDir: ctxls's
	// tag, private, an index in it): anything else is Open's to judge.
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 || !hasTag(dir) {
		return Stats{}, false
	}
	if _, err := os.Stat(filepath.Join(dir, currentName)); err != nil {
		return Stats{}, false
	}
	x.excludeOwnDir(opts.Lister, dir)
	lock, err := lockDir(ctx, dir, 0)
	if err != nil {
		return Stats{}, false // held: Open decides what to do
	}
	defer lock.release()
	x.dir = dir
	st, ok := x.quickUnchanged(ctx)
	if !ok {
		return Stats{}, false
	}
	st.DurationMs = msSince(start)
	return st, true
}

// quickUnchanged is Unchanged on x's cache directory, locked.
func (x *Index) quickUnchanged(ctx context.Context) (Stats, bool) {
	wl, ok := x.set.Lister.(*WalkLister)
	if !ok {
		return Stats{}, false
	}
	gen, err := readCurrent(x.dir)
	if err != nil {
		return Stats{}, false
	}
	if reason, m := checkGeneration(gen, x.wantMarker()); reason == "" {
		return x.sameAsDisk(ctx, wl, gen, m)
	}
	return Stats{}, false
}

// sameAsDisk compares generation gen (its completeness marker m) with a
// walk of the root.
func (x *Index) sameAsDisk(ctx context.Context, wl *WalkLister, gen string, m marker) (Stats, bool) {
	tf, err := openTables(filepath.Join(gen, tablesName))
	if err != nil {
		return Stats{}, false
	}
	// The state's files: the tables file's rows, the delta's over them
	// (changed or new files), less the files the delta removed.
	if tf.loadStats() != nil {
		return Stats{}, false
	}
	var df *tablesFile
	removed := map[string]bool{}
	if d := m.Delta; d != nil {
		if df, err = openTables(filepath.Join(gen, deltaName)); err != nil || df.loadStats() != nil || d.Base != tf.sum() || df.sum() != d.Sum {
			return Stats{}, false
		}
		for _, p := range d.Removed {
			removed[p] = true
		}
	}
	row := func(rel string) (fileStat, bool) {
		if df != nil {
			if st, ok := df.stats[rel]; ok {
				return st, true
			}
			if removed[rel] {
				return fileStat{}, false
			}
		}
		st, ok := tf.stats[rel]
		return st, ok
	}
	unchanged := func(rel string, size int64, mtime time.Time) bool {
		st, ok := row(rel)
		return ok && !st.overlay && st.size == size && st.modTime != 0 && st.modTime == mtime.UnixNano()
	}
	// The checksums are checked (or found recorded) while the walk runs.
	// The walk stops at the first file that is not as the state holds it:
	// the open that follows walks again.
	checked := verifyGeneration(gen)
	v := readVerdicts(gen)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var changed atomic.Bool
	entries, skipped, err := wl.listUnchanged(wctx, x.env.root, func(rel string, size int64, mtime time.Time) bool {
		if unchanged(rel, size, mtime) {
			return true
		}
		if _, _, left := v.lookup(rel, size, mtime); !left {
			changed.Store(true) // neither held nor left out as it is
			cancel()
		}
		return false
	}, v)
	if sumErr := <-checked; err != nil || sumErr != nil || v == nil || changed.Load() {
		return Stats{}, false
	}
	// Every listed file was held unchanged (a file the walk lists is one
	// it asked about: held, or neither held nor left out, which is a
	// change); as many are listed as the state holds, so none of its files
	// is gone; the files left out are the ones left out before, for the
	// same reasons.
	if len(entries) != m.Files || !verdictsOf(skipped).equal(v) {
		return Stats{}, false
	}
	st := Stats{Mode: "open", Files: m.Files, Chunks: m.Chunks, Skipped: map[string]int{}, StateRoot: m.StateRoot, Dir: x.dir, IndexBytes: dirSize(gen)}
	for _, e := range entries {
		st.Bytes += e.Size
	}
	for _, s := range skipped {
		st.Skipped[s.Reason]++
	}
	if st.StateRoot == "" {
		return Stats{}, false
	}
	return st, true
}
