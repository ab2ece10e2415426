package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxls/ctxls/internal/workspace"
)

// errFolderClosed: the folder was removed (or the session ended) while a
// request wanted it.
var errFolderClosed = errors.New("the workspace folder was removed")

// folder is one workspace folder of a session: the process's shared Root
// of its directory (index, disk changes, trackers: workspace.Pool), this
// session's workspace.Session of it (its unsaved buffers, private to it,
// and the states held for context/expand), and the queue of the client's
// changes. The index opens in the background; requests wait for it to be
// open (not for it to be complete, beyond Settings.IndexWait).
type folder struct {
	uri  string // as the client spelled it, without a trailing slash
	name string
	// repo is the repository (or workspace.Repos union key) of a folder
	// served from an index store; "" for a directory. repos are its
	// repositories, sorted.
	repo  string
	repos []string
	root  string // clean absolute OS path
	logf  func(format string, args ...any)
	// docText returns the open buffer at an absolute path.
	docText func(abs string) (string, bool)
	// byRequest: a store's folder opened for a request's repo or repos,
	// not one the client named; used is session.unionTick at its last
	// use (guarded by the session's mu).
	byRequest bool
	used      uint64

	ctx    context.Context // cancelled by close
	cancel context.CancelFunc
	queue  *changeQueue

	// ready is closed once the index is open (the Root's) or failed to
	// open (openErr set); built once its first build has finished too
	// (buildErr set). Both fields are written before their channel closes
	// and only read after.
	ready, built chan struct{}
	openErr      error
	buildErr     error
	opened       time.Time
	// pool shares the Root with the process's other sessions; rt is this
	// folder's hold on it and sess its session (set once open has asked
	// for them).
	pool *workspace.Pool
	rt   atomic.Pointer[workspace.Root]
	sess *workspace.Session
	// shared: the Root is not the folder's to release (a store's);
	// release, if set, lets go of the folder's hold on it.
	shared  bool
	release func()

	closeOnce sync.Once
	closeErr  error
	// closingC is closed when close starts: the requests it waits for
	// stop waiting for the first build and answer from what is indexed.
	closingC chan struct{}

	mu      sync.Mutex // guards the fields below
	closing bool
	// disk are the disk changes told before the folder had its Root;
	// they go to it once it has (diskChanged).
	disk []string
	// pins counts the requests that arrived while the folder was open
	// (see pin): close waits for them before it stops anything.
	pins sync.WaitGroup
}

// folderConfig is what opening a folder needs from the session.
type folderConfig struct {
	uri, name, root string
	indexOptions    func() workspace.IndexOptions
	pool            *workspace.Pool
	maxHeld         int
	logf            func(format string, args ...any)
	docText         func(abs string) (string, bool)
	// warn tells the user what the index warns about (the cache directory
	// cannot be written); nil: the log has it.
	warn func(msg string)
	// acquire, when set, gives the folder's Root instead of the pool (a
	// store's repository or union: workspace.Repos owns the Root, and
	// the folder does not release it) and the function that lets go of
	// the folder's hold on it (nil: none).
	acquire func(ctx context.Context) (*workspace.Root, func(), error)
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
	}
}

// open opens the folder in the background — the process's shared Root of
// the directory, opened (which refreshes a warm on-disk index) on first
// use, and this session of it — then starts the change queue and waits for
// the first build. onOpen runs once the index is open (or failed), onBuilt
// once the first build has finished.
func (f *folder) open(cfg folderConfig, onOpen, onBuilt func(*folder)) {
	go func() {
		start := time.Now()
		// The client tells the folder what changes on disk
		// (didChangeWatchedFiles): the root is not watched by the server.
		var r *workspace.Root
		if cfg.acquire != nil {
			var err error
			if r, f.release, err = cfg.acquire(f.ctx); err != nil {
				f.openErr = err
				f.opened = start
				close(f.ready)
				onOpen(f)
				f.buildErr = err
				close(f.built)
				onBuilt(f)
				return
			}
			f.shared = true
		} else {
			r = f.pool.Acquire(f.root, cfg.indexOptions(), workspace.RootOptions{})
		}
		f.sess = r.NewSession(cfg.maxHeld)
		f.mu.Lock()
		f.rt.Store(r)
		disk := f.disk
		f.disk = nil
		f.mu.Unlock()
		for _, rel := range disk {
			r.Changed(rel)
		}
		if cfg.warn != nil {
			r.Listen(f, cfg.warn)
		}
		<-r.Ready()
		f.openErr = r.OpenErr()
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
		select {
		case <-r.Built():
			f.buildErr = r.BuildErr()
		case <-f.ctx.Done():
			f.buildErr = f.ctx.Err()
		}
		close(f.built)
		onBuilt(f)
	}()
}

// failedToOpen reports whether the folder's index is known not to have
// opened (false while it is opening).
func (f *folder) failedToOpen() bool {
	select {
	case <-f.ready:
		return f.openErr != nil
	default:
		return false
	}
}

// progress returns how far the index's build or refresh has come (nil
// before it starts).
func (f *folder) progress() *workspace.Progress {
	if r := f.rt.Load(); r != nil {
		return r.Progress()
	}
	return nil
}

