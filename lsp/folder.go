package lsp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxls/ctxls/history"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/semantic"
)

// errFolderClosed: the folder was removed (or the session ended) while a
// request wanted it.
var errFolderClosed = errors.New("the workspace folder was removed")

// folder is one workspace folder: its index, the queue of changes to it and
// the index states held for context/expand. The index opens in the
// background; requests wait for it to be open (not for it to be complete,
// beyond Settings.IndexWait).
type folder struct {
	uri  string // as the client spelled it, without a trailing slash
	name string
	root string // clean absolute OS path
	logf func(format string, args ...any)
	// docText returns the open buffer at an absolute path.
	docText func(abs string) (string, bool)

	ctx    context.Context // cancelled by close
	cancel context.CancelFunc
	queue  *changeQueue

	// ready is closed once the index is open (idx set) or failed to open
	// (openErr set); built once its first build has finished too
	// (buildErr set). Both fields are written before their channel closes
	// and only read after.
	ready, built chan struct{}
	idx          *index.Index
	openErr      error
	buildErr     error
	opened       time.Time
	// pool shares the index with the process's other sessions; entry is
	// this folder's hold on it (set once open has asked for it).
	pool  *IndexPool
	entry atomic.Pointer[poolEntry]

	closeOnce sync.Once
	closeErr  error
	// closingC is closed when close starts: the requests it waits for
	// stop waiting for the first build and answer from what is indexed.
	closingC chan struct{}

	mu      sync.Mutex // guards the fields below
	closing bool
	// pins counts the requests that arrived while the folder was open
	// (see pin): close waits for them before it stops anything.
	pins    sync.WaitGroup
	users   sync.WaitGroup // requests holding a view, and borrowed states
	held    []*heldState   // most recently used last
	maxHeld int
	tick    uint64
	refresh bool // a refresh is running
	again   bool // another refresh was asked for while one ran
}

// folderConfig is what opening a folder needs from the session.
type folderConfig struct {
	uri, name, root string
	indexOptions    func() index.Options
	pool            *IndexPool
	maxHeld         int
	logf            func(format string, args ...any)
	docText         func(abs string) (string, bool)
	// warn tells the user what the index warns about (the cache directory
	// cannot be written); nil: the log has it.
	warn func(msg string)
}

// newFolder creates a folder; open starts opening its index.
func newFolder(parent context.Context, cfg folderConfig) *folder {
	ctx, cancel := context.WithCancel(parent)
	name := cfg.name
	if name == "" {
		name = filepath.Base(cfg.root)
	}
	return &folder{
		uri: strings.TrimSuffix(cfg.uri, "/"), name: name, root: cfg.root, logf: cfg.logf,
		docText: cfg.docText, pool: cfg.pool,
		ctx: ctx, cancel: cancel, queue: newChangeQueue(),
		ready: make(chan struct{}), built: make(chan struct{}), closingC: make(chan struct{}),
		maxHeld: cfg.maxHeld,
	}
}

// open opens the folder's index in the background — the process's shared
// index of the root (IndexPool), opened (which refreshes a warm on-disk
// index) on first use — then starts the change queue and waits for the
// first build. onOpen runs once the index is open (or failed), onBuilt
// once the first build has finished.
func (f *folder) open(cfg folderConfig, onOpen, onBuilt func(*folder)) {
	go func() {
		start := time.Now()
		e := f.pool.acquire(f.root, cfg.indexOptions())
		f.entry.Store(e)
		if cfg.warn != nil {
			e.listen(f, cfg.warn)
		}
		<-e.ready
		f.idx, f.openErr = e.idx, e.err
		f.opened = start
		close(f.ready)
		onOpen(f)
		if f.openErr != nil {
			f.buildErr = f.openErr
			close(f.built)
			onBuilt(f)
			return
		}
		go f.queue.run(f.ctx, f.apply)
		f.buildErr = f.idx.Wait(f.ctx)
		close(f.built)
		onBuilt(f)
	}()
}

// progress returns how far the index's build or refresh has come (nil
// before it starts).
func (f *folder) progress() *index.Progress {
	if e := f.entry.Load(); e != nil {
		return e.progress.Load()
	}
	return nil
}

// apply applies a batch of queued changes to the index. It runs on the
// queue's worker goroutine.
func (f *folder) apply(changes []change) {
	ctx := f.ctx
	for _, c := range changes {
		var err error
		switch c.kind {
		case changeDocument:
			err = f.applyDocument(ctx, c.rel)
		case changeDisk:
			err = f.applyDisk(ctx, c.rel)
		}
		if err != nil && ctx.Err() == nil {
			f.logf("%s: %v", f.root, err)
		}
	}
}

