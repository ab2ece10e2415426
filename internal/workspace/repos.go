package workspace

import (
	"cmp"
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
	"github.com/ctxls/ctxls/internal/semantic"
)

// Repos serves the repositories of a store (package pgstore) as roots:
// each repository's current generation checked out into a cache
// directory and indexed from the stored chunks, shared by every session
// of the process like any Root. A newly published generation reaches
// the open roots within seconds: the store's notifications (one
// connection listening, whatever is open) say which repository moved.
// A poll (one statement, whatever is open) catches what they missed:
// every ReposOptions.SafetyPoll while they are heard, every
// ReposOptions.Poll while the listening connection is lost, and at once
// when it is back. An idle replica costs the store a statement a minute.
//
// A repository's root (Root) and a union of repositories (Union) are
// held by their users. At most ReposOptions.MaxOpenRepos repositories
// stay open: past it, the least recently used one nobody holds is closed
// (its index, its checkout's lock and pack let go), its checkout left on
// disk, so that the next request reopens it from there without reading
// the store again beyond its current generation's number. At most
// ReposOptions.MaxUnions unions stay open, those nobody holds closed
// first, least recently used first, their directories removed.
type Repos struct {
	store Store
	pool  *Pool
	opts  ReposOptions

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu   sync.Mutex
	open map[string]*repoRoot // by repository, or unionKey
	tick uint64               // counts the uses of unions, for their order
	// cos are the repositories' checkouts, one per repository whatever
	// the roots that read it (its own, unions): two checkouts of one
	// directory in a process would wait on each other's lock. A checkout
	// is closed when the last source reading it is (dropCheckout).
	cos map[string]*sharedCheckout
	// vparts are the repositories' vectors the unions are composed of.
	vparts VectorParts
}

// sharedCheckout is one repository's checkout, made once; refs counts
// the sources that read it (and the calls waiting for it).
type sharedCheckout struct {
	ready chan struct{}
	co    *pgstore.Checkout
	err   error
	refs  int
}

// checkoutOf returns repository name's checkout, making it on first use
// (a failure is forgotten: the next call tries again). A checkout
// returned is held until dropCheckout(name).
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
	}
	sc.refs++
	rs.mu.Unlock()
	if !ok {
		sc.co, sc.err = rs.store.Checkout(rs.ctx, name, rs.opts.Parent, nil)
		if sc.err != nil {
			rs.mu.Lock()
			if rs.cos != nil && rs.cos[name] == sc {
				delete(rs.cos, name)
			}
			rs.mu.Unlock()
		}
		close(sc.ready)
	} else {
		<-sc.ready
	}
	return sc.co, sc.err
}

// dropCheckout lets go of a hold on repository name's checkout (one
// checkoutOf returned): the last closes it, its lock and pack released,
// its directory kept for the next checkoutOf to start from.
func (rs *Repos) dropCheckout(name string) error {
	rs.mu.Lock()
	sc, ok := rs.cos[name]
	if !ok { // Close closes what is left
		rs.mu.Unlock()
		return nil
	}
	sc.refs--
	if sc.refs > 0 {
		rs.mu.Unlock()
		return nil
	}
	delete(rs.cos, name)
	rs.mu.Unlock()
	return sc.co.Close()
}

