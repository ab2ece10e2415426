package history

import (
	"context"
	"path/filepath"
	"sync"
	"time"
)

// Tracker keeps a workspace's history current for a long-running server
// (the language server, the MCP server). Current never waits for git: it
// returns the last log read and, when that was checked longer ago than
// the tracker's interval, starts a refresh in the background, so the
// request after a commit or a checkout sees the new history.
type Tracker struct {
	root, cache string
	opts        Options
	every       time.Duration
	warnf       func(format string, args ...any)

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	cur     *Log
	checked time.Time
	running bool
	told    bool // a failure was told; not again until a read succeeds
	// first is closed once the first read has ended.
	first chan struct{}
}

// NewTracker starts reading root's history (through the cache file at
// cachePath, "" for none) in the background. every is the least time
// between two checks of HEAD (0: 5 s). warnf (nil: none) is told once
// when the history cannot be read for another reason than there being
// none.
func NewTracker(root, cachePath string, opts Options, every time.Duration, warnf func(format string, args ...any)) *Tracker {
	if every <= 0 {
		every = 5 * time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	t := &Tracker{root: root, cache: cachePath, opts: opts, every: every, warnf: warnf, ctx: ctx, cancel: cancel,
		first: make(chan struct{})}
	t.mu.Lock()
	t.startLocked()
	t.mu.Unlock()
	return t
}

// Current returns the history read last (nil: none yet, or none at all)
// and starts a refresh when the last check is older than the interval.
func (t *Tracker) Current() *Log {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.running && time.Since(t.checked) >= t.every {
		t.startLocked()
	}
	return t.cur
}

// Wait waits until the first read has ended (or ctx is done) and returns
// Current.
func (t *Tracker) Wait(ctx context.Context) *Log {
	if t == nil {
		return nil
	}
	select {
	case <-t.first:
	case <-ctx.Done():
	}
	return t.Current()
}

func (t *Tracker) startLocked() {
	if t.ctx.Err() != nil {
		return
	}
	t.running = true
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		t.mu.Lock()
		old := t.cur
		t.mu.Unlock()
		if old == nil {
			old = readCache(t.cache)
		}
		l, err := refreshCached(t.ctx, t.root, t.cache, old, t.opts, t.warnf)
		t.mu.Lock()
		defer t.mu.Unlock()
		t.running = false
		t.checked = time.Now()
		switch {
		case err == nil:
			t.cur, t.told = l, false
		case Unavailable(err):
			t.cur = nil // git went away, or the .git directory did
		case t.ctx.Err() == nil && !t.told:
			t.told = true
			if t.warnf != nil {
				t.warnf("history of %s: %v (going on without it)", t.root, err)
			}
		}
		select {
		case <-t.first:
		default:
			close(t.first)
		}
	}()
}

// Started returns how many trackers Get has started: one per workspace
// however many requests and sessions asked (more only after a change of
// what is computed).
func (z *Lazy) Started() int {
	z.mu.Lock()
	defer z.mu.Unlock()
	return z.started
}

// Close stops the tracker and waits for a running read.
func (t *Tracker) Close() {
	if t == nil {
		return
	}
	t.cancel()
	t.wg.Wait()
}

// FirstWait bounds how long the first request that wants a workspace's
// history waits for it to be read (Lazy.Get); later requests never wait.
const FirstWait = 500 * time.Millisecond

// Lazy is a workspace's tracker, started by the first request that wants
// the history (so that a server whose clients turned it off never runs
// git). The zero value is ready; Close stops it for good.
type Lazy struct {
	mu sync.Mutex
	t  *Tracker
	// started counts the trackers Get has started (Started).
	started int
	closed  bool
}

// Get returns root's history (nil: none), starting the tracker on first
// use with its cache in indexDir ("": no cache) and waiting at most
// FirstWait for the first read.
func (z *Lazy) Get(ctx context.Context, root, indexDir string, logf func(format string, args ...any)) *Log {
	z.mu.Lock()
	if z.closed {
		z.mu.Unlock()
		return nil
	}
	if z.t == nil {
		cache := ""
		if indexDir != "" {
			cache = filepath.Join(indexDir, CacheFile)
		}
		z.t = NewTracker(root, cache, DefaultOptions(), 0, logf)
		z.started++
	}
	t := z.t
	z.mu.Unlock()
	wctx, cancel := context.WithTimeout(ctx, FirstWait)
	defer cancel()
	return t.Wait(wctx)
}

// Close stops the tracker (waiting for a running read); Get returns nil
// from then on.
func (z *Lazy) Close() {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.closed = true
	z.t.Close()
}
