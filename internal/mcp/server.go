package mcp

import (
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

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/retrieve"
	"github.com/ctxls/ctxls/internal/semantic"
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
	IndexOptions func(root string) index.Options
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
	// Embeddings is the semantic channel's mode (semantic.ModeWorkspace
	// or ModeOff; "": semantic.DefaultMode).
	Embeddings string
	// EmbeddingsEndpoint is the service of mode "endpoint".
	EmbeddingsEndpoint *semantic.EndpointConfig
	Logf               func(format string, args ...any)
	Version            string
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
		opts.IndexOptions = func(string) index.Options { return index.Options{} }
	}
	if opts.IndexWait == 0 {
		opts.IndexWait = DefaultIndexWait
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
		pool: workspace.NewPool(opts.Logf), spaces: map[string]*space{}, sessions: map[*sdk.ServerSession]*sessionRoots{},
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
Call assemble_context with the question (query), the cursor (focus "path:line") or the change (diff or diff_rev) before reading files one by one: it returns ranked, deduplicated code that never exceeds budget.maxTokens. Candidates that did not fit are listed with handles: pass them to expand_context to read them. find_symbol finds where a name is defined (and used). index_status tells whether indexing is complete.`

// SDK returns the underlying SDK server, to run on a transport.
func (s *Server) SDK() *sdk.Server { return s.sdk }

// Start opens the indexes of the fixed roots in the background, so that the
// first call finds them open.
func (s *Server) Start() {
	roots := s.opts.Roots
	if len(roots) == 0 && !s.opts.ClientRoots {
		roots = []string{s.opts.WorkDir}
	}
	for _, r := range roots {
		if _, err := s.workspace(r); err != nil {
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
	slices.SortFunc(spaces, func(a, b *space) int { return strings.Compare(a.root.Path(), b.root.Path()) })
	var errs []error
	for _, w := range spaces {
		errs = append(errs, w.close())
	}
	s.cancel()
	return errors.Join(errs...)
}

// workspace returns root's workspace, opening it on first use.
func (s *Server) workspace(root string) (*space, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errClosed
	}
	if w, ok := s.spaces[root]; ok {
		return w, nil
	}
	ro := workspace.RootOptions{Watch: !s.opts.NoWatch, RefreshEach: s.opts.NoWatch}
	r := s.pool.Acquire(root, s.opts.IndexOptions(root), ro)
	sp := &space{root: r, sess: r.NewSession(maxHeld)}
	s.spaces[root] = sp
	return sp, nil
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
			if _, err := s.workspace(r); err != nil {
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
