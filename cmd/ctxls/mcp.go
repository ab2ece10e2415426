package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/internal/access"
	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/index/walk"
	"github.com/ctxls/ctxls/internal/mcp"
	"github.com/ctxls/ctxls/internal/pgstore"
	"github.com/ctxls/ctxls/internal/retrieve"
	"github.com/ctxls/ctxls/internal/semantic"
	"github.com/ctxls/ctxls/internal/workspace"
)

const mcpUsage = `usage: ctxls mcp [--root DIR]... [--cache-dir DIR] [--log FILE] [--embeddings workspace|endpoint|off [--embeddings-endpoint URL --embeddings-model M …]]
       ctxls mcp --http ADDR [--token-file F] [--allow-remote] [--root DIR]... [--cache-dir DIR] [--log FILE]
       ctxls mcp [--http ADDR [--allow-remote]] (--store URL | --store-file F) [--cache-dir DIR] [--max-open-repos N] [--log FILE]

Runs the ctxls MCP server for coding assistants: tools assemble_context,
expand_context, find_symbol and index_status over stdin/stdout (newline-
delimited JSON-RPC), or over the Streamable HTTP transport at
http://ADDR/mcp with --http. See docs/mcp.md.

Roots: each --root; without one, the client's roots when it offers them
(stdio only), else the working directory.

Over HTTP, ADDR must be loopback (:PORT means 127.0.0.1:PORT) or a Unix
socket (unix:PATH) unless --allow-remote; every request must carry
"Authorization: Bearer TOKEN" with the token read from --token-file or
$CTXLS_TOKEN_FILE, else generated into a 0600 file whose path is printed;
Host and Origin must be loopback. See docs/security.md. A request without
the token is answered 403 (this server does no OAuth; every other path,
the OAuth discovery paths among them, is 404) and its connection closed.
A request's headers must arrive within 10 s ($CTXLS_AUTH_DEADLINE), its
body within 30 s ($CTXLS_READ_DEADLINE) and hold at most 32 MiB (else 413);
an idle keep-alive connection is closed after 2 minutes. Response streams
are not limited.

Exit status: 0 when the client closes the connection (stdio) or the process
is interrupted (HTTP), 1 on other errors, 2 on bad usage.
`

