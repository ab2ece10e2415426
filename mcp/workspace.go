package mcp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxls/ctxls/history"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/retrieve"
	"github.com/ctxls/ctxls/semantic"
)

// errClosed: the server is shutting down.
var errClosed = errors.New("the server is shutting down")

// maxHeld is how many index states a workspace keeps after the
// assemble_context calls that read them, for expand_context.
const maxHeld = 4

// workspace is one root: its index (opened in the background), the
// changes seen on disk and not yet applied, and the states held for
// expand_context.
type workspace struct {
	root string
	logf func(format string, args ...any)

	ctx    context.Context // cancelled by close
	cancel context.CancelFunc

	// ready is closed once the index is open (idx set) or failed to open
	// (openErr set); built once its first build has ended (buildErr set).
	ready, built chan struct{}
	idx          *index.Index
	openErr      error
	buildErr     error
	progress     atomic.Pointer[index.Progress]
	started      time.Time

	watch *watcher // nil when the root is not watched

	mu      sync.Mutex // guards the fields below
	closing bool
	users   sync.WaitGroup
	pending map[string]bool // root-relative paths changed on disk, not yet applied
	// recent are the root-relative paths changed on disk in this session,
	// with the order of their last change (the activity); at most
	// maxRecent.
	recent      map[string]uint64
	changeNo    uint64
	refresh     bool          // a refresh is asked for (a new directory, lost events)
	received    uint64        // changes seen
	applied     uint64        // changes applied (≤ received)
	appliedCh   chan struct{} // closed and replaced when applied grows
	kick        chan struct{}
	watchErr    string // why the root is not watched ("" when it is)
	lastRefresh time.Time
	// warnings are what the index told its user (Options.Warnf: the
	// cache directory cannot be written), in order.
	warnings []string
	held     []*heldState // most recently used last
	tick     uint64

	// hist is the git history, its tracker started by the first request
	// that wants it.
	hist history.Lazy
	// sem is the semantic channel's vectors, their tracker started by the
	// first call that wants them.
	sem semantic.Lazy
}

// heldState is an index snapshot kept after the assemble_context that read
// it, so that expand_context answers from the same state.
type heldState struct {
	state   string
	snap    *index.Snapshot
	release func()
	used    uint64
	refs    int
	evicted bool
}

// openWorkspace starts opening root's index in the background and watching
// the root for changes.
func openWorkspace(parent context.Context, root string, opts index.Options, watch bool, logf func(string, ...any)) *workspace {
	ctx, cancel := context.WithCancel(parent)
	w := &workspace{
		root: root, logf: logf, ctx: ctx, cancel: cancel,
		ready: make(chan struct{}), built: make(chan struct{}),
		pending: map[string]bool{}, appliedCh: make(chan struct{}), kick: make(chan struct{}, 1),
		started: time.Now(),
	}
	if !watch {
		w.watchErr = "watching is off"
	}
	go w.open(opts, watch)
	return w
}

// open watches the root (before the index lists it, so that nothing
// changed meanwhile is missed), opens the index, then applies changes as
// they come.
func (w *workspace) open(opts index.Options, watch bool) {
	if watch {
		start := time.Now()
		wt, err := newWatcher(w.root, w.changed, w.lost)
		w.mu.Lock()
		if err != nil {
			w.watchErr = err.Error()
		} else {
			w.watch = wt
		}
		w.mu.Unlock()
		if err != nil {
			w.logf("%s: not watched, each call refreshes the index first: %v", w.root, err)
		} else {
			w.logf("%s: watching %d directories (%v)", w.root, wt.watched(), time.Since(start).Round(time.Millisecond))
		}
	}
	opts.Background, opts.Warm = true, true
	prev := opts.Progress
	opts.Progress = func(p index.Progress) {
		if prev != nil {
			prev(p)
		}
		w.progress.Store(&p)
	}
	opts.Logf = chainf(opts.Logf, func(format string, args ...any) {
		w.logf("%s: "+format, append([]any{w.root}, args...)...)
	})
	// A warning goes to the log, to index_status and, once, to each
	// client session (Server.tellWarnings).
	opts.Warnf = chainf(opts.Warnf, func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		w.logf("%s: warning: %s", w.root, msg)
		w.mu.Lock()
		w.warnings = append(w.warnings, msg)
		w.mu.Unlock()
	})
	w.idx, w.openErr = index.Open(w.ctx, w.root, opts)
	if w.openErr != nil {
		w.openErr = fmt.Errorf("open the index of %s: %w", w.root, w.openErr)
	}
	w.mu.Lock()
	w.lastRefresh = time.Now()
	w.mu.Unlock()
	close(w.ready)
	if w.openErr != nil {
		w.buildErr = w.openErr
		close(w.built)
		return
	}
	go w.applyLoop()
	w.buildErr = w.idx.Wait(w.ctx)
	close(w.built)
}

