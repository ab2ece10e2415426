package index

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxls/ctxls/internal/index/chunk"
	"github.com/ctxls/ctxls/internal/index/postings"
	"github.com/ctxls/ctxls/internal/index/walk"
	"github.com/ctxls/ctxls/internal/osfile"
)

// compactAfter is the number of changed files a snapshot's delta may hold
// before the writer folds it into new base tables. Lookups scan the delta,
// and folding costs a pass over all tables, so this trades per-update cost
// against per-query cost.
const compactAfter = 128

// Index is one workspace root's index: the writer of its on-disk (or
// in-memory) state and the source of its snapshots. All methods are safe
// for concurrent use. Readers take snapshots and never wait for the
// writer; changes (Update, Remove, overlays, Refresh) are serialized by one
// writer mutex and each publishes a new snapshot when done.
//
// An Index holds the root's cache directory lock until Close.
type Index struct {
	set  settings
	env  *env
	dir  string // cache directory; "" when in memory
	lock *dirLock
	// private: dir is a temporary directory of this Index alone, removed
	// on Close.
	private bool

	cur atomic.Pointer[Snapshot]

	// doneBuild is closed when the initial build (or open) has finished;
	// buildErr is its result.
	doneBuild chan struct{}
	buildErr  error

	mu sync.Mutex // the writer mutex; guards everything below

	// names is the name table of all chunk records; the writer interns.
	names   *nameTable
	gen     string          // live generation directory; "" when in memory
	post    *postings.Store // the lexical store; nil when closed
	chunker Chunker         // the writer's, for single-file changes
	// unverified holds the paths whose chunks came from an incremental
	// parse not yet compared with a fresh one (verifyLocked).
	unverified map[string]bool
	overlays   map[string][]byte
	// verdicts are the live generation's files left out for their
	// content (verdicts.go); replaced, never changed in place.
	verdicts verdicts
	building bool        // a background build is running
	pending  []pendingOp // changes that arrived during the build
	seq      uint64
	// unavailable are the files left out because their source could not
	// be read now (ErrUnavailable): a Refresh tries them again.
	unavailable map[string]bool
	// dirty: the lexical store has changes not covered by the
	// completeness marker (the marker is removed); tablesDirty: the
	// tables on disk are out of date (mtimes only, the store unchanged).
	dirty, tablesDirty bool
	// diskBase is the base tables the live generation's tables file
	// holds (nil: none known, or the file holds a fold of base and delta),
	// diskSum that file's checksum, and diskDelta whether its marker names
	// a delta file (writeStateLocked).
	diskBase  *tables
	diskSum   uint32
	diskDelta bool
	ckTimer   *time.Timer
	stats     Stats
	closed    bool
	// cancelBuild cancels a background build (set before it starts).
	cancelBuild context.CancelFunc
	// warm builds the symbol maps right after an existing index opens.
	warm bool
	// docsWritten counts the lexical documents written since Open (tests).
	docsWritten int
	// counters are the analysis.Counters of the chunking workers.
	counters sync.Pool
	// docs are lexical documents the batch writer has added to the store,
	// for the workers to fill again (their buffers are most of a build's
	// allocations otherwise).
	docs sync.Pool
	// same is the running full build's table of contents seen (nil
	// outside a full build).
	same atomic.Pointer[sameContent]
	// prelist is the walk Open started for the first refresh (nil when
	// none is under way).
	prelist       chan listResult
	prelistCancel context.CancelFunc
	// Editor buffers changed while a build runs (SetOverlay,
	// ClearOverlay) are applied by the build's writer at once, between two
	// files (buildOverlaysLocked): ovPaths are the paths to apply, ovWait
	// the callers waiting for the snapshot that has them, ovKick wakes the
	// writer. What the writer has not taken when the build ends is applied
	// after it.
	ovPaths map[string]bool
	ovWait  []chan error
	ovKick  chan struct{}
}

// queueBuildOverlayLocked asks the running build's writer to apply the
// buffer of p now; the returned channel receives the outcome once a
// snapshot has it.
func (x *Index) queueBuildOverlayLocked(p string) <-chan error {
	if x.ovPaths == nil {
		x.ovPaths = map[string]bool{}
	}
	x.ovPaths[p] = true
	done := make(chan error, 1)
	x.ovWait = append(x.ovWait, done)
	select {
	case x.ovKick <- struct{}{}:
	default:
	}
	return done
}

// takeBuildOverlays returns and forgets the queued buffer paths (sorted)
// and their waiters.
func (x *Index) takeBuildOverlays() ([]string, []chan error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	paths := slices.Sorted(maps.Keys(x.ovPaths))
	waiters := x.ovWait
	x.ovPaths, x.ovWait = nil, nil
	return paths, waiters
}

