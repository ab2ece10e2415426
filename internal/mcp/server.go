package mcp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/internal/retrieve"
	"github.com/ctxls/ctxls/internal/tokens"
	"github.com/ctxls/ctxls/internal/workspace"
)

// DefaultIndexWait is how long a call waits for a root's first index build
// before it answers from what is indexed so far.
const DefaultIndexWait = 2 * time.Second

// Options configure a Server.
type Options struct {
	Engine *retrieve.Engine
	Tokens *tokens.Registry
	// IndexOptions returns the index options of a root (cache directory,
	// lock policy, token counters).
	IndexOptions func(root string) workspace.IndexOptions
	// Roots are the roots the server serves (clean absolute paths). Empty:
	// the client's roots when ClientRoots is set and the client offers
	// them, else WorkDir.
	Roots []string
	// ClientRoots lets a server started without Roots use the client's
	// roots (roots/list). Off for network faces, which serve only the roots
	// they were started with.
	ClientRoots bool
	// WorkDir is the root when there is no other (default: the working
	// directory).
	WorkDir string
	// IndexWait bounds how long a call waits for a root's first build; 0
	// means DefaultIndexWait, negative means not at all.
	IndexWait time.Duration
	// NoWatch turns off watching the roots: each call refreshes the index
	// first instead.
	NoWatch bool
	// NoGitHistory keeps the roots' git history out of retrieval (and git
	// from being run).
	NoGitHistory bool
	// Embeddings is the semantic channel's mode (workspace.EmbeddingsWorkspace
	// or ModeOff; "": workspace.EmbeddingsDefault).
	Embeddings string
	// EmbeddingsEndpoint is the service of mode "endpoint".
	EmbeddingsEndpoint *workspace.EndpointConfig
	// Repos, when set, serves a store's repositories instead of
	// directories: a call names its repository (the repo argument), and
	// reads only those its token grants (Grant). Roots and ClientRoots
	// are then unused.
	Repos *workspace.Repos
	// Pool shares roots with the process's other faces (one Root per
	// directory; the Repos' pool); nil gives the server a pool of its own.
	Pool *workspace.Pool
	// Grant returns what a call may read on a server of Repos: nil
	// grants every repository (a stdio server, whose user holds the
	// store's URL); an error refuses the call.
	Grant   func(req *sdk.CallToolRequest) (*workspace.Grant, error)
	Logf    func(format string, args ...any)
	Version string
}

// Server is the MCP server: the tools, over one workspace per root shared
// by every client session.
type Server struct {
	opts   Options
	sdk    *sdk.Server
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	closed   bool
	pool     *workspace.Pool
	spaces   map[string]*space
	sessions map[*sdk.ServerSession]*sessionRoots
	clients  map[*sdk.ServerSession]*clientState
	// tick counts the uses of unions' spaces (space.used), for their
	// order; evicting counts the unions' spaces being closed.
	tick     uint64
	evicting sync.WaitGroup
}

// New creates a server. Start opens the fixed roots' indexes; tools open
// the others on first use.
func New(opts Options) (*Server, error) {
	if opts.Engine == nil || opts.Tokens == nil {
		return nil, errors.New("mcp: Options.Engine and Options.Tokens are required")
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.IndexOptions == nil {
		opts.IndexOptions = func(string) workspace.IndexOptions { return workspace.IndexOptions{} }
	}
	if opts.IndexWait == 0 {
		opts.IndexWait = DefaultIndexWait
	}
	if opts.Pool == nil {
		opts.Pool = workspace.NewPool(opts.Logf)
	}
	if opts.WorkDir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("mcp: working directory: %w", err)
		}
		opts.WorkDir = wd
	}
	roots := make([]string, 0, len(opts.Roots))
	for _, r := range opts.Roots {
		dir, err := rootDir(r)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(roots, dir) {
			roots = append(roots, dir)
		}
	}
	opts.Roots = roots
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{opts: opts, ctx: ctx, cancel: cancel,
		pool: opts.Pool, spaces: map[string]*space{}, sessions: map[*sdk.ServerSession]*sessionRoots{},
		clients: map[*sdk.ServerSession]*clientState{}}
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: "ctxls", Title: "ctxls context engine", Version: opts.Version},
		&sdk.ServerOptions{
			Instructions:       instructions,
			InitializedHandler: s.initialized,
			// The deprecated roots feature is still what clients send.
			RootsListChangedHandler: s.rootsChanged, //lint:ignore SA1019 roots are what today's clients offer
			Capabilities:            capabilities(),
		})
	if err := s.addTools(); err != nil {
		return nil, err
	}
	s.sdk.AddReceivingMiddleware(s.tellWarnings)
	return s, nil
}

