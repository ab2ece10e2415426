package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/retrieve"
	"github.com/ctxls/ctxls/internal/tokens"
	"github.com/ctxls/ctxls/internal/workspace"
)

// Engine answers context requests over one index snapshot.
// *retrieve.Engine implements it; tests use fakes.
type Engine interface {
	// Plan checks and normalises req before the request waits for an
	// index, once; bad parameters are *assemble.ParamError.
	Plan(req retrieve.Request) (*retrieve.Plan, error)
	// PlanExpand checks an expand request the same way.
	PlanExpand(req retrieve.ExpandRequest) (*retrieve.ExpandPlan, error)
	// AssemblePlan retrieves and assembles context for a plan. A focus
	// the snapshot refuses is *assemble.ParamError.
	AssemblePlan(ctx context.Context, snap *workspace.Snapshot, p *retrieve.Plan) (*retrieve.Response, error)
	// ExpandPlan returns the parts a checked expand request names in
	// full, under its budget.
	ExpandPlan(ctx context.Context, snap *workspace.Snapshot, p *retrieve.ExpandPlan) (*assemble.Result, error)
}

// Options configure Serve.
type Options struct {
	// Engine answers context/assemble and context/expand. Required.
	Engine Engine
	// Tokens lists the encodings advertised and checks the encoding
	// setting; nil means tokens.NewRegistry(). Share the engine's.
	Tokens *tokens.Registry
	// IndexOptions returns the index options of a workspace folder (lister,
	// chunker, token counters, cache directory, …). Serve overrides
	// Background (always true), wraps Progress and Logf, and sets CacheDir
	// from the cacheDir setting when that is set. Nil means
	// workspace.IndexOptions{}.
	IndexOptions func(root string) workspace.IndexOptions
	// Logf receives the server's log (stderr in ctxls serve); nil discards
	// it. Notable events also go to the client as window/logMessage.
	Logf func(format string, args ...any)
	// Version is reported in initialize's serverInfo.
	Version string
	// HeldStates is how many index states per folder are kept for
	// context/expand after the assemble that produced them; 0 means 4.
	HeldStates int
	// Access is the admission policy of a session on a network face (a
	// token in initialize, allowed workspace folders); nil (stdio) admits
	// the client as it is.
	Access *Access
	// Pool shares indexes among the sessions of the process (one per
	// root); nil gives the session a pool of its own.
	Pool *workspace.Pool
	// Embeddings is the semantic channel's mode when the client's
	// settings name none (ctxls serve --embeddings); "" means
	// workspace.EmbeddingsDefault.
	Embeddings string
	// EmbeddingsEndpoint is the embeddings service of mode "endpoint" when
	// the client's settings name none (ctxls serve --embeddings-endpoint …).
	EmbeddingsEndpoint *workspace.EndpointConfig
	// Repos, when set, serves a store's repositories instead of
	// directories (ctxls serve --store): a workspace folder names a
	// repository by its name, and context/assemble and context/expand may
	// name one with repo (or several with repos). On a network face the
	// token is the store's (Access.Grant).
	Repos *workspace.Repos
}

// Errors Serve returns.
var (
	// ErrExitWithoutShutdown: the client sent exit before shutdown (the
	// process should exit with status 1).
	ErrExitWithoutShutdown = errors.New("lsp: exit without shutdown")
	// ErrDisconnected: the connection closed before exit.
	ErrDisconnected = errors.New("lsp: connection closed before exit")
	// ErrRefused: the client did not present the token Options.Access
	// asks for; the session was answered with an error and closed.
	ErrRefused = errors.New("lsp: client refused")
	// ErrLimit: the connection was closed at a limit of a network face
	// (Options.Access): a frame over the size limit, a frame that did not
	// arrive in time, no initialize with the token in time. The error
	// names the limit.
	ErrLimit = errors.New("lsp: connection closed at a limit")
)