// runMCP runs `ctxls mcp`; args follow "mcp". It returns the exit status.
func runMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, mcpUsage)
		fs.PrintDefaults()
	}
	var roots multiFlag
	fs.Var(&roots, "root", "serve the workspace at `DIR` (repeatable)")
	cacheDir := fs.String("cache-dir", "", "parent `DIR` of the per-root index directories (default $"+index.EnvCacheDir+" or the user cache dir)")
	httpAddr := fs.String("http", "", "serve the Streamable HTTP transport at `ADDR` (host:port; port 0 picks one) instead of stdio")
	logFile := fs.String("log", "", "append the server log to `FILE` instead of stderr")
	noWatch := fs.Bool("no-watch", false, "do not watch the roots; refresh the index before each call instead")
	gitHistory := fs.Bool("git-history", true, "use the roots' git history: files changed with a diff's, files changed often and lately")
	embeddings := fs.String("embeddings", semantic.DefaultMode, "the semantic channel's vectors: workspace (learned from each root, stored with its index), endpoint (an OpenAI-compatible embeddings service, --embeddings-endpoint …) or off")
	epConfig := semantic.EndpointFlags(fs)
	allowRemote := fs.Bool("allow-remote", false, "with --http: accept an ADDR that is not loopback (clients still need the token)")
	tokenFile := fs.String("token-file", "", "with --http: read the token clients must send from `FILE` (mode 0600; default $"+access.EnvTokenFile+", else a generated file)")
	maxOpen := fs.Int("max-open-repos", workspace.DefaultMaxOpenRepos, "with --store: keep at most `N` repositories open (their indexes in memory, their checkouts' files open); the least recently used one is closed past it and reopened from its checkout on disk when asked again")
	storeSrc := pgstore.SourceFlags(fs, "serve the repositories of an index store (postgres://user@host:port/database) instead of roots: calls name a repository (repo); over HTTP, clients send a token made by ctxls store token and read what it grants; --cache-dir is where checkouts are kept")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ctxls mcp: unexpected argument %q\n%s", fs.Arg(0), mcpUsage)
		return 2
	}
	if err := semantic.CheckFlags(*embeddings, *epConfig); err != nil {
		fmt.Fprintf(stderr, "ctxls mcp: %v\n%s", err, mcpUsage)
		return 2
	}
	if *httpAddr == "" && (*allowRemote || *tokenFile != "") {
		fmt.Fprintf(stderr, "ctxls mcp: --allow-remote and --token-file apply only with --http\n%s", mcpUsage)
		return 2
	}
	// A root named on the command line that ctxls never indexes (inside
	// .git or a secret directory, the file system's root, the home
	// directory) is refused now, rather than by every call.
	for _, r := range roots {
		if err := walk.CheckRoot(r); err != nil {
			fmt.Fprintf(stderr, "ctxls mcp: --root %v\n", err)
			return 2
		}
	}
	if *maxOpen < 1 {
		fmt.Fprintf(stderr, "ctxls mcp: --max-open-repos %d: want at least 1\n%s", *maxOpen, mcpUsage)
		return 2
	}
	if storeSrc.Named() && len(roots) > 0 {
		fmt.Fprintf(stderr, "ctxls mcp: give --root or --store, not both\n%s", mcpUsage)
		return 2
	}
	if storeSrc.Named() && *tokenFile != "" {
		fmt.Fprintf(stderr, "ctxls mcp: with --store, clients send the store's tokens (ctxls store token): no --token-file\n%s", mcpUsage)
		return 2
	}
	var store workspace.Store
	if storeSrc.Named() {
		st, code := openStore(ctx, "mcp", storeSrc, stderr)
		if st == nil {
			return code
		}
		defer st.Close()
		store = st
	}
	var face *httpFace
	if *httpAddr != "" {
		deadlines, err := deadlinesFromEnv()
		if err != nil {
			fmt.Fprintf(stderr, "ctxls mcp: %v\n", err)
			return 2
		}
		f, code := newHTTPFace(*httpAddr, *allowRemote, *tokenFile, store, stderr)
		if f == nil {
			return code
		}
		defer f.close()
		f.deadlines = deadlines
		face = f
	}
	logw, closeLog, err := openLog(*logFile, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "ctxls mcp: %v\n", err)
		return 2
	}
	defer closeLog()
	logger := log.New(logw, "ctxls mcp: ", log.LstdFlags|log.Lmicroseconds)
	core := newServerCore(logger.Printf, *cacheDir)
	var repos *workspace.Repos
	var grant func(*sdk.CallToolRequest) (*pgstore.Grant, error)
	if store != nil {
		var err error
		// A checkout's index lives in the checkout (its cache directory
		// set by the workspace), whatever the index options' own.
		if repos, err = serveRepos(store, *cacheDir, *maxOpen, core.pool, core.indexOptions, logger.Printf); err != nil {
			fmt.Fprintf(stderr, "ctxls mcp: %v\n", err)
			return 1
		}
		if face != nil {
			grant = mcpGrant
		}
	}
	srv, err := mcp.New(mcp.Options{
		Repos:              repos,
		Grant:              grant,
		Engine:             core.engine,
		Tokens:             core.reg,
		IndexOptions:       core.indexOptions,
		Pool:               core.pool,
		Roots:              roots,
		ClientRoots:        *httpAddr == "" && len(roots) == 0,
		NoWatch:            *noWatch,
		NoGitHistory:       !*gitHistory,
		Embeddings:         *embeddings,
		EmbeddingsEndpoint: epConfig,
		Logf:               logger.Printf,
		Version:            version(),
	})
	if err != nil {
		fmt.Fprintf(stderr, "ctxls mcp: %v\n", err)
		return 2
	}
	srv.Start()
	defer func() {
		if err := srv.Close(); err != nil {
			logger.Print(err)
		}
	}()
	if face != nil {
		return face.serve(ctx, srv, logger, stderr)
	}
	t := &sdk.IOTransport{Reader: readCloser{stdin}, Writer: nopWriteCloser{stdout}}
	if err := srv.SDK().Run(ctx, t); err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		logger.Print(err)
		return 1
	}
	return 0
}

// httpFace is the network face of `mcp --http`: a loopback (or Unix, or
// with --allow-remote any) listener, the token every request must carry,
// and the Host/Origin checks against DNS rebinding (package access).
type httpFace struct {
	ln        net.Listener
	tok       access.Token
	store     workspace.Store // a server of an index store: its tokens instead of tok
	deadlines faceDeadlines   // zero: the defaults
}

// Limits of mcp --http (see access.Guard for how they are applied).
const (
	// mcpHeaderTimeout bounds the time a request's headers take to
	// arrive, the token among them: a client writes them at once.
	mcpHeaderTimeout = 10 * time.Second
	// mcpIdleTimeout closes a keep-alive connection idle between
	// requests (a client opens another when it needs one). A response
	// stream in progress is not idle.
	mcpIdleTimeout = 2 * time.Minute
	// mcpMaxHeaderBytes bounds a request's headers, read before the
	// token is checked: an MCP request's are well under 1 KiB.
	mcpMaxHeaderBytes = 64 << 10
	// mcpMaxBody bounds a request body with the token: the largest
	// request the tools accept is assemble_context with a diff of
	// retrieve.MaxDiffBytes (16 MiB) plus a query and earlier turns of
	// 256 KiB each; JSON escapes code by a few percent, and twice the
	// diff leaves room for the rest.
	mcpMaxBody = 2 * retrieve.MaxDiffBytes
)