// applyDocument overlays the open buffer of rel, or drops its overlay when
// it is closed. The index decides, by the rules of its lister, whether the
// buffer is indexable at all.
func (f *folder) applyDocument(ctx context.Context, rel string) error {
	e := f.entry.Load()
	if text, open := f.docText(joinPath(f.root, rel)); open {
		return e.setBuffer(ctx, f, rel, text)
	}
	return e.clearBuffer(ctx, f, rel)
}

// applyDisk re-reads rel after a change on disk: a file is updated (the
// index drops it when its rules no longer admit it, and lists the folder
// again when an ignore file changed), a deleted path is dropped with
// everything below it, and a new directory makes the folder refresh. An
// open buffer of rel wins over the disk.
func (f *folder) applyDisk(ctx context.Context, rel string) error {
	if _, open := f.docText(joinPath(f.root, rel)); open {
		return nil
	}
	st, err := os.Stat(joinPath(f.root, rel))
	switch {
	case err != nil:
		return f.removeTree(ctx, rel)
	case st.IsDir():
		f.scheduleRefresh()
		return nil
	}
	return f.idx.Update(ctx, rel, nil)
}

// removeTree drops rel, and every indexed path below it, from the index.
func (f *folder) removeTree(ctx context.Context, rel string) error {
	snap, release := f.idx.Snapshot()
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
	return f.idx.Remove(ctx, gone...)
}

// scheduleRefresh refreshes the index from disk in the background (after
// its first build). Refreshes asked for while one runs collapse into one
// more.
func (f *folder) scheduleRefresh() {
	f.mu.Lock()
	if f.refresh {
		f.again = true
		f.mu.Unlock()
		return
	}
	f.refresh = true
	f.mu.Unlock()
	go func() {
		for {
			if _, err := f.idx.Refresh(f.ctx); err != nil && f.ctx.Err() == nil {
				f.logf("refresh %s: %v", f.root, err)
			}
			f.mu.Lock()
			if !f.again || f.closing {
				f.refresh = false
				f.mu.Unlock()
				return
			}
			f.again = false
			f.mu.Unlock()
		}
	}()
}

// view is one request's hold on a folder: the index snapshot it reads.
type view struct {
	f       *folder
	snap    *index.Snapshot
	release func()
	held    *heldState // non-nil when the snapshot is borrowed from held
}

// pin records a request that arrived while the folder was open: close
// waits until it is unpinned before it stops anything, so that the
// request is answered by the folder even when a shutdown or a folder
// change that followed it closes the folder first. It returns false when
// the folder is closing already.
func (f *folder) pin() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closing {
		return false
	}
	f.pins.Add(1)
	return true
}

// unpin ends a pin.
func (f *folder) unpin() { f.pins.Done() }

// acquire waits until the folder's index is open and has applied the
// changes that arrived before the request, waits up to indexWait for the
// first build (not once the folder is closing: close waits for the
// request), and returns a view of the current snapshot. The caller must
// call done or keep.
func (f *folder) acquire(ctx *requestCtx, indexWait time.Duration) (*view, error) {
	f.mu.Lock()
	if f.closing && !ctx.pinned(f) {
		f.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", f.root, errFolderClosed)
	}
	f.users.Add(1)
	f.mu.Unlock()
	fail := func(err error) (*view, error) {
		f.users.Done()
		return nil, err
	}
	select {
	case <-f.ready:
	case <-ctx.Done():
		return fail(ctx.Err())
	case <-f.ctx.Done():
		return fail(fmt.Errorf("%s: %w", f.root, errFolderClosed))
	}
	if f.openErr != nil {
		return fail(f.openErr)
	}
	if n, ok := ctx.barrier[f]; ok {
		if err := f.queue.wait(ctx, n); err != nil {
			return fail(err)
		}
	}
	if indexWait > 0 {
		t := time.NewTimer(indexWait)
		select {
		case <-f.built:
		case <-t.C:
		case <-f.closingC:
		case <-ctx.Done():
			t.Stop()
			return fail(ctx.Err())
		case <-f.ctx.Done():
			t.Stop()
			return fail(fmt.Errorf("%s: %w", f.root, errFolderClosed))
		}
		t.Stop()
	}
	snap, release := f.idx.Snapshot()
	return &view{f: f, snap: snap, release: release}, nil
}

// acquireHeld returns a view of a held state: the one named state if
// state is not empty, else the most recently used one whose results
// listed every handle. It returns nil when there is none.
func (f *folder) acquireHeld(ctx *requestCtx, state string, handles []string) *view {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closing && !ctx.pinned(f) {
		return nil
	}
	for i := len(f.held) - 1; i >= 0; i-- {
		h := f.held[i]
		if state != "" && h.state != state {
			continue
		}
		if state == "" && (len(handles) == 0 || !h.hasAll(handles)) {
			continue
		}
		h.refs++
		f.tick++
		h.used = f.tick
		f.users.Add(1)
		return &view{f: f, snap: h.snap, held: h}
	}
	return nil
}

