package workspace

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ctxls/ctxls/internal/history"
	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/semantic"
)

// ErrClosed is returned (wrapped) to a request for a root that is closing.
var ErrClosed = errors.New("the workspace is closing")

// Pool shares one Root per directory (and cache directory) among the
// sessions and faces of a process: the second client of a directory uses
// the first one's index instead of finding its on-disk directory locked
// and building a private copy. A Root is closed when its last user
// releases it.
type Pool struct {
	mu    sync.Mutex
	roots map[string]*Root
	logf  func(format string, args ...any)
}

// NewPool returns an empty pool; logf receives the roots' log lines (nil
// discards them).
func NewPool(logf func(format string, args ...any)) *Pool {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &Pool{roots: map[string]*Root{}, logf: logf}
}

// RootOptions say how a root is served, beyond its index options.
type RootOptions struct {
	// Watch watches the directory for changes on disk (fsnotify); where
	// it cannot, every request refreshes the index first.
	Watch bool
	// RefreshEach, without Watch, refreshes the index before every
	// request (a stat walk). With neither, the face tells the root what
	// changed (Changed, as an editor's didChangeWatchedFiles does).
	RefreshEach bool
	// HistoryFromCache takes the git history from the cache in the
	// index's directory as it is, without git: the root is a store's
	// checkout, which is no git checkout but came with its history.
	HistoryFromCache bool
	// NoHistory, when set, is why the root has no git history (a union
	// of repositories): a request that would read it is told so in its
	// answer's note (View.Attach).
	NoHistory string
	// Vectors, when set, computes the workspace embedder's vectors of a
	// snapshot (UnionVectors, for a union of a store's repositories) in
	// place of the root's tracker: a request waits for them.
	Vectors func(ctx context.Context, snap *index.Snapshot) (*semantic.Store, error)
}

// Root is one served directory: its index, the disk changes to apply to
// it, its trackers and warnings.
type Root struct {
	path string // clean absolute directory
	key  string
	pool *Pool
	refs int // guarded by pool.mu
	logf func(format string, args ...any)

	ctx    context.Context // cancelled by the last Release
	cancel context.CancelFunc

	// ready is closed once idx (or openErr) is set, built once the first
	// build has ended (buildErr set). The fields are written before their
	// channel closes and only read after.
	ready, built chan struct{}
	idx          *index.Index
	openErr      error
	buildErr     error
	progress     atomic.Pointer[index.Progress]

	hist history.Lazy
	sem  semantic.Lazy
	// histCache, for a root with RootOptions.HistoryFromCache, holds the
	// history read from the cache (cachedHist: once per generation).
	histCache  bool
	cachedHist atomic.Pointer[history.Log]
	// vectors is RootOptions.Vectors; vecs the last vectors it gave,
	// for the snapshot they were computed for.
	noHistory string
	vectors   func(ctx context.Context, snap *index.Snapshot) (*semantic.Store, error)
	vecs      atomic.Pointer[snapVectors]
	vecErr    sync.Mutex // one "cannot be computed" line per error
	vecTold   string

	changes changes

	warnMu    sync.Mutex
	warnings  []string
	listeners map[any]func(string)
}