// instructions tell the model what the server is for.
const instructions = `ctxls picks the code of this workspace a model should read for a task, within a token budget.
Call assemble_context with the question (query), the cursor (focus "path:line") or the change (diff or diff_rev) before reading files one by one: it returns ranked, deduplicated code that never exceeds budget.maxTokens. Candidates that did not fit are listed with handles: pass them to expand_context to read them. find_symbol finds where a name is defined (and used). find_references lists where a symbol is used (exact for Go), impact what a change reaches. index_status tells whether indexing is complete.`

// SDK returns the underlying SDK server, to run on a transport.
func (s *Server) SDK() *sdk.Server { return s.sdk }

// Start opens the indexes of the fixed roots in the background, so that the
// first call finds them open.
func (s *Server) Start() {
	if s.opts.Repos != nil {
		return // repositories are checked out on first use
	}
	roots := s.opts.Roots
	if len(roots) == 0 && !s.opts.ClientRoots {
		roots = []string{s.opts.WorkDir}
	}
	for _, r := range roots {
		if _, err := s.workspace(s.ctx, r); err != nil {
			s.opts.Logf("%v", err)
		}
	}
}

// Close closes every workspace (checkpointing their indexes).
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	spaces := make([]*space, 0, len(s.spaces))
	for _, w := range s.spaces {
		spaces = append(spaces, w)
	}
	s.mu.Unlock()
	slices.SortFunc(spaces, func(a, b *space) int { return strings.Compare(a.name, b.name) })
	var errs []error
	for _, w := range spaces {
		errs = append(errs, w.close())
	}
	s.evicting.Wait()
	if s.opts.Repos != nil {
		errs = append(errs, s.opts.Repos.Close())
	}
	s.cancel()
	return errors.Join(errs...)
}