// waitOverlay waits for a queued buffer change to be in a snapshot.
func waitOverlay(ctx context.Context, done <-chan error) error {
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// listResult is a Lister's answer.
type listResult struct {
	entries  []Entry
	skipped  []Skipped
	verdicts verdicts // the generation's, which the walk was given
	err      error
}

// dropPrelist waits for the walk Open started, if any, and forgets it
// (the index is rebuilt instead, with a listing of its own).
func (x *Index) dropPrelist() {
	if x.prelist != nil {
		x.prelistCancel()
		<-x.prelist
		x.prelist, x.prelistCancel = nil, nil
	}
}

// pendingOp is a change from disk queued while a background build runs
// (editor buffers are applied during the build: queueBuildOverlayLocked).
type pendingOp struct {
	path    string
	content []byte // nil with !remove: read from disk
	remove  bool
}

// Stats describe the last build or refresh, for `ctxls index` and logs.
type Stats struct {
	// Mode is "build" (a full build), "refresh" (an existing index brought
	// up to date) or "open" (an existing index, nothing changed).
	Mode string `json:"mode"`
	// Reason says why a full build was needed ("no index", "incomplete:
	// …", "damaged: …", "schema version …", "forced", "in memory", …).
	Reason string `json:"reason,omitempty"`
	Files  int    `json:"files"`
	Chunks int    `json:"chunks"`
	Bytes  int64  `json:"bytes"` // source bytes indexed
	// Read counts the files this run read: every file for a build; for a
	// refresh the new ones and those whose size or mtime is not what the
	// index recorded (a file with the same size and mtime is not read).
	// Changed of them had new content.
	Read       int            `json:"read"`
	Changed    int            `json:"changed"` // files (re)indexed by this run
	Removed    int            `json:"removed"` // files dropped by this run
	Skipped    map[string]int `json:"skipped"` // files left out, by reason
	DurationMs float64        `json:"durationMs"`
	IndexBytes int64          `json:"indexBytes"` // size on disk (0 in memory)
	StateRoot  string         `json:"stateRoot"`
	Dir        string         `json:"dir,omitempty"` // the cache directory
}

// Build builds or refreshes the index of root and closes it: what
// `ctxls index` runs. Options.Progress reports progress; Background is
// ignored.
func Build(ctx context.Context, root string, opts Options) (Stats, error) {
	opts.Background, opts.Warm = false, false
	if st, ok := Unchanged(ctx, root, opts); ok {
		return st, nil
	}
	x, err := Open(ctx, root, opts)
	if err != nil {
		return Stats{}, err
	}
	st := x.Stats()
	if err := x.Close(); err != nil {
		return st, err
	}
	return st, nil
}

// excludeOwnDir keeps the index's own directory out of the listing when
// it lies inside the root (a CI job caching the index in the checkout) and
// the lister is the default one.
func (x *Index) excludeOwnDir(given Lister, dir string) {
	wl, ok := x.set.Lister.(*WalkLister)
	if given != nil || !ok {
		return
	}
	real := dir
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		real = r
	}
	root := x.env.root
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	rel, err := filepath.Rel(root, real)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return
	}
	wl.Options.Exclude = append(slices.Clone(wl.Options.Exclude), filepath.ToSlash(rel))
}