// Acquire returns the Root of dir under opts (opening its index in the
// background on first use) and counts one more user; the caller calls
// Release once.
func (p *Pool) Acquire(dir string, opts index.Options, ro RootOptions) *Root {
	key := fmt.Sprintf("%s\x00%s\x00%v", dir, opts.CacheDir, opts.InMemory)
	p.mu.Lock()
	defer p.mu.Unlock()
	if r, ok := p.roots[key]; ok {
		r.refs++
		return r
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &Root{
		path: dir, key: key, pool: p, refs: 1, logf: p.logf, ctx: ctx, cancel: cancel,
		ready: make(chan struct{}), built: make(chan struct{}),
		listeners: map[any]func(string){}, histCache: ro.HistoryFromCache, noHistory: ro.NoHistory, vectors: ro.Vectors,
	}
	r.changes.init(r)
	p.roots[key] = r
	go r.open(opts, ro)
	return r
}

// open watches the directory when asked (before the index lists it, so
// that nothing changed meanwhile is missed), opens the index, applies disk
// changes as they come, and waits for the first build.
func (r *Root) open(opts index.Options, ro RootOptions) {
	switch {
	case ro.Watch:
		r.changes.watch()
	case ro.RefreshEach:
		r.changes.unwatched("watching is off", true)
	default:
		r.changes.unwatched("changes are told by the client", false)
	}
	opts.Background, opts.Warm = true, true
	opts.Progress = chain1(opts.Progress, func(pr index.Progress) { r.progress.Store(&pr) })
	opts.Logf = chainf(opts.Logf, func(format string, args ...any) {
		r.logf("%s: "+format, append([]any{r.path}, args...)...)
	})
	// A warning (the cache directory cannot be written) goes to the log
	// and to every listener.
	opts.Warnf = chainf(opts.Warnf, func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		r.logf("%s: warning: %s", r.path, msg)
		r.warn(msg)
	})
	r.idx, r.openErr = index.Open(r.ctx, r.path, opts)
	if r.openErr != nil {
		r.openErr = fmt.Errorf("open the index of %s: %w", r.path, r.openErr)
	}
	r.changes.refreshed()
	close(r.ready)
	if r.openErr != nil {
		r.buildErr = r.openErr
		close(r.built)
		return
	}
	go r.changes.loop()
	r.buildErr = r.idx.Wait(r.ctx)
	close(r.built)
}

// unavailable counts the files the root's index leaves out because their
// source could not be read (index.ErrUnavailable); 0 before it is open.
func (r *Root) unavailable() int {
	select {
	case <-r.ready:
	default:
		return 0
	}
	if r.idx == nil {
		return 0
	}
	return r.idx.Unavailable()
}

// Release lets go of r; the last user closes it: the watcher and the
// trackers stopped, the index closed (and checkpointed). Sessions of r
// must be closed first.
func (r *Root) Release() error {
	p := r.pool
	p.mu.Lock()
	r.refs--
	last := r.refs == 0
	if last {
		delete(p.roots, r.key)
	}
	p.mu.Unlock()
	if !last {
		return nil
	}
	r.cancel()
	<-r.ready
	r.changes.close()
	r.hist.Close()
	r.sem.Close()
	if r.idx == nil {
		return nil
	}
	if err := r.idx.Close(); err != nil {
		return fmt.Errorf("close the index of %s: %w", r.path, err)
	}
	return nil
}

// Path is the root's directory.
func (r *Root) Path() string { return r.path }

// Ready is closed once the index is open or failed to open (OpenErr).
func (r *Root) Ready() <-chan struct{} { return r.ready }

// Built is closed once the first build has ended (BuildErr).
func (r *Root) Built() <-chan struct{} { return r.built }

// Index is the root's index; nil before Ready or when it failed to open.
func (r *Root) Index() *index.Index { return r.idx }

// liveIndex is the root's index while it has users (nil before Ready,
// when it failed to open, or once the last user released it): what a
// union reads its repositories' chunks from.
func (r *Root) liveIndex() *index.Index {
	if r.ctx.Err() != nil {
		return nil
	}
	select {
	case <-r.ready:
		return r.idx
	default:
		return nil
	}
}

// OpenErr is why the index could not be opened; only after Ready.
func (r *Root) OpenErr() error { return r.openErr }

// BuildErr is how the first build ended; only after Built.
func (r *Root) BuildErr() error { return r.buildErr }

// Progress is how far the index's build or refresh has come (nil before
// it starts).
func (r *Root) Progress() *index.Progress { return r.progress.Load() }

// History returns the root's git history (nil: none), starting its
// tracker on first use, with its cache in the index's directory. The
// index must be open.
func (r *Root) History(ctx context.Context, logf func(format string, args ...any)) *history.Log {
	if r.noHistory != "" {
		return nil
	}
	if r.histCache {
		if l := r.cachedHist.Load(); l != nil {
			return l
		}
		if r.idx.Dir() == "" {
			return nil
		}
		l := history.LoadCache(filepath.Join(r.idx.Dir(), history.CacheFile))
		if l != nil {
			r.cachedHist.Store(l)
		}
		return l
	}
	return r.hist.Get(ctx, r.path, r.idx.Dir(), logf)
}