// repoSource is one repository's root's view of its shared checkout: it
// reloads when the checkout's generation differs from the one it saw,
// whoever updated the checkout.
type repoSource struct {
	*pgstore.Checkout
	seen int64
	drop func() error
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

// Close lets go of the shared checkout (closed once nothing reads it).
func (r *repoSource) Close() error { return r.drop() }

// unionSource is a union of shared checkouts: closing it lets go of them.
type unionSource struct {
	*pgstore.Union
	drop func() error
}

func (u *unionSource) Close() error { return errors.Join(u.Union.Close(), u.drop()) }

// ReposOptions configure Repos.
type ReposOptions struct {
	// Parent is the directory of the checkouts.
	Parent string
	// IndexOptions returns the index options of a repository's root
	// (token counters, logging); the checkout sets the cache directory,
	// the lister and the chunker.
	IndexOptions func(repo string) index.Options
	// Poll is how often the open repositories' generations are checked
	// while the store's notifications cannot be listened to (0:
	// DefaultPoll).
	Poll time.Duration
	// SafetyPoll is how often they are checked while the notifications
	// are heard (0: DefaultSafetyPoll): a notification is lost only with
	// its connection, which the listener notices; the poll is a safety
	// net, not the way news arrives.
	SafetyPoll time.Duration
	// MaxOpenRepos is how many repositories stay open (0:
	// DefaultMaxOpenRepos): past it, the least recently used one that
	// nobody holds is closed, its checkout kept on disk to reopen from.
	// Repositories held (by a language-server session's folder, by the
	// MCP server's recent ones) are never closed under their users.
	MaxOpenRepos int
	// MaxUnions is how many unions of repositories stay open (0:
	// DefaultMaxUnions): past it, the least recently used one that
	// nobody holds is closed and its directory removed. Unions held
	// (by a language-server session's folder, by the MCP server's
	// recent ones) are never closed under their users.
	MaxUnions int
	Logf      func(format string, args ...any)
}

// DefaultMaxUnions is how many unions of repositories a process keeps
// open by default: each is an index of its own (memory, open files, a
// directory), so that a token asking every combination of the
// repositories it reads cannot make a replica hold one per combination.
const DefaultMaxUnions = 16

// DefaultPoll and DefaultSafetyPoll are ReposOptions.Poll's and
// SafetyPoll's defaults.
const (
	DefaultPoll       = 2 * time.Second
	DefaultSafetyPoll = time.Minute
)

// DefaultMaxOpenRepos is how many repositories a process keeps open by
// default. An open repository holds its index (its lexical store and
// tables, its vectors: a few MB for a small repository, hundreds for one
// of millions of lines), its checkout's pack mapped, and a few files
// open; one closed costs its next request the opening of its index from
// the checkout on disk (tens of milliseconds for a small repository).
const DefaultMaxOpenRepos = 64

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
	key   string
	names []string      // its repositories, sorted
	ready chan struct{} // closed once src and root (or err) are set
	src   StoreSource
	root  *Root
	err   error

	upd sync.Mutex // one update at a time; guards gens, closed and warned
	// gens are the generations of names' checkouts when the root last
	// refreshed (or was opened): the poll updates it when the store's
	// differ.
	gens []int64
	// closed: an evicted union's root and source are closed.
	closed bool
	// warned is the last unusable generation the root's clients were
	// told of.
	warned string

	// Guarded by Repos.mu: holds counts its users, used is Repos.tick
	// at its last use, gone is closed once an evicted root is closed
	// (nil while it is not evicted).
	holds int
	used  uint64
	gone  chan struct{}
}

// union reports whether e is a union's.
func (e *repoRoot) union() bool { return Target(e.key).IsUnion() }

// display is the name of e in log lines: a repository, or a union's
// joined with " + ".
func (e *repoRoot) display() string { return strings.Join(e.names, " + ") }

// done reports whether e's checkout has ended, well or not.
func (e *repoRoot) done() bool {
	select {
	case <-e.ready:
		return true
	default:
		return false
	}
}