// Serve runs one language-server session over conn (LSP base protocol:
// Content-Length framed JSON-RPC 2.0) until the client sends exit, the
// connection closes or ctx is cancelled. It returns nil after shutdown and
// exit, ErrExitWithoutShutdown after an exit without shutdown,
// ErrDisconnected when the connection closed first, ErrRefused (with the
// reason) when Options.Access refused the client, an ErrLimit naming the
// limit when a limit of the network face closed the connection (see
// Access), and ctx's error when ctx was cancelled. All indexes the
// session opened are closed (and checkpointed to disk) before Serve
// returns.
func Serve(ctx context.Context, conn io.ReadWriteCloser, opts Options) error {
	if opts.Engine == nil {
		return errors.New("lsp: Options.Engine is required")
	}
	if opts.Pool == nil {
		opts.Pool = workspace.NewPool(opts.Logf)
	}
	s := newSession(opts)
	s.stream = newFrameStream(conn)
	if opts.Access != nil {
		s.stream.limitFrames(conn, opts.Access.frameTimeout())
	}
	c := jsonrpc2.NewConn(ctx, s.stream, s, jsonrpc2.SetLogger(logfLogger(s.logf)))
	s.conn.Store(c)
	if opts.Access != nil {
		// A client that has not presented the token within the
		// authentication timeout is closed: it holds a connection and
		// its buffers and has not proved it may.
		t := time.AfterFunc(opts.Access.authTimeout(), func() {
			if s.auth.CompareAndSwap(authPending, authTimedOut) {
				c.Close()
			}
		})
		defer t.Stop()
	}
	select {
	case <-c.DisconnectNotify():
	case <-ctx.Done():
		c.Close()
	case <-s.refusedC:
		// The refusal is answered and the write side closed: let the
		// client read it, then close.
		t := time.NewTimer(refusalLinger)
		select {
		case <-c.DisconnectNotify():
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
		c.Close()
	}
	s.closeAll()
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.refused != "":
		return fmt.Errorf("%w: %s", ErrRefused, s.refused)
	case s.auth.Load() == authTimedOut:
		return fmt.Errorf("%w: no initialize with the token within %v", ErrLimit, opts.Access.authTimeout())
	case s.stream.limitErr() != nil:
		return s.stream.limitErr()
	case s.exited && s.state == stateShutdown:
		return nil
	case s.exited:
		return ErrExitWithoutShutdown
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return ErrDisconnected
}

// logfLogger adapts a Logf to jsonrpc2.Logger.
type logfLogger func(format string, args ...any)

func (l logfLogger) Printf(format string, args ...any) { l(strings.TrimSuffix(format, "\n"), args...) }

// Values of session.auth.
const (
	authPending int32 = iota
	authAdmitted
	authTimedOut
)

// sessionState is where a session is in the LSP lifecycle.
type sessionState int

const (
	stateNew         sessionState = iota // before initialize
	stateInitialized                     // after initialize
	stateShutdown                        // after shutdown
)

// session is the state of one connection. Handlers run on the connection's
// read goroutine (notifications, initialize, $/cancelRequest: in arrival
// order) or on a goroutine of their own (other requests).
type session struct {
	opts   Options
	tokens *tokens.Registry
	logf   func(format string, args ...any)
	conn   atomic.Pointer[jsonrpc2.Conn]
	stream *frameStream // conn's; replies are written to it directly

	// ctx is cancelled when the session ends; background work derives
	// from it.
	ctx    context.Context
	cancel context.CancelFunc

	mu sync.Mutex // guards everything below
	// state is the lifecycle state; exited is set by exit.
	state  sessionState
	exited bool
	// clientReady: initialized arrived, so the server may call the client.
	clientReady bool
	caps        ClientCapabilities
	// initOptions are initialize's initializationOptions. settings is
	// defaults ⊕ initOptions ⊕ the last settings payload from the client
	// (pulled or pushed), replaced as a whole.
	initOptions []byte
	settings    Settings
	folders     []*folder // in the order the client gave them
	// grant is what the session may read of a store (Options.Repos): nil
	// is every repository (stdio, whose user holds the store's URL).
	// token is the store's token it was read for (Access.Grant), asked
	// again before requests (recheckGrant).
	grant *workspace.Grant
	token string
	// folderNotes say why the last workspace folders that could not be
	// opened were not (at most maxFolderNotes): a request that finds no
	// folder tells them.
	folderNotes []string
	// unionTick counts the uses of the unions of repositories opened
	// for requests (folder.used), for their order.
	unionTick uint64
	// docs holds the text of every open editor buffer, by its clean
	// absolute OS path.
	docs map[string]string
	// lastDoc is the path of the document opened or changed last: its
	// folder answers requests that name none.
	lastDoc string
	// act is the session's editing activity (open buffers, edited
	// ranges), for context/assemble's activity.
	act      activity
	inflight map[jsonrpc2.ID]context.CancelFunc
	nextTok  int // progress token counter
	closed   bool
	// refused is why the access policy refused the client ("" while it
	// is not); once it is set every message is dropped. refusedC is
	// closed when Serve is to let the client read the refusal, then close
	// (see refuse).
	refused  string
	refusedC chan struct{}
	// auth is where a client of a network face is in presenting the
	// token: authPending, then authAdmitted (admit) or authTimedOut (the
	// authentication timeout closed the connection).
	auth atomic.Int32
	bg   sync.WaitGroup // background goroutines (folder closing)
}

func newSession(opts Options) *session {
	if opts.Tokens == nil {
		opts.Tokens = tokens.NewRegistry()
	}
	if opts.HeldStates <= 0 {
		opts.HeldStates = 4
	}
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &session{
		opts: opts, tokens: opts.Tokens, logf: logf, ctx: ctx, cancel: cancel,
		settings: defaultSettings(),
		docs:     map[string]string{},
		inflight: map[jsonrpc2.ID]context.CancelFunc{},
		refusedC: make(chan struct{}),
	}
}

// Handle implements jsonrpc2.Handler. It runs on the connection's read
// goroutine, so it never waits for the client: requests other than
// initialize and shutdown run on goroutines of their own.
func (s *session) Handle(ctx context.Context, c *jsonrpc2.Conn, req *jsonrpc2.Request) {
	s.conn.Store(c)
	s.mu.Lock()
	refused := s.refused != ""
	s.mu.Unlock()
	if refused {
		return
	}
	if req.Notif {
		s.handleNotification(req)
		return
	}
	s.handleRequest(req)
}

// handleNotification runs a notification's handler in arrival order.
func (s *session) handleNotification(req *jsonrpc2.Request) {
	h := notificationHandler(req.Method)
	if h == nil {
		if !strings.HasPrefix(req.Method, "$/") && req.Method != methodDidSave {
			s.logf("ignoring notification %s", req.Method)
		}
		return
	}
	s.mu.Lock()
	state := s.state
	s.mu.Unlock()
	if state == stateNew && req.Method != methodExit {
		s.logf("ignoring %s before initialize", req.Method)
		return
	}
	defer s.recoverPanic(req.Method, nil)
	if err := h(s, rawParams(req)); err != nil {
		s.logf("%s: %v", req.Method, err)
		s.logMessage(messageTypeWarning, fmt.Sprintf("%s: %v", req.Method, err))
	}
}

// handleRequest checks the lifecycle state, then runs the request's handler
// (on the read goroutine when it must be ordered with what follows it, else
// on its own goroutine) and replies.
func (s *session) handleRequest(req *jsonrpc2.Request) {
	h, ordered := requestHandler(req.Method)
	if h == nil {
		s.reply(req, nil, rpcError(CodeMethodNotFound, "method not found: "+req.Method, nil))
		return
	}
	s.mu.Lock()
	state := s.state
	var refuse *jsonrpc2.Error
	switch {
	case state == stateNew && req.Method != methodInitialize:
		refuse = rpcError(CodeServerNotInitialized, req.Method+": the server is not initialized yet", nil)
	case state != stateNew && req.Method == methodInitialize:
		refuse = rpcError(CodeInvalidRequest, "initialize: the server is already initialized", nil)
	case state == stateShutdown:
		refuse = rpcError(CodeInvalidRequest, req.Method+": the server is shut down", nil)
	case s.closed:
		refuse = rpcError(CodeInvalidRequest, req.Method+": the session is closing", nil)
	}
	if refuse != nil {
		s.mu.Unlock()
		s.reply(req, nil, refuse)
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	s.inflight[req.ID] = cancel
	rc := &requestCtx{Context: ctx, barrier: s.barrierLocked(), docs: maps.Clone(s.docs), lastDoc: s.lastDoc, folderNotes: slices.Clone(s.folderNotes)}
	if req.Method == methodContextAssemble {
		rc.act = s.act.clone() // the only request that reads it
	}
	if !ordered {
		// The folders as they are now answer the request, even if a
		// shutdown or a folder change that follows it closes them before
		// it runs: each waits, before it closes, for the requests that
		// pinned it.
		rc.folders = pinFolders(s.folders)
	}
	s.mu.Unlock()

	run := func() {
		defer func() {
			s.mu.Lock()
			delete(s.inflight, req.ID)
			s.mu.Unlock()
			cancel()
			rc.unpin()
		}()
		defer s.recoverPanic(req.Method, func(e *jsonrpc2.Error) { s.reply(req, nil, e) })
		var result any
		var err error
		if !ordered {
			// Requests that read repositories: the token still grants
			// them (a revoked one ends the session).
			err = s.recheckGrant(rc)
		}
		if err == nil {
			result, err = h(s, rc, rawParams(req))
		}
		if err != nil {
			s.reply(req, nil, toRPCError(ctx, req.Method, err))
			if r := (*refusal)(nil); errors.As(err, &r) {
				s.refuse(r.Error())
			}
			return
		}
		s.reply(req, result, nil)
	}
	if ordered {
		run()
	} else {
		go run()
	}
}

// requestCtx is the context of one request: cancelled by $/cancelRequest
// or the end of the session. Everything else in it is the session as it
// was when the request arrived, so that the request is answered as the
// client meant it, whatever arrives after it: barrier holds, per folder,
// the number of changes enqueued then (the request answers from a state
// that includes them); docs are the open buffers then (the map is the
// request's; the texts are shared), against which the positions the
// request names are read; folders (pinned: see pinFolders) and lastDoc
// pick the folder that answers.
type requestCtx struct {
	context.Context
	barrier map[*folder]uint64
	docs    map[string]string
	folders []*folder // in the client's order; nil for ordered requests
	lastDoc string
	act     *activity // the session's activity when a context/assemble arrived
	// folderNotes say why workspace folders were not opened (see
	// session.folderNotes), for errNoFolder.
	folderNotes []string
}

// pinFolders pins every folder that can be pinned (see folder.pin) and
// returns them, in order.
func pinFolders(folders []*folder) []*folder {
	out := make([]*folder, 0, len(folders))
	for _, f := range folders {
		if f.pin() {
			out = append(out, f)
		}
	}
	return out
}

// unpin lets go of the request's folders.
func (rc *requestCtx) unpin() {
	for _, f := range rc.folders {
		f.unpin()
	}
	rc.folders = nil
}

// hold pins f for the request, which reads it though it was not open
// when the request arrived (a store's folder opened for it): closing it
// waits for the request.
func (rc *requestCtx) hold(f *folder) {
	if !slices.Contains(rc.folders, f) && f.pin() {
		rc.folders = append(rc.folders, f)
	}
}

// pinned reports whether the request pinned f.
func (rc *requestCtx) pinned(f *folder) bool {
	return slices.Contains(rc.folders, f)
}

// folderOf returns the request's folder containing the absolute path p
// (the deepest one when folders nest) and p relative to it.
func (rc *requestCtx) folderOf(p string) (*folder, string, bool) {
	return folderOf(rc.folders, p)
}

// folderNames lists the request's folder roots, for error messages.
func (rc *requestCtx) folderNames() string {
	if len(rc.folders) == 0 {
		return "none"
	}
	names := make([]string, len(rc.folders))
	for i, f := range rc.folders {
		names[i] = f.root
	}
	return strings.Join(names, ", ")
}

// defaultFolder is the folder that answers a request that names no file:
// that of the document opened or changed last, else the first folder.
func (rc *requestCtx) defaultFolder() *folder {
	if rc.lastDoc != "" {
		if f, _, ok := rc.folderOf(rc.lastDoc); ok {
			return f
		}
	}
	if len(rc.folders) > 0 {
		return rc.folders[0]
	}
	return nil
}

// barrierLocked records the change count of every folder.
func (s *session) barrierLocked() map[*folder]uint64 {
	b := make(map[*folder]uint64, len(s.folders))
	for _, f := range s.folders {
		b[f] = f.queue.enqueued()
	}
	return b
}

// reply sends a result or an error. Replies are sent whatever the state of
// the request's context.
func (s *session) reply(req *jsonrpc2.Request, result any, e *jsonrpc2.Error) {
	c := s.conn.Load()
	var err error
	if e != nil {
		err = c.ReplyWithError(context.Background(), req.ID, e)
	} else {
		// Encoded once and written as one frame (see frameStream).
		var body []byte
		if body, err = encodeResponse(req.ID, result); err == nil {
			select {
			case <-c.DisconnectNotify():
				err = jsonrpc2.ErrClosed
			default:
				err = s.stream.writeFrame(body)
				select {
				case <-c.DisconnectNotify():
					err = jsonrpc2.ErrClosed // closed while writing: nothing to report
				default:
				}
			}
		} else {
			s.logf("reply to %s (id %s): %v", req.Method, req.ID, err)
			err = c.ReplyWithError(context.Background(), req.ID, rpcError(CodeInternalError, fmt.Sprintf("%s: %v", req.Method, err), nil))
		}
	}
	if err != nil && !errors.Is(err, jsonrpc2.ErrClosed) {
		s.logf("reply to %s (id %s): %v", req.Method, req.ID, err)
	}
}

// recoverPanic recovers a panicking handler: it logs the panic with its
// stack (stderr and window/logMessage) and, for a request, answers with
// InternalError. The session keeps serving.
func (s *session) recoverPanic(method string, answer func(*jsonrpc2.Error)) {
	r := recover()
	if r == nil {
		return
	}
	stack := debug.Stack()
	s.logf("panic in %s: %v\n%s", method, r, stack)
	s.logMessage(messageTypeError, fmt.Sprintf("ctxls: internal error in %s: %v (the server keeps running; its log has the stack)", method, r))
	if answer != nil {
		answer(rpcError(CodeInternalError, fmt.Sprintf("%s: internal error: %v", method, r), nil))
	}
}

// cancelRequest cancels the in-flight request with id, if any.
func (s *session) cancelRequest(id jsonrpc2.ID) bool {
	s.mu.Lock()
	cancel, ok := s.inflight[id]
	s.mu.Unlock()
	if ok {
		cancel()
	}
	return ok
}

// currentSettings returns the settings in effect.
func (s *session) currentSettings() Settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings
}

func (s *session) folderOfLocked(p string) (*folder, string, bool) {
	return folderOf(s.folders, p)
}

// folderOf returns the folder of folders containing the absolute path p
// (the deepest one when folders nest) and p relative to it.
func folderOf(folders []*folder, p string) (*folder, string, bool) {
	var best *folder
	var bestRel string
	for _, f := range folders {
		rel, ok := relativeTo(f.root, p)
		if !ok || rel == "." {
			continue
		}
		if best == nil || len(f.root) > len(best.root) {
			best, bestRel = f, rel
		}
	}
	return best, bestRel, best != nil
}

// docText returns the open buffer at the absolute path p.
func (s *session) docText(p string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	text, ok := s.docs[p]
	return text, ok
}

// closeAll ends the session: it cancels in-flight requests and background
// work and closes every folder's index.
func (s *session) closeAll() {
	s.mu.Lock()
	s.closed = true
	for _, cancel := range s.inflight {
		cancel()
	}
	s.mu.Unlock()
	s.cancel()
	s.closeFolders()
}

// closeFolders closes every folder (checkpointing its index to disk) and
// waits for folders being closed in the background. It is idempotent.
func (s *session) closeFolders() {
	s.mu.Lock()
	folders := s.folders
	s.folders = nil
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, f := range folders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f.close(); err != nil {
				s.logf("%v", err)
			}
		}()
	}
	wg.Wait()
	s.bg.Wait()
}