// changed records a path changed on disk (from the watcher).
func (w *workspace) changed(rel string) {
	w.mu.Lock()
	w.pending[rel] = true
	w.received++
	if w.recent == nil {
		w.recent = map[string]uint64{}
	}
	w.changeNo++
	w.recent[rel] = w.changeNo
	if len(w.recent) > maxRecent {
		oldest, at := "", uint64(math.MaxUint64)
		for p, n := range w.recent {
			if n < at {
				oldest, at = p, n
			}
		}
		delete(w.recent, oldest)
	}
	w.mu.Unlock()
	w.wake()
}

// maxRecent is how many changed files the activity remembers.
const maxRecent = 32

// activity is the session's activity: the files changed on disk since
// the server started (by the assistant's own edits, most often), most
// recent first, as open buffers are in an editor. The watcher says which
// files, not which lines: there are no edited ranges.
func (w *workspace) activity() *retrieve.Activity {
	w.mu.Lock()
	defer w.mu.Unlock()
	paths := slices.SortedFunc(maps.Keys(w.recent), func(a, b string) int { return cmp.Compare(w.recent[b], w.recent[a]) })
	return &retrieve.Activity{Open: paths}
}

// lost records that events may have been lost: the next application
// refreshes the whole index.
func (w *workspace) lost() {
	w.mu.Lock()
	w.refresh = true
	w.received++
	w.mu.Unlock()
	w.wake()
}

func (w *workspace) wake() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// applyLoop applies the recorded changes, in path order, until the
// workspace closes.
func (w *workspace) applyLoop() {
	for {
		select {
		case <-w.ctx.Done():
			return
		case <-w.kick:
		}
		for {
			w.mu.Lock()
			target := w.received
			paths := make([]string, 0, len(w.pending))
			for p := range w.pending {
				paths = append(paths, p)
			}
			refresh := w.refresh
			w.pending, w.refresh = map[string]bool{}, false
			done := w.applied >= target
			w.mu.Unlock()
			if done {
				break
			}
			slices.Sort(paths)
			w.apply(paths, refresh)
			w.mu.Lock()
			w.applied = target
			close(w.appliedCh)
			w.appliedCh = make(chan struct{})
			w.mu.Unlock()
		}
	}
}

// apply brings the index up to date with paths (root-relative) changed on
// disk: a file is updated (the index drops it when its rules no longer
// admit it), a deleted path is dropped with everything below it, and a
// new directory (or lost events) makes the index refresh.
func (w *workspace) apply(paths []string, refresh bool) {
	ctx := w.ctx
	for _, rel := range paths {
		if refresh {
			break
		}
		st, err := os.Stat(filepath.Join(w.root, filepath.FromSlash(rel)))
		switch {
		case err != nil:
			err = w.removeTree(ctx, rel)
		case st.IsDir():
			refresh = true
		default:
			err = w.idx.Update(ctx, rel, nil)
		}
		if err != nil && ctx.Err() == nil {
			w.logf("%s: %s: %v", w.root, rel, err)
		}
	}
	if refresh {
		if _, err := w.idx.Refresh(ctx); err != nil && ctx.Err() == nil {
			w.logf("%s: refresh: %v", w.root, err)
		}
		w.mu.Lock()
		w.lastRefresh = time.Now()
		w.mu.Unlock()
	}
}