// diskChanged tells the folder's Root that the file at rel changed on
// disk (the client's didChangeWatchedFiles): the Root's queue applies it,
// and a request waits for it (workspace.Session.Acquire). Before the
// folder has its Root the change waits in the folder.
func (f *folder) diskChanged(rel string) {
	f.mu.Lock()
	r := f.rt.Load()
	if r == nil {
		f.disk = append(f.disk, rel)
	}
	f.mu.Unlock()
	if r != nil {
		r.Changed(rel)
	}
}

// apply applies a batch of queued changes. It runs on the queue's worker
// goroutine.
func (f *folder) apply(changes []change) {
	ctx := f.ctx
	for _, c := range changes {
		var err error
		switch c.kind {
		case changeDocument:
			err = f.applyDocument(ctx, c.rel)
		}
		if err != nil && ctx.Err() == nil {
			f.logf("%s: %v", f.root, err)
		}
	}
}

// applyDocument makes the open buffer of rel this session's, or drops it
// when it is closed. The index's rules decide whether the buffer is
// indexable at all.
func (f *folder) applyDocument(ctx context.Context, rel string) error {
	if text, open := f.docText(joinPath(f.root, rel)); open {
		return f.sess.SetBuffer(ctx, rel, text)
	}
	return f.sess.ClearBuffer(rel)
}

// storeScheme starts the URIs of a store's files (ctxls-store:REPO/PATH):
// the parts of a folder the client did not name, and what a request may
// name any store file by.
const storeScheme = "ctxls-store:"

// relOf returns the path in f of the file at uri: below f's URI, or for a
// store's folder ctxls-store:REPO/PATH with REPO one of its repositories
// (a union's paths start with the repository's name).
func (f *folder) relOf(uri string) (string, bool) {
	if rel, ok := relURI(f.uri, uri); ok {
		return rel, true
	}
	for _, r := range f.repos {
		if rel, ok := relURI(storeScheme+r, uri); ok {
			if len(f.repos) > 1 {
				return r + "/" + rel, true
			}
			return rel, true
		}
	}
	return "", false
}

// partURI is the URI of the file at rel in f: below f's URI, or for a
// union ctxls-store:REPO/PATH (rel starts with REPO).
func (f *folder) partURI(rel string) string {
	if f.uri == storeScheme {
		return storeScheme + strings.TrimPrefix(joinURI("", rel), "/")
	}
	return joinURI(f.uri, rel)
}

// uriHint says which URIs name f's files, for error messages.
func (f *folder) uriHint() string {
	var hints []string
	if f.uri != storeScheme {
		hints = append(hints, f.uri+"/…")
	}
	for _, r := range f.repos {
		if f.uri != storeScheme+r {
			hints = append(hints, storeScheme+r+"/…")
		}
	}
	return strings.Join(hints, " or ")
}

// view is one request's hold on the folder's session snapshot.
type view struct {
	f *folder
	*workspace.View
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
// request), and returns a view of the session's snapshot. The caller must
// call Done or Keep.
func (f *folder) acquire(ctx *requestCtx, indexWait time.Duration) (*view, error) {
	f.mu.Lock()
	closing := f.closing && !ctx.pinned(f)
	f.mu.Unlock()
	if closing {
		return nil, fmt.Errorf("%s: %w", f.root, errFolderClosed)
	}
	select {
	case <-f.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-f.ctx.Done():
		return nil, fmt.Errorf("%s: %w", f.root, errFolderClosed)
	}
	if f.openErr != nil {
		return nil, f.openErr
	}
	if n, ok := ctx.barrier[f]; ok {
		if err := f.queue.wait(ctx, n); err != nil {
			return nil, err
		}
	}
	v, err := f.sess.Acquire(ctx, workspace.AcquireOptions{Wait: indexWait, Stop: f.closingC})
	if errors.Is(err, workspace.ErrClosed) {
		err = fmt.Errorf("%s: %w", f.root, errFolderClosed)
	}
	if err != nil {
		return nil, err
	}
	return &view{f, v}, nil
}

// acquireHeld returns a view of a held state: the one named state if
// state is not empty, else the most recently used one whose results
// listed every handle. It returns nil when there is none.
func (f *folder) acquireHeld(ctx *requestCtx, state string, handles []string) *view {
	f.mu.Lock()
	closing := f.closing && !ctx.pinned(f)
	f.mu.Unlock()
	if closing {
		return nil
	}
	select {
	case <-f.ready:
	default:
		return nil
	}
	if f.openErr != nil {
		return nil
	}
	if v := f.sess.Held(state, handles); v != nil {
		return &view{f, v}
	}
	return nil
}

// close stops the folder: no new requests, the requests that arrived
// before (pinned) answered, background work cancelled, the session closed
// (its views awaited, its held states and buffers dropped) and the root
// released (the last user closes and checkpoints the index). Later calls
// wait for the first and return its error.
func (f *folder) close() error {
	f.closeOnce.Do(func() {
		f.mu.Lock()
		f.closing = true
		f.mu.Unlock()
		close(f.closingC)
		f.pins.Wait()
		f.cancel()
		<-f.ready
		r := f.rt.Load()
		if r == nil {
			return
		}
		if f.openErr == nil {
			<-f.queue.stopped
		}
		f.sess.Close()
		r.Unlisten(f)
		if f.shared {
			if f.release != nil {
				f.release()
			}
			return
		}
		if err := r.Release(); err != nil {
			f.closeErr = err
		}
	})
	return f.closeErr
}