// workspace returns root's workspace (a repository's, on a server of a
// store), opening it on first use.
func (s *Server) workspace(ctx context.Context, root string) (*space, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errClosed
	}
	if w, ok := s.spaces[root]; ok {
		s.tick++
		w.used = s.tick
		s.mu.Unlock()
		return w, nil
	}
	if s.opts.Repos == nil {
		defer s.mu.Unlock()
		ro := workspace.RootOptions{Watch: !s.opts.NoWatch, RefreshEach: s.opts.NoWatch}
		r := s.pool.Acquire(root, s.opts.IndexOptions(root), ro)
		sp := &space{name: root, root: r, sess: r.NewSession(maxHeld)}
		s.spaces[root] = sp
		return sp, nil
	}
	s.mu.Unlock()
	// A repository (or a union of several: workspace.Target): its
	// checkout may take a while, without the lock.
	t := workspace.Target(root)
	union := t.IsUnion()
	r, release, err := s.opts.Repos.Open(ctx, t)
	if err != nil {
		return nil, storeErr(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if w, ok := s.spaces[root]; ok || s.closed {
		if release != nil {
			release() // another call's space holds the union
		}
		if s.closed {
			return nil, errClosed
		}
		return w, nil
	}
	s.tick++
	sp := &space{name: root, root: r, sess: r.NewSession(maxHeld), repo: true, union: union, release: release, used: s.tick}
	if union {
		s.evictLocked(true, s.opts.Repos.MaxUnions()-1)
	} else {
		s.evictLocked(false, s.opts.Repos.MaxOpenRepos()-1)
	}
	s.spaces[root] = sp
	return sp, nil
}

// evictLocked closes the spaces of the least recently used unions (union)
// or repositories of the store until at most keep are open: the process
// keeps a bounded number of each (workspace.Repos), and these spaces hold
// theirs. A call reading an evicted space finishes first; one that had
// not begun opens the union or repository again. s.mu is held.
func (s *Server) evictLocked(union bool, keep int) {
	for {
		var unions []*space
		for _, sp := range s.spaces {
			if sp.repo && sp.union == union {
				unions = append(unions, sp)
			}
		}
		if len(unions) <= keep {
			return
		}
		old := slices.MinFunc(unions, func(a, b *space) int { return cmp.Compare(a.used, b.used) })
		delete(s.spaces, old.name)
		old.evicted.Store(true)
		s.evicting.Add(1)
		go func() {
			defer s.evicting.Done()
			if err := old.close(); err != nil {
				s.opts.Logf("%v", err)
			}
		}()
	}
}

// callable is what a call may read: roots, and on a server of a store
// whose list of repositories could not be read, why (down) and the
// grant. Then roots are only the repositories checked out here that the
// token may read: a repository named that is not among them may exist,
// and '*' or a call naming none cannot be resolved.
type callable struct {
	roots []string
	down  error
	grant *workspace.Grant // nil: every repository (a stdio server)
}

// callRoots returns the roots a call may read: the repositories its
// token grants on a server of a store, else the session's roots.
func (s *Server) callRoots(ctx context.Context, req *sdk.CallToolRequest) (callable, error) {
	if s.opts.Repos == nil {
		roots, err := s.roots(ctx, req.Session)
		return callable{roots: roots}, err
	}
	g, err := s.grant(req)
	if err != nil {
		return callable{}, err
	}
	list, err := s.opts.Repos.List(ctx, g)
	if err != nil {
		// The store down: the repositories checked out here still
		// answer, from their last generation; what else the token may
		// read is not known.
		open := s.openRepos(g)
		if len(open) == 0 {
			return callable{}, storeErr(err)
		}
		s.opts.Logf("the index store cannot be read (%v): answering from the %d repositories checked out", err, len(open))
		c := callable{roots: open, down: err, grant: g}
		if g != nil && !slices.Contains(g.Repos, workspace.AllRepos) && len(g.Repos) == len(open) {
			c.down = nil // every repository the token names is here
		}
		return c, nil
	}
	out := make([]string, 0, len(list))
	for _, r := range list {
		out = append(out, r.Name)
	}
	if len(out) == 0 {
		return callable{}, errors.New("no repository to read: the store has none this token may read (list_repos)")
	}
	return callable{roots: out}, nil
}

// unknown is the error for a repository the call named that is not among
// c's roots: with the store down, one the token may read (it may exist)
// is the store's failure, not a refusal.
func (c callable) unknown(arg, name string) error {
	if c.down != nil && (c.grant == nil || c.grant.Allows(name)) {
		return storeErr(c.down)
	}
	return argError(arg, "%q is not a repository this token may read (list_repos lists them)", name)
}

// openRepos returns the repositories checked out here (their own or a
// union's) that g may read (nil: every one), by name.
func (s *Server) openRepos(g *workspace.Grant) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for key, sp := range s.spaces {
		if !sp.repo {
			continue
		}
		// A union's repositories are checked out too.
		for _, name := range workspace.Target(key).Names() {
			if g == nil || g.Allows(name) {
				out = append(out, name)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// grant is what a call may read on a server of a store.
func (s *Server) grant(req *sdk.CallToolRequest) (*workspace.Grant, error) {
	if s.opts.Grant == nil {
		return nil, nil
	}
	return s.opts.Grant(req)
}

// pick is pickRoot, except that on a server of a store a call that may
// read several repositories names one (and, with the store down, a call
// that names none is answered only when the token's repositories are all
// checked out here).
func (s *Server) pick(c callable, arg, absPath string) (string, error) {
	roots := c.roots
	if s.opts.Repos != nil {
		if arg == "" && c.down != nil {
			return "", fmt.Errorf("%w; name the repository to read one checked out here", storeErr(c.down))
		}
		if arg == "" && len(roots) > 1 {
			return "", argError("repo", "name the repository: one of %s", strings.Join(roots, ", "))
		}
		if arg != "" && !slices.Contains(roots, arg) {
			return "", c.unknown("repo", arg)
		}
		if arg == "" {
			return roots[0], nil
		}
		return arg, nil
	}
	return pickRoot(roots, arg, absPath)
}

// target picks the root a call reads from its root, repo and repos
// arguments (repos: pickRepos; root or repo: pick) and, for pick, an
// absolute path the call names.
func (s *Server) target(c callable, root, repo string, repos []string, absPath string) (string, error) {
	switch {
	case len(repos) > 0 && (repo != "" || root != ""):
		return "", argError("repos", "give repo or repos, not both")
	case len(repos) > 0:
		return s.pickRepos(c, repos)
	}
	return s.pick(c, cmp.Or(repo, root), absPath)
}

// pickRepos resolves a call's repos argument on a server of a store: the
// repositories named ('*': every one the call may read), each one it may
// read. One repository is its name; several are a union's key. With the
// store down, '*' is its failure: the repositories checked out here are
// not known to be all the token may read.
func (s *Server) pickRepos(c callable, repos []string) (string, error) {
	if s.opts.Repos == nil {
		return "", argError("repos", "this server reads directories, not an index store's repositories: use root")
	}
	if c.down != nil && slices.Contains(repos, workspace.AllRepos) {
		return "", fmt.Errorf("%w; '*' needs the store's list of repositories: name those to read", storeErr(c.down))
	}
	names, err := workspace.ResolveRepos(repos, func() ([]string, error) { return c.roots, nil })
	if err != nil {
		return "", argError("repos", "%v", err)
	}
	for _, r := range names {
		if !slices.Contains(c.roots, r) {
			return "", c.unknown("repos", r)
		}
	}
	return string(workspace.UnionTarget(names)), nil
}

// displayRoot is what a result says it read: a directory, a repository,
// or the repositories of a union joined by " + ".
func displayRoot(key string) string { return workspace.Target(key).String() }

// storeErr says what a store's failure means for a call: the repository
// is unknown, what the store holds for it cannot be used (and why), or it
// cannot be read now (the store is down).
func storeErr(err error) error {
	if errors.Is(err, workspace.ErrNoRepo) {
		return fmt.Errorf("%w (list_repos lists those this token may read)", err)
	}
	if errors.Is(err, workspace.ErrUnusable) {
		return fmt.Errorf("the index store's content for this repository cannot be used: %w", err)
	}
	if errors.Is(err, workspace.ErrUnreachable) {
		return err // says so, naming the store
	}
	return fmt.Errorf("the index store cannot be read now: %w (try again shortly)", err)
}

// sessionRoots are a client's roots, as last listed.
type sessionRoots struct {
	done  chan struct{} // closed once roots is set
	roots []string
}

// initialized lists the client's roots once the session is initialized
// (a server may not ask the client while serving its request on the
// newest protocol; clients of that protocol do not offer roots).
func (s *Server) initialized(_ context.Context, req *sdk.InitializedRequest) {
	if s.opts.ClientRoots && len(s.opts.Roots) == 0 && clientHasRoots(req.Session) {
		s.listRoots(req.Session)
	}
}

// rootsChanged lists a session's roots again.
func (s *Server) rootsChanged(_ context.Context, req *sdk.RootsListChangedRequest) {
	if s.opts.ClientRoots && len(s.opts.Roots) == 0 {
		s.listRoots(req.Session)
	}
}

// listRoots asks the client for its roots in the background; calls wait
// for the answer.
func (s *Server) listRoots(ss *sdk.ServerSession) {
	sr := &sessionRoots{done: make(chan struct{})}
	s.mu.Lock()
	_, known := s.sessions[ss]
	s.sessions[ss] = sr
	s.mu.Unlock()
	if !known {
		go func() { // forget the session when it ends
			ss.Wait()
			s.mu.Lock()
			delete(s.sessions, ss)
			s.mu.Unlock()
		}()
	}
	go func() {
		defer close(sr.done)
		ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
		defer cancel()
		//lint:ignore SA1019 roots are what clients of the protocol versions before 2026-07-28 offer (docs/mcp.md)
		res, err := ss.ListRoots(ctx, nil)
		if err != nil {
			s.opts.Logf("roots/list: %v; serving the working directory %s", err, s.opts.WorkDir)
			return
		}
		for _, r := range res.Roots {
			dir, err := rootFromURI(r.URI)
			if err != nil {
				s.opts.Logf("client root %s left out: %v", r.URI, err)
				continue
			}
			if !slices.Contains(sr.roots, dir) {
				sr.roots = append(sr.roots, dir)
			}
		}
		for _, r := range sr.roots {
			if _, err := s.workspace(s.ctx, r); err != nil {
				s.opts.Logf("%v", err)
			}
		}
	}()
}

// roots returns the roots a session's calls may read, in order (the first
// is the default).
func (s *Server) roots(ctx context.Context, ss *sdk.ServerSession) ([]string, error) {
	if len(s.opts.Roots) > 0 {
		return s.opts.Roots, nil
	}
	s.mu.Lock()
	sr := s.sessions[ss]
	s.mu.Unlock()
	if sr == nil {
		return []string{s.opts.WorkDir}, nil
	}
	select {
	case <-sr.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if len(sr.roots) == 0 {
		return []string{s.opts.WorkDir}, nil
	}
	return sr.roots, nil
}

func clientHasRoots(ss *sdk.ServerSession) bool {
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil {
		return false
	}
	//lint:ignore SA1019 roots are what today's clients offer
	return p.Capabilities.RootsV2 != nil || p.Capabilities.Roots.ListChanged
}

// rootDir makes a root a clean absolute directory path, symlinks resolved.
func rootDir(r string) (string, error) {
	abs, err := filepath.Abs(r)
	if err != nil {
		return "", fmt.Errorf("root %s: %w", r, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("root %s: %w", r, err)
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("root %s: %w", r, err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("root %s: not a directory", r)
	}
	return real, nil
}

// rootFromURI reads a client root: a file: URI of a local directory.
func rootFromURI(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", err
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("not a file: URI")
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", fmt.Errorf("a remote host (%s)", u.Host)
	}
	return rootDir(filepath.FromSlash(u.Path))
}

// pickRoot chooses the root a call reads: the one named by the root
// argument (a path, or a root's base name), else the one holding an
// absolute path the call names, else the first.
func pickRoot(roots []string, arg, absPath string) (string, error) {
	if arg != "" {
		for _, r := range roots {
			if r == arg || filepath.Base(r) == arg {
				return r, nil
			}
		}
		if dir, err := rootDir(arg); err == nil && slices.Contains(roots, dir) {
			return dir, nil
		}
		return "", argError("root", "%q is not one of the roots: %s", arg, strings.Join(roots, ", "))
	}
	if absPath != "" {
		p := absPath
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		for _, r := range roots {
			if inside(r, p) {
				return r, nil
			}
		}
	}
	return roots[0], nil
}

// inside reports whether p is root or below it.
func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