// Open opens the index of root, building it when there is no valid one on
// disk and refreshing it (re-reading only changed files) when there is. A
// stale, incomplete, damaged or old-schema index is never served.
//
// With Options.Background, a needed full build runs in the background and
// Open returns at once; snapshots are then partial until Wait returns.
// The caller must Close the Index.
func Open(ctx context.Context, root string, opts Options) (*Index, error) {
	x, err := newIndex(root, opts)
	if err != nil {
		return nil, err
	}
	set, abs := x.set, x.env.root
	if set.InMemory {
		return x, x.startBuild(ctx, "in memory")
	}
	dir, err := set.CacheDirOf(abs)
	if err != nil {
		return nil, err
	}
	if set.CacheDir == "" {
		// os.UserCacheDir()/ctxls is ctxls's own; $CTXLS_CACHE_DIR is
		// only when ctxls creates it.
		prepareDefaultParent(filepath.Dir(dir), os.Getenv(EnvCacheDir) == "")
	}
	if err := prepareCacheDir(dir); err != nil {
		if isStorageFailure(err) || errors.Is(err, ErrNotCacheDir) {
			return x.openInMemory(ctx, dir, err)
		}
		return nil, fmt.Errorf("open index: %w", err)
	}
	x.excludeOwnDir(opts.Lister, dir)
	lock, err := lockDir(ctx, dir, set.LockTimeout)
	if err != nil && isStorageFailure(err) {
		return x.openInMemory(ctx, dir, err)
	}
	if err != nil {
		if !errors.Is(err, ErrLocked) || !set.PrivateWhenLocked {
			return nil, fmt.Errorf("open index of %s: %w", abs, err)
		}
		set.Warnf("%v: another ctxls keeps this root's index; indexing into a private temporary copy instead", err)
		if dir, err = os.MkdirTemp("", "ctxls-private-"); err != nil { // 0700
			return nil, fmt.Errorf("open index: %w", err)
		}
		x.private = true
		if err := writeTag(dir); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("open index: %w", err)
		}
		if lock, err = lockDir(ctx, dir, set.LockTimeout); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("open index: %w", err)
		}
	}
	x.dir, x.lock = dir, lock

	reason := "forced"
	if !set.Rebuild && !x.private {
		reason = x.openExisting(ctx)
		if reason == "" {
			start := time.Now()
			x.mu.Lock()
			st, err := x.refreshLocked(ctx)
			x.mu.Unlock()
			if err != nil {
				x.Close()
				return nil, err
			}
			st.DurationMs = msSince(start)
			x.mu.Lock()
			x.stats = st
			x.mu.Unlock()
			close(x.doneBuild)
			return x, nil
		}
		set.Logf("index: full build of %s: %s", abs, reason)
	}
	if x.private {
		reason = "private (index directory locked)"
	}
	if err := x.startBuild(ctx, reason); err != nil {
		// A build that could not start on disk starts again in memory.
		// One that ran has had its own way out (rebuildInMemory) and has
		// closed doneBuild: it is not run again.
		if isStorageFailure(err) && !x.private && !x.buildDone() {
			x.lock.release()
			return x.openInMemory(ctx, dir, err)
		}
		x.Close()
		return nil, err
	}
	return x, nil
}

// newIndex checks root and opts and makes the Index Open fills: nothing
// on disk is touched yet.
func newIndex(root string, opts Options) (*Index, error) {
	set, err := opts.settings()
	if err != nil {
		return nil, fmt.Errorf("open index of %s: %w", root, err)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("open index of %s: %w", root, err)
	}
	abs = filepath.Clean(abs)
	if fi, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("open index: %s is not a directory", abs)
	}
	// Whatever the Lister: a folder inside VCS metadata or a secret
	// directory is never indexed (walk.CheckRoot), for every face.
	if err := walk.CheckRoot(root); err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	if err := checkRootReadable(abs); err != nil {
		return nil, err
	}
	return &Index{
		set:       set,
		env:       &env{root: abs, encodings: set.encodings, pool: &scorerPool{}, texts: newTextCache(textCacheLimit(opts.TextCacheBytes)), files: opts.Files},
		overlays:  make(map[string][]byte),
		ovKick:    make(chan struct{}, 1),
		doneBuild: make(chan struct{}),
		names:     newNameTable(),
		warm:      opts.Warm,
	}, nil
}

// buildDone reports whether the initial build has run (doneBuild is
// closed).
func (x *Index) buildDone() bool {
	select {
	case <-x.doneBuild:
		return true
	default:
		return false
	}
}

// RootReadError says that the workspace root cannot be read (listed): the
// error of Open and Build for an unreadable root, never taken for a cache
// directory that cannot be written.
type RootReadError struct {
	Root string
	Err  error
}

func (e *RootReadError) Error() string {
	return fmt.Sprintf("cannot read the root %s: %v", e.Root, e.Err)
}

// Unwrap returns Err.
func (e *RootReadError) Unwrap() error { return e.Err }

// checkRootReadable fails with a *RootReadError when the directory root
// cannot be listed or entered by this process (a directory of another
// user's, mode 000): said at once, before a cache directory is touched,
// rather than by the walk that would fail on it.
func checkRootReadable(root string) error {
	f, err := os.Open(root)
	if err == nil {
		_, err = f.Readdirnames(1)
		f.Close()
		if errors.Is(err, io.EOF) {
			err = nil
		}
	}
	if err == nil {
		err = osfile.CheckEnter(root)
	}
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &RootReadError{Root: root, Err: err}
}