// removeTree drops rel, and every indexed path below it, from the index.
func (w *workspace) removeTree(ctx context.Context, rel string) error {
	snap, release := w.idx.Snapshot()
	var gone []string
	if _, ok := snap.Stat(rel); ok {
		gone = append(gone, rel)
	}
	paths := snap.Paths()
	prefix := rel + "/"
	i, _ := slices.BinarySearch(paths, prefix)
	for ; i < len(paths) && strings.HasPrefix(paths[i], prefix); i++ {
		gone = append(gone, paths[i])
	}
	release()
	if len(gone) == 0 {
		return nil
	}
	return w.idx.Remove(ctx, gone...)
}

// view is one call's hold on a workspace snapshot.
type view struct {
	w       *workspace
	snap    *index.Snapshot
	release func()
	held    *heldState
}

// acquire waits for the index to be open, applies the changes seen on
// disk so far (or refreshes an unwatched root), waits at most wait for the
// first build (calling tick now and then while it waits), and returns a
// view of the current snapshot. The caller must call done or keep.
func (w *workspace) acquire(ctx context.Context, wait time.Duration, tick func()) (*view, error) {
	w.mu.Lock()
	if w.closing {
		w.mu.Unlock()
		return nil, errClosed
	}
	w.users.Add(1)
	w.mu.Unlock()
	fail := func(err error) (*view, error) {
		w.users.Done()
		return nil, err
	}
	every := time.NewTicker(250 * time.Millisecond)
	defer every.Stop()
	waitFor := func(ch <-chan struct{}, limit <-chan time.Time) error {
		for {
			select {
			case <-ch:
				return nil
			case <-limit:
				return nil
			case <-every.C:
				if tick != nil {
					tick()
				}
			case <-ctx.Done():
				return ctx.Err()
			case <-w.ctx.Done():
				return errClosed
			}
		}
	}
	if err := waitFor(w.ready, nil); err != nil {
		return fail(err)
	}
	if w.openErr != nil {
		return fail(w.openErr)
	}
	if err := w.sync(ctx); err != nil {
		return fail(err)
	}
	if wait > 0 {
		t := time.NewTimer(wait)
		err := waitFor(w.built, t.C)
		t.Stop()
		if err != nil {
			return fail(err)
		}
	}
	snap, release := w.idx.Snapshot()
	return &view{w: w, snap: snap, release: release}, nil
}

// sync makes the index include every change seen on disk before the call:
// it waits for the watcher's changes recorded so far to be applied, or,
// when the root is not watched, refreshes the index.
func (w *workspace) sync(ctx context.Context) error {
	w.mu.Lock()
	wt := w.watch
	w.mu.Unlock()
	if wt == nil {
		_, err := w.idx.Refresh(ctx)
		w.mu.Lock()
		w.lastRefresh = time.Now()
		w.mu.Unlock()
		if err != nil && ctx.Err() == nil {
			return fmt.Errorf("refresh the index of %s: %w", w.root, err)
		}
		return ctx.Err()
	}
	if err := wt.flush(ctx); err != nil {
		return err
	}
	w.mu.Lock()
	target := w.received
	for w.applied < target {
		ch := w.appliedCh
		w.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-w.ctx.Done():
			return errClosed
		}
		w.mu.Lock()
	}
	w.mu.Unlock()
	return nil
}

// acquireHeld returns a view of the held state named state, or nil.
func (w *workspace) acquireHeld(state string) *view {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closing {
		return nil
	}
	for _, h := range w.held {
		if h.state == state {
			h.refs++
			w.tick++
			h.used = w.tick
			w.users.Add(1)
			return &view{w: w, snap: h.snap, held: h}
		}
	}
	return nil
}

// done releases the view.
func (v *view) done() {
	w := v.w
	if v.held != nil {
		w.mu.Lock()
		v.held.refs--
		if v.held.evicted && v.held.refs == 0 {
			v.held.release()
		}
		w.mu.Unlock()
	} else {
		v.release()
	}
	w.users.Done()
}

