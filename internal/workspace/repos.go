package workspace

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
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

	mu   sync.Mutex
	open map[string]*repoRoot // by repository, or unionKey
	// cos are the repositories' checkouts, one per repository whatever
	// the roots that read it (its own, unions): two checkouts of one
	// directory in a process would wait on each other's lock.
	cos map[string]*sharedCheckout
}

// sharedCheckout is one repository's checkout, made once.
type sharedCheckout struct {
	ready chan struct{}
	co    *pgstore.Checkout
	err   error
}

// checkoutOf returns repository name's checkout, making it on first use
// (a failure is forgotten: the next call tries again).
func (rs *Repos) checkoutOf(name string) (*pgstore.Checkout, error) {
	rs.mu.Lock()
	if rs.cos == nil {
		rs.mu.Unlock()
		return nil, ErrClosed
	}
	sc, ok := rs.cos[name]
	if !ok {
		sc = &sharedCheckout{ready: make(chan struct{})}
		rs.cos[name] = sc
		rs.mu.Unlock()
		sc.co, sc.err = rs.store.Checkout(rs.ctx, name, rs.opts.Parent, nil)
		if sc.err != nil {
			rs.mu.Lock()
			if rs.cos != nil {
				delete(rs.cos, name)
			}
			rs.mu.Unlock()
		}
		close(sc.ready)
	} else {
		rs.mu.Unlock()
		<-sc.ready
	}
	return sc.co, sc.err
}

// repoSource is one repository's root's view of its shared checkout: it
// reloads when the checkout's generation differs from the one it saw,
// whoever updated the checkout.
type repoSource struct {
	*pgstore.Checkout
	seen int64
}

func (r *repoSource) Update(ctx context.Context) ([]string, bool, error) {
	changed, _, err := r.Checkout.Update(ctx)
	if err != nil {
		return nil, false, err
	}
	g := r.Gen()
	moved := g != r.seen
	r.seen = g
	return changed, moved, nil
}

// Close leaves the shared checkout open (Repos.Close closes it).
func (r *repoSource) Close() error { return nil }

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

// StoreSource is what a root served from a store is built from: one
// repository's checkout (pgstore.Checkout) or a union of several
// (pgstore.Union).
type StoreSource interface {
	Dirs() (root, indexDir string)
	Lister() index.Lister
	Files() index.FileSource
	NewChunker() (index.Chunker, error)
	InstallSides(indexDir string) error
	TakeImage() map[string][]byte
	Update(ctx context.Context) (changed []string, moved bool, err error)
	Close() error
}

// repoRoot is one open repository, or union of repositories.
type repoRoot struct {
	ready chan struct{} // closed once src and root (or err) are set
	src   StoreSource
	root  *Root
	err   error
	upd   sync.Mutex // one update at a time
	// warned is the last unusable generation the root's clients were
	// told of (under upd).
	warned string
}

// unionKey is the key of a union of repositories in Repos.open.
func unionKey(names []string) string {
	s := slices.Clone(names)
	slices.Sort(s)
	return "\x00" + strings.Join(slices.Compact(s), "\x00")
}

// NewRepos serves store's repositories through pool. The store reports
// through opts.Logf too (pgstore.Store.SetLogf): a generation it cannot
// use is logged there once.
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
	store.SetLogf(opts.Logf)
	ctx, cancel := context.WithCancel(context.Background())
	rs := &Repos{store: store, pool: pool, opts: opts, ctx: ctx, cancel: cancel, done: make(chan struct{}),
		open: map[string]*repoRoot{}, cos: map[string]*sharedCheckout{}}
	go rs.follow()
	return rs
}

// Store is the store served.
func (rs *Repos) Store() *pgstore.Store { return rs.store }

// Root returns the root of repository name, checking it out and opening
// its index on first use. The store being down fails the call, and the
// next call tries again.
func (rs *Repos) Root(ctx context.Context, name string) (*Root, error) {
	return rs.get(ctx, name, func() (StoreSource, error) {
		co, err := rs.checkoutOf(name)
		if err != nil {
			return nil, err
		}
		return &repoSource{Checkout: co, seen: co.Gen()}, nil
	})
}

// Union returns the root of several repositories read as one tree, each
// under its name (pgstore.Union): a request across them gets one ranked,
// budgeted context.
func (rs *Repos) Union(ctx context.Context, names []string) (*Root, error) {
	return rs.get(ctx, unionKey(names), func() (StoreSource, error) {
		var parts []*pgstore.Checkout
		for _, n := range names {
			co, err := rs.checkoutOf(n)
			if err != nil {
				return nil, err
			}
			parts = append(parts, co)
		}
		return pgstore.NewUnion(parts, rs.opts.Parent)
	})
}