// openExisting opens the live generation; it returns why it cannot be
// served ("" when it was opened and published).
func (x *Index) openExisting(ctx context.Context) (reason string) {
	defer func() {
		if reason != "" {
			x.dropPrelist()
			// The tables' names may be interned already; the build that
			// follows starts from an empty name table.
			x.names = newNameTable()
		}
	}()
	removeStale := func() {}
	gen, err := readCurrent(x.dir)
	if err != nil {
		return "damaged: " + err.Error()
	}
	defer func() { removeStale() }()
	reason, m := checkGeneration(gen, x.wantMarker())
	if reason != "" {
		return reason
	}
	// The checksums of the generation's files are checked on another core
	// (or found recorded as passed) while the tables decode; nothing is
	// served before they pass.
	checked := verifyGeneration(gen)
	tf, err := openTables(filepath.Join(gen, tablesName))
	if err != nil {
		return "damaged: " + err.Error()
	}
	tf.sumElsewhere = true
	// Start the refresh's walk now, on the stat section, while the rest
	// of the tables and the lexical store are opened: on a large tree the walk's
	// stat calls take as long as the decoding.
	if wl, ok := x.set.Lister.(*WalkLister); ok {
		ch := make(chan listResult, 1)
		wctx, cancel := context.WithCancel(ctx)
		x.prelist, x.prelistCancel = ch, cancel
		go func() {
			v := readVerdicts(gen)
			e, sk, err := wl.listUnchanged(wctx, x.env.root, tf.unchanged, v)
			ch <- listResult{e, sk, v, err}
		}()
	}
	x.names.mu.Lock()
	encs, files, sym, err := tf.decode(x.names)
	var delta map[string]*fileRec
	if err == nil && m.Delta != nil {
		x.names.useHint(sym)
		delta, err = readDelta(gen, m.Delta, tf.sum(), encs, x.names)
	}
	x.names.mu.Unlock()
	if err != nil {
		return "damaged: " + err.Error()
	}
	// The files and chunks of the state: the tables file's, with the
	// delta's over them.
	nfiles, nchunks := len(files), 0
	for _, f := range files {
		nchunks += f.numChunks()
	}
	for p, f := range delta {
		if old := files[p]; old != nil {
			nfiles--
			nchunks -= old.numChunks()
		}
		if f != nil {
			nfiles++
			nchunks += f.numChunks()
		}
	}
	if !slices.Equal(encs, x.set.encodings) || nfiles != m.Files {
		return "damaged: tables do not match the completeness marker"
	}
	if err := <-checked; err != nil {
		return "damaged: " + err.Error()
	}
	post, err := postings.Open(filepath.Join(gen, postingsName))
	if err != nil {
		return "damaged: " + err.Error()
	}
	base := newTablesOrdered(encs, x.names.view(), files, tf.recs)
	if sym != nil {
		base.symOnce.Do(func() { base.sym = sym })
	}
	x.names.compact()
	if n := post.DocCount(); n != uint64(nchunks) || nchunks != m.Chunks {
		post.Close()
		return fmt.Sprintf("damaged: %d documents for %d chunks", n, nchunks)
	}
	// Build the directory digests, the symbol maps and the path words
	// while the refresh walks the tree: the refresh's state root and the
	// first Defs/Refs/PathsWithWords would otherwise pay for them after
	// the walk (≈ 0.2 s on Go's src). The tables are immutable and all
	// three are once-only, so this is safe.
	// The directory digests are built whatever follows (every refresh
	// reports the state root); the symbol maps and path words only when
	// a request follows.
	go func() {
		base.dirState()
		if x.warm {
			base.symbols()
			base.pathIndex()
		}
	}()
	x.mu.Lock()
	defer x.mu.Unlock()
	x.gen, x.post = gen, post
	x.diskBase, x.diskSum, x.diskDelta = base, tf.sum(), m.Delta != nil
	if err := x.publishLocked(base, delta, true); err != nil {
		x.post, x.gen, x.diskBase = nil, "", nil
		post.Close()
		return "damaged: " + err.Error()
	}
	removeStale = func() { removeOtherGenerations(x.dir, gen) }
	return ""
}

// readDelta reads the delta file of gen that d describes, over the
// tables file of checksum base: the files it changed (their rows) and
// removed (nil). Its names are interned in nt (locked by the caller).
func readDelta(gen string, d *tablesDelta, base uint32, encs []string, nt *nameTable) (map[string]*fileRec, error) {
	if d.Base != base {
		return nil, errors.New("the tables delta is of other tables")
	}
	df, err := openTables(filepath.Join(gen, deltaName))
	if err != nil {
		return nil, err
	}
	df.sumElsewhere = true // verifyGeneration's, as the tables file's
	dencs, files, _, err := df.decode(nt)
	if err != nil {
		return nil, err
	}
	if df.sum() != d.Sum || !slices.Equal(dencs, encs) {
		return nil, errors.New("the tables delta does not match the completeness marker")
	}
	if files == nil {
		files = map[string]*fileRec{}
	}
	for _, p := range d.Removed {
		if _, ok := files[p]; ok {
			return nil, fmt.Errorf("the tables delta has %s both changed and removed", p)
		}
		files[p] = nil
	}
	return files, nil
}

func (x *Index) wantMarker() marker {
	return marker{
		Schema:    schemaVersion,
		Root:      x.env.root,
		Encodings: x.set.encodings,
		ConfigKey: x.set.ConfigKey,
	}
}

