package semantic

import (
	"context"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	"github.com/ctxls/ctxls/internal/index"
)

// Tracker keeps a workspace's vectors current for a long-running server
// (the language server, the MCP server). Current never waits: it returns
// the last store synced and, when the index has moved on since, starts a
// sync in the background. Files changed since the store was synced are
// simply not searched until it catches up (Store.Search).
//
// The store is read from, and written back to, the cache file beside the
// index when the tracker starts, after a model is trained, and when it is
// closed; edits in between cost no disk writes.
type Tracker struct {
	x     *index.Index
	cache string
	opts  Options
	ep    *Endpoint // nil: the workspace embedder
	warnf func(format string, args ...any)

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	cur     *Store
	seq     uint64 // the snapshot cur was synced to
	saved   *Store // the store last written to the cache
	running bool
	told    bool
	first   chan struct{} // closed once the first sync has ended
}

// NewTracker starts loading the vectors of x's snapshot (through the
// cache file at cachePath, "" for none) in the background, once x has
// finished its initial build: the workspace embedder's with opts, or with
// ep non-nil the service's. warnf (nil: none) is told once when they
// cannot be computed, and when a store is ready (loaded or trained).
func NewTracker(x *index.Index, cachePath string, opts Options, ep *Endpoint, warnf func(format string, args ...any)) *Tracker {
	ctx, cancel := context.WithCancel(context.Background())
	t := &Tracker{x: x, cache: cachePath, opts: opts, ep: ep, warnf: warnf, ctx: ctx, cancel: cancel, first: make(chan struct{})}
	t.mu.Lock()
	t.startLocked()
	t.mu.Unlock()
	return t
}

// Current returns the last store synced (nil: none yet) and starts a sync
// when seq, the caller's snapshot, is not the one it was synced to.
func (t *Tracker) Current(seq uint64) *Store {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.running && seq != t.seq {
		t.startLocked()
	}
	return t.cur
}

// Wait waits until the first sync has ended (or ctx is done) and returns
// Current.
func (t *Tracker) Wait(ctx context.Context, seq uint64) *Store {
	if t == nil {
		return nil
	}
	select {
	case <-t.first:
	case <-ctx.Done():
	}
	return t.Current(seq)
}

func (t *Tracker) startLocked() {
	if t.ctx.Err() != nil {
		return
	}
	t.running = true
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		start := time.Now()
		s, seq, st, err := t.sync()
		if err == nil && st.Trained {
			// Training leaves its matrices and bags behind: hand them back
			// to the OS now rather than keep them resident (before taking
			// the lock: a forced collection is long, and requests ask
			// Current meanwhile).
			debug.FreeOSMemory()
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		t.running = false
		switch {
		case err == nil:
			if (t.cur == nil || st.Trained) && t.warnf != nil {
				t.warnf("semantic vectors ready: %v (%d files embedded, trained %v) in %v", s, st.Embedded, st.Trained, time.Since(start).Round(time.Millisecond))
			}
			t.cur, t.seq, t.told = s, seq, false
		case t.ctx.Err() == nil && !t.told:
			t.told = true
			if t.warnf != nil {
				t.warnf("semantic vectors: %v (going on without them)", err)
			}
		}
		select {
		case <-t.first:
		default:
			close(t.first)
		}
	}()
}

// sync brings the store to x's current snapshot.
func (t *Tracker) sync() (*Store, uint64, SyncStats, error) {
	if err := t.x.Wait(t.ctx); err != nil {
		return nil, 0, SyncStats{}, err
	}
	snap, release := t.x.Snapshot()
	defer release()
	t.mu.Lock()
	old := t.cur
	t.mu.Unlock()
	var s *Store
	var st SyncStats
	var err error
	switch {
	case old != nil:
		s, st, err = old.Sync(t.ctx, snap)
		if err == nil && st.Trained {
			t.save(s)
		}
		return s, snap.Seq(), st, err
	case t.ep != nil:
		s, st, err = LoadEndpoint(t.ctx, snap, t.cache, t.ep, t.warnf)
	default:
		s, st, err = Load(t.ctx, snap, t.cache, t.opts, false, t.warnf)
	}
	if err == nil { // Load wrote it back (or found it as it is)
		t.mu.Lock()
		t.saved = s
		t.mu.Unlock()
	}
	return s, snap.Seq(), st, err
}

// save writes s to the cache file, telling warnf when it cannot.
func (t *Tracker) save(s *Store) {
	if t.cache == "" {
		return
	}
	if err := Save(t.cache, s); err != nil {
		if t.warnf != nil {
			t.warnf("%v (the vectors are computed again next time)", err)
		}
		return
	}
	t.mu.Lock()
	t.saved = s
	t.mu.Unlock()
}

// Started returns how many trackers Get has started: one per workspace
// however many requests and sessions asked (more only after a change of
// what is computed).
func (z *Lazy) Started() int {
	z.mu.Lock()
	defer z.mu.Unlock()
	return z.started
}

// Close stops the tracker, waits for a running sync and writes the store
// back to the cache when it changed since it was last written.
func (t *Tracker) Close() {
	if t == nil {
		return
	}
	t.cancel()
	t.wg.Wait()
	t.mu.Lock()
	s, saved := t.cur, t.saved
	t.mu.Unlock()
	if s != nil && s != saved {
		t.save(s)
	}
}

// FirstWait bounds how long the first request that wants a workspace's
// vectors waits for them (Lazy.Get); later requests never wait. Training
// on a large tree takes seconds: those requests go on without the channel.
const FirstWait = 500 * time.Millisecond

// Lazy is a workspace's tracker, started by the first request that wants
// the vectors (so that a server whose clients turned them off never
// computes them). The zero value is ready; Close stops it for good.
type Lazy struct {
	mu sync.Mutex
	t  *Tracker
	// started counts the trackers Get has started (Started).
	started int
	key     string // what t computes: "" for the workspace embedder, else the endpoint's id
	closed  bool
}

// Get returns the vectors for snapshot seq of x (nil: none yet), starting
// the tracker on first use with its cache in x's directory, and waiting at
// most FirstWait for the first sync: the workspace embedder's (ep nil) or
// the service's. Asking for other vectors than the tracker's (a settings
// change) starts a new tracker.
func (z *Lazy) Get(ctx context.Context, x *index.Index, seq uint64, ep *Endpoint, logf func(format string, args ...any)) *Store {
	key := ""
	if ep != nil {
		key = ep.id()
	}
	z.mu.Lock()
	if z.closed {
		z.mu.Unlock()
		return nil
	}
	if z.t != nil && z.key != key {
		z.t.Close()
		z.t = nil
	}
	if z.t == nil {
		z.key = key
		cache := ""
		if d := x.Dir(); d != "" {
			cache = filepath.Join(d, CacheFile)
		}
		if ep != nil {
			ep.Warnf = logf
		}
		z.t = NewTracker(x, cache, DefaultOptions(), ep, logf)
		z.started++
	}
	t := z.t
	z.mu.Unlock()
	wctx, cancel := context.WithTimeout(ctx, FirstWait)
	defer cancel()
	return t.Wait(wctx, seq)
}

// Close stops the tracker (writing its store back); Get returns nil from
// then on.
func (z *Lazy) Close() {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.closed = true
	z.t.Close()
}