func (rs *Repos) get(ctx context.Context, key string, open func() (StoreSource, error)) (*Root, error) {
	rs.mu.Lock()
	if rs.open == nil {
		rs.mu.Unlock()
		return nil, ErrClosed
	}
	e, ok := rs.open[key]
	if !ok {
		e = &repoRoot{ready: make(chan struct{})}
		rs.open[key] = e
		go rs.checkout(key, e, open)
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

// checkout opens the source and acquires its root; a failure is
// forgotten, so that the next request tries again.
func (rs *Repos) checkout(key string, e *repoRoot, open func() (StoreSource, error)) {
	defer close(e.ready)
	opts := rs.opts.IndexOptions(strings.TrimPrefix(key, "\x00"))
	name := strings.ReplaceAll(strings.TrimPrefix(key, "\x00"), "\x00", " + ")
	src, err := open()
	if err == nil {
		logf := func(format string, args ...any) { rs.opts.Logf(name+": "+format, args...) }
		if err = prepareSource(src, &opts, logf); err != nil {
			src.Close()
		}
	}
	if err != nil {
		e.err = err
		rs.mu.Lock()
		if rs.open != nil && rs.open[key] == e {
			delete(rs.open, key)
		}
		rs.mu.Unlock()
		return
	}
	e.src = src
	root, _ := src.Dirs()
	// A union has no history of its own; a repository came with its own.
	e.root = rs.pool.Acquire(root, opts, RootOptions{HistoryFromCache: !strings.HasPrefix(key, "\x00")})
	rs.opts.Logf("%s: checked out", name)
}

// PrepareSource readies src's index directory (its side files placed,
// the index image imported when it came with one) and sets opts to index
// src from its stored chunks there (UseCheckout). An image that cannot be
// imported (its files damaged: a publisher may write anything) is left
// out, with a line to opts.Logf: the index is built from the stored
// chunks instead, as with no image.
func PrepareSource(src StoreSource, opts *index.Options) error {
	return prepareSource(src, opts, opts.Logf)
}

// prepareSource is PrepareSource, saying to logf (when not nil) that an
// image is left out.
func prepareSource(src StoreSource, opts *index.Options, logf func(format string, args ...any)) error {
	root, idir := src.Dirs()
	if err := index.PrepareCacheDir(idir); err != nil {
		return err
	}
	if err := src.InstallSides(idir); err != nil {
		return err
	}
	UseCheckout(src, opts)
	if img := src.TakeImage(); img != nil {
		if err := index.ImportImage(idir, root, *opts, img); err != nil && logf != nil {
			logf("the store's index image cannot be used (%v); the index is built from the stored chunks", err)
		}
	}
	return nil
}

// UseCheckout sets opts to index src from its stored chunks, in its own
// index directory.
func UseCheckout(src StoreSource, opts *index.Options) {
	_, opts.CacheDir = src.Dirs()
	opts.Lister = src.Lister()
	opts.Files = src.Files()
	opts.NewChunker = src.NewChunker
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
			for _, key := range rs.openNames() {
				rs.updateKey(key)
			}
		}
	}
}

// openNames lists the keys of the open sources, in order.
func (rs *Repos) openNames() []string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	var out []string
	for key, e := range rs.open {
		select {
		case <-e.ready:
			if e.err == nil {
				out = append(out, key)
			}
		default:
		}
	}
	slices.Sort(out)
	return out
}

// update brings the sources that hold repository repo (its own, and the
// unions it is in) to their current generations.
func (rs *Repos) update(repo string) {
	for _, key := range rs.openNames() {
		if key == repo || (strings.HasPrefix(key, "\x00") && slices.Contains(strings.Split(key[1:], "\x00"), repo)) {
			rs.updateKey(key)
		}
	}
}

// updateKey brings one open source and its index to the current
// generations (nothing when nothing moved).
func (rs *Repos) updateKey(key string) {
	rs.mu.Lock()
	e := rs.open[key]
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
	name := strings.ReplaceAll(strings.TrimPrefix(key, "\x00"), "\x00", " + ")
	changed, moved, err := e.src.Update(rs.ctx)
	if errors.Is(err, pgstore.ErrUnusable) {
		// The store has logged it once; the clients of the root are told
		// once too, and keep the generation they have.
		if msg := fmt.Sprintf("%s: %v; answers come from the generation checked out before", name, err); msg != e.warned {
			e.warned = msg
			e.root.warn(msg)
		}
		return
	}
	if err != nil {
		if rs.ctx.Err() == nil {
			rs.opts.Logf("%s: %v", name, err)
		}
		return
	}
	if !moved {
		return
	}
	_, idir := e.src.Dirs()
	if err := e.src.InstallSides(idir); err != nil {
		rs.opts.Logf("%s: %v", name, err)
	}
	if err := e.root.reload(rs.ctx); err != nil {
		rs.opts.Logf("%s: %v", name, err)
		return
	}
	rs.opts.Logf("%s: a new generation (%d files changed)", name, len(changed))
}

// Close lets go of every root and checkout.
func (rs *Repos) Close() error {
	rs.cancel()
	<-rs.done
	rs.mu.Lock()
	open, cos := rs.open, rs.cos
	rs.open, rs.cos = nil, nil
	rs.mu.Unlock()
	var errs []error
	for _, key := range slices.Sorted(maps.Keys(open)) {
		e := open[key]
		<-e.ready
		if e.err == nil {
			errs = append(errs, e.root.Release(), e.src.Close())
		}
	}
	for _, name := range slices.Sorted(maps.Keys(cos)) {
		sc := cos[name]
		<-sc.ready
		if sc.err == nil {
			errs = append(errs, sc.co.Close())
		}
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

// CheckoutParent is where a process keeps its checkouts of a store's
// repositories: cacheDir (a --cache-dir given), else the default cache
// parent's store directory (index.DefaultCacheParent()/store).
func CheckoutParent(cacheDir string) (string, error) {
	if cacheDir != "" {
		return cacheDir, nil
	}
	base, err := index.DefaultCacheParent()
	if err != nil {
		return "", fmt.Errorf("cache directory for the store's checkouts: %w", err)
	}
	return filepath.Join(base, "store"), nil
}