// Semantic returns the root's chunk vectors for snap (nil: none yet),
// starting their tracker on first use: the workspace embedder's (ep nil)
// or the service's. logf hears when they are ready or cannot be computed.
// The index must be open.
func (r *Root) Semantic(ctx context.Context, snap *index.Snapshot, ep *semantic.Endpoint, logf func(format string, args ...any)) *semantic.Store {
	if r.vectors != nil && ep == nil {
		return r.snapVectors(ctx, snap, logf)
	}
	return r.sem.Get(ctx, r.idx, snap.Seq(), ep, logf)
}

// snapVectors are the vectors RootOptions.Vectors computed for a
// snapshot's content.
type snapVectors struct {
	state string
	s     *semantic.Store
}

// snapVectors returns RootOptions.Vectors's vectors for snap, computed
// once per content; an error is told to logf once and the request goes
// on without them.
func (r *Root) snapVectors(ctx context.Context, snap *index.Snapshot, logf func(format string, args ...any)) *semantic.Store {
	if v := r.vecs.Load(); v != nil && v.state == snap.StateRoot() {
		return v.s
	}
	s, err := r.vectors(ctx, snap)
	if err != nil {
		r.vecErr.Lock()
		told := r.vecTold == err.Error()
		r.vecTold = err.Error()
		r.vecErr.Unlock()
		if !told && ctx.Err() == nil && logf != nil {
			logf("semantic vectors: %v (going on without them)", err)
		}
		return nil
	}
	r.vecs.Store(&snapVectors{snap.StateRoot(), s})
	return s
}

// TrackersStarted reports how many history and semantic trackers the root
// has started: at most one of each, whatever the number of clients.
func (r *Root) TrackersStarted() (hist, sem int) { return r.hist.Started(), r.sem.Started() }

// warn records a warning of the index and tells every listener.
func (r *Root) warn(msg string) {
	r.warnMu.Lock()
	r.warnings = append(r.warnings, msg)
	tell := make([]func(string), 0, len(r.listeners))
	for _, fn := range r.listeners {
		tell = append(tell, fn)
	}
	r.warnMu.Unlock()
	for _, fn := range tell {
		fn(msg)
	}
}

// Listen makes fn hear the index's warnings: those given already, at once,
// then each new one, until Unlisten(key).
func (r *Root) Listen(key any, fn func(string)) {
	r.warnMu.Lock()
	past := slices.Clone(r.warnings)
	r.listeners[key] = fn
	r.warnMu.Unlock()
	for _, msg := range past {
		fn(msg)
	}
}

// Unlisten stops telling key's function.
func (r *Root) Unlisten(key any) {
	r.warnMu.Lock()
	delete(r.listeners, key)
	r.warnMu.Unlock()
}

// Warnings returns the index's warnings so far, in order.
func (r *Root) Warnings() []string {
	r.warnMu.Lock()
	defer r.warnMu.Unlock()
	return slices.Clone(r.warnings)
}

// chain1 calls a (when set), then b.
func chain1[T any](a, b func(T)) func(T) {
	if a == nil {
		return b
	}
	return func(v T) { a(v); b(v) }
}

// chainf calls a (when set), then b.
func chainf(a, b func(format string, args ...any)) func(format string, args ...any) {
	if a == nil {
		return b
	}
	return func(format string, args ...any) { a(format, args...); b(format, args...) }
}

// Roots returns the roots open now, by directory.
func (p *Pool) Roots() []*Root {
	p.mu.Lock()
	defer p.mu.Unlock()
	rv := make([]*Root, 0, len(p.roots))
	for _, r := range p.roots {
		rv = append(rv, r)
	}
	slices.SortFunc(rv, func(a, b *Root) int { return strings.Compare(a.key, b.key) })
	return rv
}

// Users is how many users hold r (Acquire less Release).
func (r *Root) Users() int {
	r.pool.mu.Lock()
	defer r.pool.mu.Unlock()
	return r.refs
}