// startBuild creates a new generation (or an in-memory index) and runs the
// full build, in the background if so configured.
func (x *Index) startBuild(ctx context.Context, reason string) error {
	gen, ppath := "", ""
	if !x.set.InMemory {
		var err error
		if gen, err = newGeneration(x.dir); err != nil {
			return err
		}
		ppath = filepath.Join(gen, postingsName)
	}
	post, err := postings.Create(ppath)
	if err != nil {
		if gen != "" {
			os.RemoveAll(gen)
		}
		return fmt.Errorf("create index: %w", err)
	}
	x.mu.Lock()
	x.post = post
	x.building = true
	err = x.publishLocked(newTables(x.set.encodings, nil, nil), nil, false)
	x.mu.Unlock()
	if err != nil {
		return err
	}
	run := func(ctx context.Context) error {
		err := x.fullBuild(ctx, gen, reason)
		if err != nil && gen != "" && isStorageFailure(err) && ctx.Err() == nil {
			err = x.rebuildInMemory(ctx, gen, reason, err)
		}
		x.mu.Lock()
		x.building = false
		if err == nil {
			err = x.applyPendingLocked(ctx)
		}
		// Buffers changed after the build's writer stopped taking them.
		paths, waiters := slices.Sorted(maps.Keys(x.ovPaths)), x.ovWait
		x.ovPaths, x.ovWait = nil, nil
		ovErr := err
		for _, p := range paths {
			if ovErr != nil {
				break
			}
			ovErr = x.reapplyBufferLocked(ctx, p)
		}
		for _, w := range waiters {
			w <- ovErr
		}
		x.mu.Unlock()
		x.buildErr = err
		close(x.doneBuild)
		return err
	}
	if x.set.Background {
		bctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		x.cancelBuild = cancel
		go run(bctx)
		return nil
	}
	return run(ctx)
}

