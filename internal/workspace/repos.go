package workspace

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/pgstore"
)

// Repos serves the repositories of a store (package pgstore) as roots:
// each repository's current generation checked out into a cache
// directory and indexed from the stored chunks, shared by every session
// of the process like any Root. A newly published generation reaches
// the open roots within seconds: the store's notifications say which
// repository moved, and a poll every Options.Poll catches what a lost
// connection missed.
type Repos struct {
	store *pgstore.Store
	pool  *Pool
	opts  ReposOptions

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu    sync.Mutex
	open  map[string]*repoRoot
	moved func(repo string, gen int64) // a test's hook
}

// ReposOptions configure Repos.
type ReposOptions struct {
	// Parent is the directory of the checkouts.
	Parent string
	// IndexOptions returns the index options of a repository's root
	// (token counters, logging); the checkout sets the cache directory,
	// the lister and the chunker.
	IndexOptions func(repo string) index.Options
	// Poll is how often the open repositories' generations are checked
	// besides the notifications (0: 2 s).
	Poll time.Duration
	Logf func(format string, args ...any)
}

// repoRoot is one open repository.
type repoRoot struct {
	ready chan struct{} // closed once co and root (or err) are set
	co    *pgstore.Checkout
	root  *Root
	err   error
	upd   sync.Mutex // one update at a time
}

// NewRepos serves store's repositories through pool.
func NewRepos(store *pgstore.Store, pool *Pool, opts ReposOptions) *Repos {
	if opts.Poll <= 0 {
		opts.Poll = 2 * time.Second
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.IndexOptions == nil {
		opts.IndexOptions = func(string) index.Options { return index.Options{} }
	}
	ctx, cancel := context.WithCancel(context.Background())
	rs := &Repos{store: store, pool: pool, opts: opts, ctx: ctx, cancel: cancel, done: make(chan struct{}), open: map[string]*repoRoot{}}
	go rs.follow()
	return rs
}

// Store is the store served.
func (rs *Repos) Store() *pgstore.Store { return rs.store }

// Root returns the root of repository name, checking it out and opening
// its index on first use. The store being down fails the call, and the
// next call tries again.
func (rs *Repos) Root(ctx context.Context, name string) (*Root, error) {
	rs.mu.Lock()
	if rs.open == nil {
		rs.mu.Unlock()
		return nil, ErrClosed
	}
	e, ok := rs.open[name]
	if !ok {
		e = &repoRoot{ready: make(chan struct{})}
		rs.open[name] = e
		go rs.checkout(name, e)
	}
	rs.mu.Unlock()
	select {
	case <-e.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if e.err != nil {
		return nil, e.err
	}
	return e.root, nil
}

// checkout checks name out and acquires its root; a failure is
// forgotten, so that the next request tries again.
func (rs *Repos) checkout(name string, e *repoRoot) {
	defer close(e.ready)
	co, err := rs.store.Checkout(rs.ctx, name, rs.opts.Parent, nil)
	if err == nil {
		err = index.PrepareCacheDir(co.IndexDir)
		if err == nil {
			err = co.InstallSides(co.IndexDir)
		}
		if err != nil {
			co.Close()
		}
	}
	if err != nil {
		e.err = err
		rs.mu.Lock()
		if rs.open != nil && rs.open[name] == e {
			delete(rs.open, name)
		}
		rs.mu.Unlock()
		return
	}
	opts := rs.opts.IndexOptions(name)
	UseCheckout(co, &opts)
	e.co = co
	e.root = rs.pool.Acquire(co.Root, opts, RootOptions{HistoryFromCache: true})
	rs.opts.Logf("%s: generation %d checked out (%d files written, %.1f MB read)", name, co.Generation, co.Written, float64(co.Fetched)/1e6)
}

// UseCheckout sets opts to index the checkout co from its stored chunks,
// in its own index directory.
func UseCheckout(co *pgstore.Checkout, opts *index.Options) {
	opts.CacheDir = co.IndexDir
	opts.Lister = co.Lister()
	opts.Files = co.Files()
	opts.NewChunker = co.NewChunker
	opts.ConfigKey = pgstore.ConfigKey
}

// follow brings the open repositories to their current generations as
// the store says they move, until Close.
func (rs *Repos) follow() {
	defer close(rs.done)
	notes := make(chan string, 64)
	go func() {
		for rs.ctx.Err() == nil {
			err := rs.store.Listen(rs.ctx, func(repo string) {
				select {
				case notes <- repo:
				default: // the poll catches up
				}
			})
			if rs.ctx.Err() == nil {
				rs.opts.Logf("store notifications: %v (polling every %v meanwhile)", err, rs.opts.Poll)
				select {
				case <-time.After(rs.opts.Poll):
				case <-rs.ctx.Done():
				}
			}
		}
	}()
	tick := time.NewTicker(rs.opts.Poll)
	defer tick.Stop()
	for {
		select {
		case <-rs.ctx.Done():
			return
		case repo := <-notes:
			rs.update(repo)
		case <-tick.C:
			for _, repo := range rs.openNames() {
				rs.update(repo)
			}
		}
	}
}

// openNames lists the repositories checked out, by name.
func (rs *Repos) openNames() []string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	var out []string
	for name, e := range rs.open {
		select {
		case <-e.ready:
			if e.err == nil {
				out = append(out, name)
			}
		default:
		}
	}
	slices.Sort(out)
	return out
}

// update brings repository name's checkout and index to its current
// generation (nothing when it is not open or has not moved).
func (rs *Repos) update(name string) {
	rs.mu.Lock()
	e := rs.open[name]
	rs.mu.Unlock()
	if e == nil {
		return
	}
	select {
	case <-e.ready:
	default:
		return // being checked out: it gets the current generation
	}
	if e.err != nil {
		return
	}
	e.upd.Lock()
	defer e.upd.Unlock()
	changed, moved, err := e.co.Update(rs.ctx)
	if err != nil {
		if rs.ctx.Err() == nil {
			rs.opts.Logf("%s: %v", name, err)
		}
		return
	}
	if !moved {
		return
	}
	if err := e.co.InstallSides(e.co.IndexDir); err != nil {
		rs.opts.Logf("%s: %v", name, err)
	}
	if err := e.root.reload(rs.ctx); err != nil {
		rs.opts.Logf("%s: %v", name, err)
		return
	}
	rs.opts.Logf("%s: generation %d (%d files changed)", name, e.co.Generation, len(changed))
	if rs.moved != nil {
		rs.moved(name, e.co.Generation)
	}
}

// Close lets go of every repository's root and checkout.
func (rs *Repos) Close() error {
	rs.cancel()
	<-rs.done
	rs.mu.Lock()
	open := rs.open
	rs.open = nil
	rs.mu.Unlock()
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(open)) {
		e := open[name]
		<-e.ready
		if e.err != nil {
			continue
		}
		errs = append(errs, e.root.Release(), e.co.Close())
	}
	return errors.Join(errs...)
}

// reload refreshes the index of a root whose files changed under it (a
// checkout moved to a new generation) and forgets the history read from
// its cache.
func (r *Root) reload(ctx context.Context) error {
	select {
	case <-r.ready:
	case <-ctx.Done():
		return ctx.Err()
	}
	if r.idx == nil {
		return r.openErr
	}
	if _, err := r.idx.Refresh(ctx); err != nil {
		return fmt.Errorf("refresh the index of %s: %w", r.path, err)
	}
	r.cachedHist.Store(nil)
	return nil
}