// NewRepos serves store's repositories through pool. The store reports
// through opts.Logf too (Store.SetLogf): a generation it cannot
// use is logged there once.
func NewRepos(store Store, pool *Pool, opts ReposOptions) *Repos {
	if opts.Poll <= 0 {
		opts.Poll = DefaultPoll
	}
	if opts.SafetyPoll <= 0 {
		opts.SafetyPoll = DefaultSafetyPoll
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.IndexOptions == nil {
		opts.IndexOptions = func(string) index.Options { return index.Options{} }
	}
	if opts.MaxUnions <= 0 {
		opts.MaxUnions = DefaultMaxUnions
	}
	if opts.MaxOpenRepos <= 0 {
		opts.MaxOpenRepos = DefaultMaxOpenRepos
	}
	store.SetLogf(opts.Logf)
	ctx, cancel := context.WithCancel(context.Background())
	rs := &Repos{store: store, pool: pool, opts: opts, ctx: ctx, cancel: cancel, done: make(chan struct{}),
		open: map[string]*repoRoot{}, cos: map[string]*sharedCheckout{}}
	go rs.follow()
	return rs
}

// MaxUnions is how many unions stay open (ReposOptions.MaxUnions).
func (rs *Repos) MaxUnions() int { return rs.opts.MaxUnions }

// MaxOpenRepos is how many repositories stay open
// (ReposOptions.MaxOpenRepos).
func (rs *Repos) MaxOpenRepos() int { return rs.opts.MaxOpenRepos }

// Root returns the root of repository name, checking it out and opening
// its index on first use (again after it was closed). The store being
// down fails the call, and the next call tries again. The caller holds
// the root until it calls release (once), and closes its sessions of the
// root before: a repository nobody holds may be closed to keep at most
// MaxOpenRepos open.
func (rs *Repos) Root(ctx context.Context, name string) (root *Root, release func(), err error) {
	e, err := rs.get(ctx, name, []string{name}, func() (StoreSource, error) {
		co, err := rs.checkoutOf(name)
		if err != nil {
			return nil, err
		}
		return &repoSource{Checkout: co, seen: co.Gen(), drop: func() error { return rs.dropCheckout(name) }}, nil
	})
	if err != nil {
		return nil, nil, err
	}
	var once sync.Once
	return e.root, func() { once.Do(func() { rs.release(e) }) }, nil
}

// Union returns the root of several repositories (two or more, at most
// pgstore.MaxUnionRepos) read as one tree, each under its name
// (pgstore.Union): a request across them gets one ranked, budgeted
// context. The caller holds the union until it calls release (once), and
// closes its sessions of the root before: a union nobody holds may be
// closed to keep at most MaxUnions open.
func (rs *Repos) Union(ctx context.Context, names []string) (root *Root, release func(), err error) {
	key := unionKey(names)
	sorted := Target(key).Names()
	if len(sorted) > pgstore.MaxUnionRepos {
		return nil, nil, fmt.Errorf("a union reads at most %d repositories (got %d)", pgstore.MaxUnionRepos, len(sorted))
	}
	e, err := rs.get(ctx, key, sorted, func() (StoreSource, error) {
		var parts []*pgstore.Checkout
		drop := func() error {
			var errs []error
			for _, n := range sorted[:len(parts)] {
				errs = append(errs, rs.dropCheckout(n))
			}
			return errors.Join(errs...)
		}
		for _, n := range sorted {
			co, err := rs.checkoutOf(n)
			if err != nil {
				drop() //nolint:errcheck // the checkout's error is the one to report
				return nil, err
			}
			parts = append(parts, co)
		}
		u, err := pgstore.NewUnion(parts, rs.opts.Parent)
		if err != nil {
			drop() //nolint:errcheck // the union's error is the one to report
			return nil, err
		}
		// The union's chunks come from its repositories' own indexes (each
		// opened from its checkout's image), not a round trip to the store
		// per file: a repository's new generation costs the union that
		// repository's changed files, read here. The union holds their
		// roots while it is open, so that the bound on open repositories
		// does not close an index it reads.
		var held []func()
		letGo := func() error {
			for _, h := range held {
				h()
			}
			return drop()
		}
		indexes := map[string]func() *index.Index{}
		for _, n := range sorted {
			r, release, err := rs.Root(rs.ctx, n)
			if err != nil {
				continue // its files are read from the store
			}
			held = append(held, release)
			select {
			case <-r.Built():
			case <-rs.ctx.Done():
				u.Close() //nolint:errcheck // closing on the way out
				letGo()   //nolint:errcheck // closing on the way out
				return nil, rs.ctx.Err()
			}
			indexes[n] = r.liveIndex
		}
		u.SetLocal(IndexChunks(indexes))
		return &unionSource{Union: u, drop: letGo}, nil
	})
	if err != nil {
		return nil, nil, err
	}
	var once sync.Once
	return e.root, func() { once.Do(func() { rs.release(e) }) }, nil
}

// get returns the open source of key (a repository, or a union of
// names), checking it out on first use, held (release).
func (rs *Repos) get(ctx context.Context, key string, names []string, open func() (StoreSource, error)) (*repoRoot, error) {
	for {
		rs.mu.Lock()
		if rs.open == nil {
			rs.mu.Unlock()
			return nil, ErrClosed
		}
		e, ok := rs.open[key]
		if ok && e.gone != nil {
			// Being closed: wait, then open it anew.
			gone := e.gone
			rs.mu.Unlock()
			select {
			case <-gone:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		var evicted []*repoRoot
		if !ok {
			e = &repoRoot{key: key, names: names, ready: make(chan struct{})}
			rs.open[key] = e
			go rs.checkout(e, open)
		}
		rs.tick++
		e.holds, e.used = e.holds+1, rs.tick
		if !ok {
			evicted = rs.evictLocked()
		}
		rs.mu.Unlock()
		go rs.closeEvicted(evicted)
		select {
		case <-e.ready:
		case <-ctx.Done():
			rs.release(e)
			return nil, ctx.Err()
		}
		if e.err != nil {
			rs.release(e)
			return nil, e.err
		}
		return e, nil
	}
}

// release lets go of a hold on a repository or union, and closes what is
// over the bounds.
func (rs *Repos) release(e *repoRoot) {
	rs.mu.Lock()
	e.holds--
	var evicted []*repoRoot
	if rs.open != nil {
		evicted = rs.evictLocked()
	}
	rs.mu.Unlock()
	go rs.closeEvicted(evicted)
}

// evictLocked marks for closing the repositories and the unions nobody
// holds, least recently used first, until at most MaxOpenRepos
// repositories and MaxUnions unions are open (or none is left to close),
// and returns them; closeEvicted closes them. rs.mu is held.
func (rs *Repos) evictLocked() []*repoRoot {
	var out []*repoRoot
	for _, union := range []bool{false, true} {
		limit := rs.opts.MaxOpenRepos
		if union {
			limit = rs.opts.MaxUnions
		}
		n := 0
		var idle []*repoRoot
		for _, e := range rs.open {
			if e.union() != union || e.gone != nil {
				continue
			}
			n++
			if e.holds == 0 && e.done() && e.err == nil {
				idle = append(idle, e)
			}
		}
		slices.SortFunc(idle, func(a, b *repoRoot) int { return cmp.Compare(a.used, b.used) })
		for _, e := range idle {
			if n <= limit {
				break
			}
			e.gone = make(chan struct{})
			out = append(out, e)
			n--
		}
	}
	return out
}

// closeEvicted closes evicted repositories and unions: their roots
// released (their indexes closed), their checkouts let go of, a union's
// directory removed, then forgotten. It runs on a goroutine of its own:
// a request does not wait for another's index to close; one for an
// evicted root waits (get), and so does Close.
func (rs *Repos) closeEvicted(evicted []*repoRoot) {
	for _, e := range evicted {
		e.upd.Lock() // not while the poll refreshes it
		e.closed = true
		err := errors.Join(e.root.Release(), e.src.Close())
		if d, ok := e.src.(interface{ Discard() error }); ok && err == nil {
			err = d.Discard()
		}
		e.upd.Unlock()
		if err != nil {
			rs.opts.Logf("%s: %v", e.display(), err)
		}
		rs.mu.Lock()
		if rs.open != nil && rs.open[e.key] == e {
			delete(rs.open, e.key)
		}
		rs.mu.Unlock()
		close(e.gone)
		if e.union() {
			rs.opts.Logf("%s: closed (unused, beyond the %d unions kept open)", e.display(), rs.opts.MaxUnions)
		} else {
			rs.opts.Logf("%s: closed (unused, beyond the %d repositories kept open; reopened from its checkout when asked)", e.display(), rs.opts.MaxOpenRepos)
		}
	}
}

// checkout opens the source and acquires its root; a failure is
// forgotten, so that the next request tries again.
func (rs *Repos) checkout(e *repoRoot, open func() (StoreSource, error)) {
	defer close(e.ready)
	key := e.key
	opts := rs.opts.IndexOptions(strings.TrimPrefix(key, unionMark))
	name := Target(key).String()
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
	e.gens = rs.generations(e.names)
	root, _ := src.Dirs()
	// A union has no history of its own; a repository came with its own.
	// A union's vectors are its repositories' (UnionVectors).
	ro := RootOptions{HistoryFromCache: !e.union()}
	if e.union() {
		names := e.names
		ro.NoHistory = UnionHistoryNote
		dir := UnionVectorDir(src)
		ro.Vectors = func(ctx context.Context, snap *index.Snapshot) (*semantic.Store, error) {
			return UnionVectors(ctx, snap, names, &rs.vparts, dir)
		}
	}
	e.root = rs.pool.Acquire(root, opts, ro)
	rs.opts.Logf("%s: checked out", name)
}

// generations returns the generations of names' checkouts (0 for one not
// checked out).
func (rs *Repos) generations(names []string) []int64 {
	rs.mu.Lock()
	cos := make([]*sharedCheckout, len(names))
	for i, n := range names {
		cos[i] = rs.cos[n]
	}
	rs.mu.Unlock()
	out := make([]int64, len(names))
	for i, sc := range cos {
		if sc == nil {
			continue
		}
		select {
		case <-sc.ready:
			if sc.err == nil {
				out[i] = sc.co.Gen()
			}
		default:
		}
	}
	return out
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
	// heard is sent true once the notifications are listened to (a poll
	// then catches up with what was missed), false when that ends.
	heard := make(chan bool, 1)
	say := func(ok bool) {
		select {
		case heard <- ok:
		case <-rs.ctx.Done():
		}
	}
	go func() {
		for rs.ctx.Err() == nil {
			err := rs.store.Listen(rs.ctx, func() { say(true) }, func(repo string) {
				select {
				case notes <- repo:
				default: // lost: the poll after an overflow catches up
					select {
					case notes <- "":
					default:
					}
				}
			})
			if rs.ctx.Err() == nil {
				say(false)
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
	failing, listening := false, false
	last := time.Now()
	for {
		select {
		case <-rs.ctx.Done():
			return
		case repo := <-notes:
			if repo == "" {
				failing, last = rs.poll(failing), time.Now()
				continue
			}
			rs.update(repo)
		case listening = <-heard:
			if listening {
				failing, last = rs.poll(failing), time.Now()
			}
		case <-tick.C:
			if !listening || failing || time.Since(last) >= rs.opts.SafetyPoll || rs.incomplete() {
				failing, last = rs.poll(failing), time.Now()
			}
		}
	}
}

// poll brings the open sources whose repositories moved to their current
// generations: one statement lists the store's generations, whatever is
// open, and only a source that is behind is updated. failing says whether
// the last poll failed; poll returns whether this one did (a failure is
// logged once, not at every poll).
func (rs *Repos) poll(failing bool) bool {
	open := rs.openRoots()
	if len(open) == 0 {
		return failing
	}
	infos, err := rs.store.Repos(rs.ctx, nil)
	if err != nil {
		if !failing && rs.ctx.Err() == nil {
			rs.opts.Logf("store poll: %v (the open repositories stay at their generations until it answers)", err)
		}
		return true
	}
	if failing {
		rs.opts.Logf("store poll: the store answers again")
	}
	gens := make(map[string]int64, len(infos))
	for _, r := range infos {
		gens[r.Name] = r.Generation
	}
	for _, e := range open {
		e.upd.Lock()
		behind := false
		for i, n := range e.names {
			if g, ok := gens[n]; !ok || g != e.gens[i] {
				behind = true
			}
		}
		e.upd.Unlock()
		if behind {
			rs.updateRoot(e)
		}
		rs.retryUnavailable(e)
	}
	return false
}

// retryUnavailable indexes again, the store answering, the files e's
// index left out because the store could not be read when it built them
// (index.ErrUnavailable: a union's chunks are read from the store as it
// is built): until then its answers say they are not complete.
func (rs *Repos) retryUnavailable(e *repoRoot) {
	e.upd.Lock()
	defer e.upd.Unlock()
	if e.closed || e.root.unavailable() == 0 {
		return
	}
	n := e.root.unavailable()
	if _, err := e.root.Index().Refresh(rs.ctx); err != nil {
		if rs.ctx.Err() == nil {
			rs.opts.Logf("%s: index the %d files the store could not give: %v", e.display(), n, err)
		}
		return
	}
	if left := e.root.unavailable(); left > 0 {
		rs.opts.Logf("%s: %d of the %d files the store could not give are still left out (tried again at the next poll)", e.display(), left, n)
		return
	}
	rs.opts.Logf("%s: the %d files the store could not give are indexed: the index is complete", e.display(), n)
}

// incomplete reports whether an open root's index left out files the
// store could not give (retryUnavailable tries them at each poll).
func (rs *Repos) incomplete() bool {
	for _, e := range rs.openRoots() {
		e.upd.Lock()
		n := 0
		if !e.closed {
			n = e.root.unavailable()
		}
		e.upd.Unlock()
		if n > 0 {
			return true
		}
	}
	return false
}

// openRoots lists the open sources: the repositories' by name, then the
// unions' by key.
func (rs *Repos) openRoots() []*repoRoot {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	var out []*repoRoot
	for _, e := range rs.open {
		if e.done() && e.err == nil && e.gone == nil {
			out = append(out, e)
		}
	}
	// Repositories first, then unions: a union reads its repositories'
	// chunks from their indexes, brought to a new generation first.
	slices.SortFunc(out, func(a, b *repoRoot) int {
		if a.union() != b.union() {
			if a.union() {
				return 1
			}
			return -1
		}
		return strings.Compare(a.key, b.key)
	})
	return out
}

// update brings the sources that hold repository repo (its own, and the
// unions it is in) to their current generations.
func (rs *Repos) update(repo string) {
	for _, e := range rs.openRoots() {
		if slices.Contains(e.names, repo) {
			rs.updateRoot(e)
		}
	}
}

// updateRoot brings one open source and its index to the current
// generations (nothing when nothing moved).
func (rs *Repos) updateRoot(e *repoRoot) {
	e.upd.Lock()
	defer e.upd.Unlock()
	if e.closed {
		return
	}
	name := e.display()
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
	e.gens = rs.generations(e.names)
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
		if e.gone != nil {
			<-e.gone // closed by its eviction
			continue
		}
		if e.err == nil {
			e.upd.Lock()
			e.closed = true
			errs = append(errs, e.root.Release(), e.src.Close())
			e.upd.Unlock()
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