// fullBuild indexes every listed file into x.post (a new, empty store in
// generation gen) and, on disk, makes gen the live generation.
func (x *Index) fullBuild(ctx context.Context, gen, reason string) error {
	start := time.Now()
	entries, skipped, err := x.set.Lister.List(ctx, x.env.root)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("build index: %w", err)
		}
		return &RootReadError{Root: x.env.root, Err: err}
	}
	st := Stats{Mode: "build", Reason: reason, Skipped: map[string]int{}, Dir: x.dir}
	for _, s := range skipped {
		st.Skipped[s.Reason]++
	}
	if gen != "" {
		if err := writeVerdicts(gen, verdictsOf(skipped)); err != nil {
			x.set.Logf("index: %v (the next refresh reads those files again)", err)
		}
	}
	listed := time.Now()
	jobs := x.jobsFor(entries)
	st.Read = len(jobs)
	// Open files first: a partial snapshot then has them within the
	// first second of a background build (see publishNow below).
	slices.SortStableFunc(jobs, func(a, b fileJob) int {
		switch {
		case a.overlay == b.overlay:
			return 0
		case a.overlay:
			return -1
		}
		return 1
	})
	var total int64
	for _, j := range jobs {
		total += j.entry.Size
	}

	x.same.Store(&sameContent{rows: map[string]*sameRow{}})
	defer x.same.Store(nil)
	w := x.newBatchWriter(x.post)
	files := make(map[string]*fileRec, len(jobs))
	lastPublish := time.Now()
	publishNow := false // an open file was just indexed
	publish := func() error {
		publishNow = false
		lastPublish = time.Now()
		x.mu.Lock()
		defer x.mu.Unlock()
		return x.publishLocked(newTables(x.set.encodings, x.names.view(), maps.Clone(w.out)), nil, false)
	}
	if x.set.Background {
		w.flushed = func() error {
			if !publishNow && time.Since(lastPublish) < time.Second {
				return nil
			}
			return publish()
		}
	}
	prog := Progress{FilesTotal: len(jobs), BytesTotal: total}
	unavailable := map[string]bool{} // left out for now (ErrUnavailable)
	// Editor buffers changed during the build: applied by this writer
	// between two files, published at once; the build's own results for
	// those paths (read before the change) are then dropped.
	buffered := map[string]bool{}
	applyBuffers := func() error {
		paths, waiters := x.takeBuildOverlays()
		var err error
		for _, p := range paths {
			if err = x.buildBufferChange(w, p); err != nil {
				break
			}
			buffered[p] = true
		}
		if err == nil {
			publishNow = true
			err = w.flush()
			if err == nil && publishNow { // nothing to flush: publish anyway
				err = publish()
			}
		}
		for _, c := range waiters {
			c <- err
		}
		return err
	}
	err = x.runPipelineKick(ctx, jobs, pipelineKick{x.ovKick, applyBuffers}, func(r *fileResult) (err error) {
		if r.first != nil {
			// Tell the files of the same content waiting for this one
			// whether it was indexed.
			defer func() {
				if err != nil || r.skip != "" || buffered[r.job.entry.Path] {
					r.first.settle(nil)
				} else {
					r.first.settle(r.rec)
				}
			}()
		}
		if buffered[r.job.entry.Path] {
			prog.FilesDone++
			return nil
		}
		prog.FilesDone++
		prog.BytesDone += r.job.entry.Size
		if r.skip != "" {
			st.Skipped[r.skip]++
			x.set.Logf("index: skip %s: %s: %v", r.job.entry.Path, r.skip, r.err)
			if r.skip == skipUnavailable {
				unavailable[r.job.entry.Path] = true
			}
		} else {
			prog.Chunks += r.rec.info.Chunks
			if err := w.add(r, nil); err != nil {
				return err
			}
			if r.job.overlay && x.set.Background {
				// An editor has this file open: make it searchable now
				// rather than with the next thousand documents.
				publishNow = true
				if err := w.flush(); err != nil {
					return err
				}
			}
		}
		if x.set.Progress != nil {
			x.set.Progress(prog)
		}
		return nil
	})
	if err == nil {
		err = w.flush()
	}
	if err != nil {
		x.abandonBuild(gen)
		return fmt.Errorf("build index: %w", err)
	}
	maps.Copy(files, w.out)
	// The parsers' trees are freed; their memory goes back to the
	// system now rather than stay with the C heap for the process's life.
	chunk.ReleaseMemory()
	base := newTables(x.set.encodings, x.names.view(), files)
	x.names.compact()
	indexed := time.Now()
	// The tables are written while the lexical store writes its segment:
	// neither reads the other, and each takes a core for a while.
	tablesDone := make(chan error, 1)
	var tablesSum uint32
	if gen != "" {
		go func() {
			var err error
			tablesSum, err = x.writeTablesOf(gen, base, nil, base.paths, base.names)
			tablesDone <- err
		}()
	} else {
		tablesDone <- nil
	}
	if err := x.post.Compact(); err != nil {
		<-tablesDone
		x.abandonBuild(gen)
		return fmt.Errorf("build index: %w", err)
	}
	x.post.ForgetIDs()
	merged := time.Now()
	defer func() {
		x.set.Logf("index: built %s: %d files, %d chunks in %v (list %v, chunk and index %v, merge %v, save %v)",
			x.env.root, len(base.paths), len(base.all), time.Since(start).Round(time.Millisecond),
			listed.Sub(start).Round(time.Millisecond), indexed.Sub(listed).Round(time.Millisecond),
			merged.Sub(indexed).Round(time.Millisecond), time.Since(merged).Round(time.Millisecond))
	}()

	x.mu.Lock()
	defer x.mu.Unlock()
	x.unavailable = unavailable
	if err := x.publishLocked(base, nil, true); err != nil {
		return err
	}
	if gen != "" {
		snap := x.cur.Load()
		if err := x.post.Persist(); err != nil {
			return fmt.Errorf("build index: %w", err)
		}
		if err := <-tablesDone; err != nil {
			return fmt.Errorf("build index: %w", err)
		}
		x.diskBase, x.diskSum, x.diskDelta = base, tablesSum, false
		if err := x.writeMarkerLocked(gen, snap, nil); err != nil {
			return fmt.Errorf("build index: %w", err)
		}
		if err := switchCurrent(x.dir, gen); err != nil {
			return err
		}
		x.gen = gen
		removeOtherGenerations(x.dir, gen)
	}
	st.Files, st.Chunks = len(base.paths), len(base.all)
	for _, f := range base.files {
		st.Bytes += f.info.Size
	}
	st.Changed = st.Files
	st.StateRoot = x.cur.Load().StateRoot()
	st.DurationMs = msSince(start)
	x.stats = st
	return nil
}

// abandonBuild closes the half-built index and deletes its generation.
func (x *Index) abandonBuild(gen string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.emptyLocked()
	if x.post != nil {
		_ = x.post.Close()
		x.post = nil
	}
	if gen != "" {
		os.RemoveAll(gen)
	}
}

// emptyLocked publishes an empty snapshot without a lexical reader, for
// an Index that has no usable store (closed, or its build failed).
func (x *Index) emptyLocked() {
	x.seq++
	s := newSnapshot(x.env, newTables(x.set.encodings, nil, nil), nil, nil, nil, false, x.seq)
	if old := x.cur.Swap(s); old != nil {
		old.release()
	}
}

// jobsFor turns listed entries into jobs, with overlay content where an
// overlay is set.
func (x *Index) jobsFor(entries []Entry) []fileJob {
	x.mu.Lock()
	defer x.mu.Unlock()
	jobs := make([]fileJob, 0, len(entries))
	for _, e := range entries {
		j := fileJob{entry: e}
		if c, ok := x.overlays[e.Path]; ok {
			j.content, j.overlay = c, true
		}
		jobs = append(jobs, j)
	}
	return jobs
}