// keep releases the view but holds its snapshot for expand_context.
func (v *view) keep() {
	w := v.w
	if v.held != nil {
		v.done()
		return
	}
	state := v.snap.StateRoot()
	w.mu.Lock()
	w.tick++
	i := slices.IndexFunc(w.held, func(h *heldState) bool { return h.state == state })
	switch {
	case w.closing:
		v.release()
	case i >= 0:
		v.release()
		w.held[i].used = w.tick
	default:
		w.held = append(w.held, &heldState{state: state, snap: v.snap, release: v.release, used: w.tick})
	}
	slices.SortFunc(w.held, func(a, b *heldState) int { return cmp.Compare(a.used, b.used) })
	for len(w.held) > maxHeld {
		old := w.held[0]
		w.held = w.held[1:]
		old.evicted = true
		if old.refs == 0 {
			old.release()
		}
	}
	w.mu.Unlock()
	w.users.Done()
}

// status is the workspace's state for index_status.
func (w *workspace) status() RootStatus {
	st := RootStatus{Root: w.root, Skipped: map[string]int{}}
	w.mu.Lock()
	st.Watching = w.watch != nil
	st.WatchNote = w.watchErr
	pending := len(w.pending)
	if w.refresh {
		pending++
	}
	st.PendingChanges = pending
	st.Warnings = slices.Clone(w.warnings)
	last := w.lastRefresh
	w.mu.Unlock()
	if p := w.progress.Load(); p != nil {
		st.Progress = &Progress{FilesDone: p.FilesDone, FilesTotal: p.FilesTotal, Chunks: p.Chunks}
	}
	select {
	case <-w.ready:
	default:
		st.State = "opening"
		return st
	}
	if w.openErr != nil {
		st.State = "failed"
		st.Error = w.openErr.Error()
		return st
	}
	if !last.IsZero() {
		st.LastRefresh = last.UTC().Format(time.RFC3339)
	}
	snap, release := w.idx.Snapshot()
	defer release()
	st.Files = len(snap.Paths())
	st.Chunks = snap.NumChunks()
	st.StateRoot = snap.StateRoot()
	st.Complete = snap.Complete()
	st.State = "building"
	if st.Complete {
		st.State = "ready"
	}
	stats := w.idx.Stats()
	st.LastMode = stats.Mode
	st.BuildReason = stats.Reason
	for k, n := range stats.Skipped {
		st.Skipped[k] = n
	}
	st.CacheDir = w.idx.Dir()
	return st
}

// chainf calls a (when set), then b.
func chainf(a, b func(format string, args ...any)) func(format string, args ...any) {
	if a == nil {
		return b
	}
	return func(format string, args ...any) { a(format, args...); b(format, args...) }
}

// warned returns the workspace's warnings so far.
func (w *workspace) warned() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.warnings)
}

// history returns the root's git history (nil: none), starting its
// tracker on first use, with its cache in the index's directory. The
// index must be open.
func (w *workspace) history(ctx context.Context) *history.Log {
	return w.hist.Get(ctx, w.root, w.idx.Dir(), w.logf)
}

// semantic returns the root's chunk vectors for snap (nil: none yet),
// starting their tracker on first use. The index must be open.
func (w *workspace) semantic(ctx context.Context, snap *index.Snapshot, ep *semantic.Endpoint) *semantic.Store {
	return w.sem.Get(ctx, w.idx, snap.Seq(), ep, w.logf)
}

// close stops the workspace: no new calls, the watcher and background work
// stopped, calls in flight awaited, held states released, the index closed
// (and checkpointed).
func (w *workspace) close() error {
	w.mu.Lock()
	if w.closing {
		w.mu.Unlock()
		return nil
	}
	w.closing = true
	w.mu.Unlock()
	w.cancel()
	<-w.ready
	w.mu.Lock()
	wt := w.watch
	w.mu.Unlock()
	if wt != nil {
		wt.close()
	}
	w.users.Wait()
	w.mu.Lock()
	for _, h := range w.held {
		if h.refs == 0 {
			h.release()
		}
	}
	w.held = nil
	w.mu.Unlock()
	w.hist.Close()
	w.sem.Close()
	if w.idx == nil {
		return nil
	}
	if err := w.idx.Close(); err != nil {
		return fmt.Errorf("close the index of %s: %w", w.root, err)
	}
	return nil
}