// newHTTPFace checks the address and the token and listens. On failure it
// reports on stderr and returns nil and the exit status.
func newHTTPFace(addr string, allowRemote bool, tokenFile string, store workspace.Store, stderr io.Writer) (*httpFace, int) {
	network, address, err := access.ParseListen(addr, allowRemote)
	if err != nil {
		fmt.Fprintf(stderr, "ctxls mcp: --http: %v\n", err)
		return nil, 2
	}
	if store != nil {
		ln, err := access.Listen(network, address)
		if err != nil {
			fmt.Fprintf(stderr, "ctxls mcp: --http: %v\n", err)
			return nil, 1
		}
		return &httpFace{ln: ln, store: store}, 0
	}
	tok, err := access.LoadOrCreateToken(tokenFile)
	if err != nil {
		fmt.Fprintf(stderr, "ctxls mcp: token: %v\n", err)
		if errors.Is(err, access.ErrBadTokenFile) {
			return nil, 2
		}
		return nil, 1
	}
	ln, err := access.Listen(network, address)
	if err != nil {
		fmt.Fprintf(stderr, "ctxls mcp: --http: %v\n", err)
		tok.Remove()
		return nil, 1
	}
	return &httpFace{ln: ln, tok: tok}, 0
}

// close removes a generated token file.
func (f *httpFace) close() {
	f.tok.Remove()
}

// serve serves the Streamable HTTP transport at /mcp until ctx is
// cancelled.
func (f *httpFace) serve(ctx context.Context, srv *mcp.Server, logger *log.Logger, stderr io.Writer) int {
	// The SDK's own DNS-rebinding check stays on; the guard adds the
	// token, Origin and any-address Host checks in front of it.
	// A server of an index store is one of any number of replicas behind
	// a load balancer: stateless, so that any replica answers any request
	// (no session to stick to; expand_context's held states are each
	// replica's own, and a state not held is read anew, as its result
	// says).
	// The handler reads what Guard let through, whose size Guard
	// bounds: its own limit (4 MiB by default) would refuse the diffs
	// the tools take.
	var h http.Handler = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv.SDK() },
		&sdk.StreamableHTTPOptions{Stateless: f.store != nil, MaxRequestBodyBytes: mcpMaxBody})
	gopts := access.GuardOptions{
		Token: f.tok.Value, Logf: logger.Printf,
		MaxBody: mcpMaxBody, BodyTimeout: f.deadlines.read,
	}
	if f.store != nil {
		// Any client can make a replica refuse it, as fast as it likes:
		// a refusal costs no query when it is remembered, and a log line
		// a second.
		tokens := newStoreTokens(f.store, logger.Printf)
		gopts.Verify = tokens.guardVerify
		gopts.Logf = access.NewRefusalLog(logger.Printf, 0).Logf
		h = tokens.withGrant(h)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", access.Guard(h, gopts))
	// Every other path, OAuth's discovery and registration paths among
	// them, is 404: this server does no OAuth.
	mux.Handle("/", access.NotFound())
	headerTimeout := mcpHeaderTimeout
	if f.deadlines.auth > 0 {
		headerTimeout = f.deadlines.auth
	}
	// No ReadTimeout or WriteTimeout: both would end the long-lived
	// response streams of Streamable HTTP (a GET's event stream, a long
	// tool call's POST). The body of each request gets its own deadline
	// in access.Guard instead.
	hs := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: headerTimeout,
		IdleTimeout:       mcpIdleTimeout,
		MaxHeaderBytes:    mcpMaxHeaderBytes,
		ErrorLog:          log.New(logger.Writer(), logger.Prefix()+"http: ", logger.Flags()),
	}
	// What a user must see goes to stderr even when the log goes to a file.
	notice := func(format string, args ...any) {
		logger.Printf(format, args...)
		if logger.Writer() != stderr {
			fmt.Fprintf(stderr, "ctxls mcp: "+format+"\n", args...)
		}
	}
	if f.store != nil {
		notice("clients send a token of the index store as Authorization: Bearer TOKEN (ctxls store token)")
	} else {
		notice("token file: %s (clients send its content as Authorization: Bearer TOKEN)", f.tok.Path)
	}
	if f.ln.Addr().Network() == "unix" {
		notice("listening on %s (HTTP, path /mcp)", access.DisplayAddr(f.ln))
	} else {
		notice("listening on http://%s/mcp", f.ln.Addr())
	}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(f.ln) }()
	select {
	case err := <-done:
		logger.Print(err)
		return 1
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	return 0
}

// readCloser closes its reader when it can.
type readCloser struct{ io.Reader }

func (r readCloser) Close() error {
	if c, ok := r.Reader.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// nopWriteCloser leaves stdout open on Close.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