// writeStateLocked writes snap's tables and then the completeness marker
// into gen: the last step of making gen servable. When snap's base is the
// one the tables file holds, only the delta is written (unless full): the
// changed files' rows into the delta file and the removed files into the
// marker, so that a checkpoint after an edit costs the files it changed,
// not the tree (the delta is at most compactAfter files: past that,
// publishLocked folds it into a new base, written whole).
func (x *Index) writeStateLocked(gen string, snap *Snapshot, full bool) error {
	if !full && len(snap.delta) > 0 && snap.base == x.diskBase {
		d, err := x.writeDeltaOf(gen, snap.delta, snap.names)
		if err != nil {
			return err
		}
		if err := x.writeMarkerLocked(gen, snap, d); err != nil {
			return err
		}
		x.diskDelta = true
		return nil
	}
	sum, err := x.writeTablesOf(gen, snap.base, snap.delta, snap.paths, snap.names)
	if err != nil {
		return err
	}
	x.diskBase, x.diskSum = nil, sum
	if len(snap.delta) == 0 {
		x.diskBase = snap.base
	}
	if err := x.writeMarkerLocked(gen, snap, nil); err != nil {
		return err
	}
	x.diskDelta = false
	if err := os.Remove(filepath.Join(gen, deltaName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		x.set.Logf("index: %v", err) // the marker no longer names it: left over, harmless
	}
	return nil
}

// writeDeltaOf writes the delta file of gen: the rows of the files of
// delta that are not removed, in path order, over the tables file of
// checksum x.diskSum; it returns the marker's description of it.
func (x *Index) writeDeltaOf(gen string, delta map[string]*fileRec, names []string) (*tablesDelta, error) {
	d := &tablesDelta{Base: x.diskSum}
	paths := slices.Sorted(maps.Keys(delta))
	files := make([]*fileRec, 0, len(paths))
	for _, p := range paths {
		if f := delta[p]; f != nil {
			files = append(files, onDisk(f))
		} else {
			d.Removed = append(d.Removed, p)
		}
	}
	// The names the rows use, in the order first met: the delta file
	// does not carry the whole name table.
	remap := map[uint32]uint32{}
	var used []string
	for _, f := range files {
		recs, _ := f.peek()
		for i := range recs {
			for _, id := range recs[i].names {
				if _, ok := remap[id]; !ok {
					remap[id] = uint32(len(used))
					used = append(used, names[id])
				}
			}
		}
	}
	sum, err := writeTablesSum(filepath.Join(gen, deltaName), x.set.encodings, used, remap, files, nil)
	if err != nil {
		return nil, err
	}
	d.Sum = sum
	return d, nil
}

// onDisk is a file's row as a tables file keeps it: an editor buffer's
// row makes the next process re-read the disk file (its size and hash
// will not match), and the buffer is not saved with it.
func onDisk(f *fileRec) *fileRec {
	if !f.info.Overlay {
		return f
	}
	g := *f
	g.info.Size, g.info.ModTime, g.info.Hash = -1, time.Time{}, ""
	g.info.Overlay = false
	return &g
}

// writeTablesOf writes the tables file of gen: the rows of paths, from
// delta (files changed since base) or else base, and the symbol maps,
// base's when there is no delta, else built from the rows. It returns
// the file's checksum.
func (x *Index) writeTablesOf(gen string, base *tables, delta map[string]*fileRec, paths, names []string) (uint32, error) {
	files := make([]*fileRec, 0, len(paths))
	nchunks := 0
	for _, p := range paths {
		f, changed := delta[p]
		if !changed {
			f = base.files[p]
		}
		f = onDisk(f)
		files = append(files, f)
		nchunks += f.numChunks()
	}
	// The symbol maps go with the tables, so that the next process need
	// not build them (≈ 80 ms on Go's src).
	var sym *symIndex
	if len(delta) == 0 {
		sym = base.symbols()
	} else {
		t := &tables{names: names, all: make([]chunkRef, 0, nchunks)}
		for _, f := range files {
			for i := range f.numChunks() {
				t.all = append(t.all, chunkRef{f, int32(i)})
			}
		}
		sym = buildSymIndex(t)
	}
	return writeTablesSum(filepath.Join(gen, tablesName), x.set.encodings, names, nil, files, sym)
}

// writeMarkerLocked writes gen's completeness marker for snap, whose
// tables gen has (with delta, the delta file's over the tables file's):
// the last step of making gen servable.
func (x *Index) writeMarkerLocked(gen string, snap *Snapshot, delta *tablesDelta) error {
	m := x.wantMarker()
	m.StateRoot, m.Files, m.Chunks, m.Written = snap.StateRoot(), len(snap.paths), snap.nchunks, time.Now().UTC()
	m.Delta = delta
	if err := writeMarker(gen, m); err != nil {
		return err
	}
	x.dirty, x.tablesDirty = false, false
	return nil
}

// Unavailable counts the files the current snapshot leaves out because
// their source could not be read (ErrUnavailable; Snapshot.Unavailable).
func (x *Index) Unavailable() int {
	if s := x.cur.Load(); s != nil {
		return s.unavailable
	}
	return 0
}

// publishLocked makes (base, delta) with the lexical store's current
// state the current snapshot, folding delta into base when it has grown
// large.
func (x *Index) publishLocked(base *tables, delta map[string]*fileRec, complete bool) error {
	if len(delta) > compactAfter {
		base, delta = compact(base, delta, x.names.view()), nil
	}
	reader, err := x.post.Reader()
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	x.seq++
	s := newSnapshot(x.env, base, delta, x.names.view(), reader, complete, x.seq)
	s.unavailable = len(x.unavailable)
	if old := x.cur.Swap(s); old != nil {
		old.release()
	}
	return nil
}

// compact folds delta into new base tables.
func compact(base *tables, delta map[string]*fileRec, names []string) *tables {
	files := maps.Clone(base.files)
	if files == nil {
		files = make(map[string]*fileRec, len(delta))
	}
	for p, f := range delta {
		if f == nil {
			delete(files, p)
			continue
		}
		files[p] = f
	}
	return newTables(base.encodings, names, files)
}

// Snapshot returns the current snapshot and the function that releases it.
// The snapshot stays valid, and unchanged, until released; call release
// exactly once (further calls do nothing).
func (x *Index) Snapshot() (*Snapshot, func()) {
	for {
		s := x.cur.Load()
		if s.acquire() {
			return s, s.releaser()
		}
	}
}

// Wait blocks until the initial build has finished and returns its error.
func (x *Index) Wait(ctx context.Context) error {
	select {
	case <-x.doneBuild:
		return x.buildErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Stats returns the statistics of the last build or refresh, with the
// current size of the index on disk.
func (x *Index) Stats() Stats {
	x.mu.Lock()
	st := x.stats
	gen := x.gen
	x.mu.Unlock()
	st.Skipped = maps.Clone(st.Skipped)
	if gen != "" {
		st.IndexBytes = dirSize(gen)
	}
	return st
}

// Root returns the absolute workspace root.
func (x *Index) Root() string { return x.env.root }

// Dir returns the cache directory ("" for an in-memory index).
func (x *Index) Dir() string { return x.dir }

// relPath turns p (absolute, or relative to the root, in either slash
// style) into the slash-separated path relative to the root, refusing
// paths outside it.
func (x *Index) relPath(p string) (string, error) {
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(x.env.root, p)
		if err != nil {
			return "", fmt.Errorf("path %s: %w", p, err)
		}
		p = rel
	}
	p = path.Clean(filepath.ToSlash(p))
	if p == "." || p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("path %s is outside the workspace root %s", p, x.env.root)
	}
	return p, nil
}

// Close checkpoints the index to disk, closes it and releases the lock.
// Snapshots should be released first: a snapshot used after Close may
// fail.
func (x *Index) Close() error {
	if x.cancelBuild != nil {
		x.cancelBuild()
		<-x.doneBuild
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return nil
	}
	x.closed = true
	if x.ckTimer != nil {
		x.ckTimer.Stop()
	}
	var errs []error
	if x.post != nil && !x.private {
		errs = append(errs, x.checkpointLocked(context.Background()))
	}
	if x.chunker != nil {
		x.chunker.Close()
		x.chunker = nil
	}
	x.emptyLocked()
	if x.post != nil {
		errs = append(errs, x.post.Close())
		x.post = nil
	}
	if x.private && x.dir != "" {
		errs = append(errs, os.RemoveAll(x.dir))
	}
	errs = append(errs, x.lock.release())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close index: %w", err)
	}
	return nil
}

func msSince(t time.Time) float64 {
	return float64(time.Since(t).Microseconds()) / 1000
}

// textCacheLimit is Options.TextCacheBytes with its default applied.
func textCacheLimit(n int) int {
	switch {
	case n == 0:
		return defaultTextCacheBytes
	case n < 0:
		return 0
	}
	return n
}

// ChunkingKey identifies what made the index's chunks: the tables' schema
// and the chunker's configuration. Two indexes with the same key have the
// same chunks for the same content at the same path (a store's publisher
// reuses the chunks it published before for files whose content did not
// change).
func (x *Index) ChunkingKey() string {
	return fmt.Sprintf("schema %d|%s", schemaVersion, x.set.ConfigKey)
}