// done releases the view.
func (v *view) done() {
	f := v.f
	if v.held != nil {
		f.mu.Lock()
		v.held.refs--
		if v.held.evicted && v.held.refs == 0 {
			v.held.release()
		}
		f.mu.Unlock()
	} else {
		v.release()
	}
	f.users.Done()
}

// keep releases the view but holds its snapshot for context/expand, as
// the state that produced handles.
func (v *view) keep(handles []string) {
	f := v.f
	if v.held != nil {
		v.done()
		return
	}
	state := v.snap.StateRoot()
	f.mu.Lock()
	f.tick++
	var h *heldState
	for _, x := range f.held {
		if x.state == state {
			h = x
		}
	}
	switch {
	case f.closing:
		v.release()
	case h != nil:
		v.release()
		h.used = f.tick
		h.add(handles)
	default:
		h = &heldState{state: state, snap: v.snap, release: v.release, used: f.tick, handles: map[string]bool{}}
		h.add(handles)
		f.held = append(f.held, h)
	}
	slices.SortFunc(f.held, func(a, b *heldState) int { return cmp.Compare(a.used, b.used) })
	for len(f.held) > f.maxHeld {
		old := f.held[0]
		f.held = f.held[1:]
		old.evicted = true
		if old.refs == 0 {
			old.release()
		}
	}
	f.mu.Unlock()
	f.users.Done()
}

// heldState is an index snapshot kept after the assemble that read it, so
// that context/expand can answer from the same state.
type heldState struct {
	state   string
	snap    *index.Snapshot
	release func()
	handles map[string]bool // handles of the results read from it
	used    uint64          // folder tick of the last use
	refs    int             // expands reading it now
	evicted bool            // no longer held; released when refs is 0
}

func (h *heldState) add(handles []string) {
	for _, x := range handles {
		h.handles[x] = true
	}
}

func (h *heldState) hasAll(handles []string) bool {
	for _, x := range handles {
		if !h.handles[x] {
			return false
		}
	}
	return true
}

// history returns the folder's git history (nil: none), starting the
// root's tracker (shared by the sessions of the root's index) on first
// use, with its cache in the index's directory. The index must be open.
func (f *folder) history(ctx context.Context) *history.Log {
	return f.entry.Load().hist.Get(ctx, f.root, f.idx.Dir(), f.logf)
}

// semantic returns the folder's chunk vectors for snap (nil: none yet),
// starting the root's tracker (shared like the history's) on first use, which tells logf when they are
// ready or cannot be computed: the workspace embedder's (ep nil) or the
// service's. The index must be open.
func (f *folder) semantic(ctx context.Context, snap *index.Snapshot, ep *semantic.Endpoint, logf func(format string, args ...any)) *semantic.Store {
	return f.entry.Load().sem.Get(ctx, f.idx, snap.Seq(), ep, logf)
}

// close stops the folder: no new requests, the requests that arrived
// before (pinned) answered, background work cancelled, in-flight requests
// awaited, held states released, the index closed (and checkpointed).
// Later calls wait for the first and return its error.
func (f *folder) close() error {
	f.closeOnce.Do(func() {
		f.mu.Lock()
		f.closing = true
		f.mu.Unlock()
		close(f.closingC)
		f.pins.Wait()
		f.cancel()
		<-f.ready
		f.users.Wait()
		f.mu.Lock()
		for _, h := range f.held {
			h.release()
		}
		f.held = nil
		f.mu.Unlock()
		if e := f.entry.Load(); e != nil {
			e.unlisten(f)
			// The index may serve other sessions: give back this one's
			// buffers (after the change queue has stopped applying them),
			// then let go of it; the last user closes it.
			if f.openErr == nil {
				<-f.queue.stopped
				if err := e.clearOwner(context.Background(), f); err != nil {
					f.logf("%s: %v", f.root, err)
				}
			}
			if err := f.pool.release(e); err != nil {
				f.closeErr = err
			}
		}
	})
	return f.closeErr
}

// chainProgress calls both progress callbacks.
func chainProgress(a, b func(index.Progress)) func(index.Progress) {
	if a == nil {
		return b
	}
	return func(p index.Progress) { a(p); b(p) }
}

// chainLogf calls both log functions.
func chainLogf(a, b func(string, ...any)) func(string, ...any) {
	if a == nil {
		return b
	}
	return func(format string, args ...any) { a(format, args...); b(format, args...) }
}
