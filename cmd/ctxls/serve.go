package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ctxls/ctxls/internal/access"
	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/lsp"
	"github.com/ctxls/ctxls/internal/pgstore"
	"github.com/ctxls/ctxls/internal/refs"
	"github.com/ctxls/ctxls/internal/retrieve"
	"github.com/ctxls/ctxls/internal/semantic"
	"github.com/ctxls/ctxls/internal/tokens"
	"github.com/ctxls/ctxls/internal/workspace"
)

const serveUsage = `usage: ctxls serve [--cache-dir DIR] [--log FILE] [--embeddings workspace|endpoint|off [--embeddings-endpoint URL --embeddings-model M …]]
       ctxls serve --listen ADDR [--token-file F] [--root DIR]... [--allow-remote] [--cache-dir DIR] [--log FILE]
       ctxls serve [--listen ADDR [--allow-remote]] (--store URL | --store-file F) [--cache-dir DIR] [--max-open-repos N] [--log FILE]

Runs the ctxls language server: LSP over stdin/stdout, or over a socket with
--listen (one independent session per connection, several at a time; the
listener runs until the process is interrupted). See docs/protocol.md.

On a socket a client must send the server's token as initialize's
initializationOptions.token, and may open only folders inside the allowed
roots. ADDR is a loopback address (127.0.0.1:PORT, [::1]:PORT,
localhost:PORT, or :PORT meaning 127.0.0.1:PORT) or a Unix socket
(unix:PATH, or a path containing a slash); other addresses need
--allow-remote. The token is read from --token-file or $CTXLS_TOKEN_FILE,
else generated into a new 0600 file whose path is printed at start. See
docs/security.md.

Limits on a socket: until a connection has sent initialize with the token,
its messages are at most 64 KiB, it must do so within 10 s
($CTXLS_AUTH_DEADLINE), and at most 64 such connections wait at a time
(more are closed at once); afterwards messages are at most 64 MiB. A
message must arrive within 30 s of its first byte, plus a second per MiB
($CTXLS_READ_DEADLINE); an idle connection is never closed.

Exit status (stdio): 0 after shutdown and exit, 1 after an exit without
shutdown or when the client goes away, 2 on bad usage.
`

// runServe runs `ctxls serve`; args follow "serve". It returns the exit
// status.
func runServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, serveUsage)
		fs.PrintDefaults()
	}
	listen := fs.String("listen", "", "serve on a socket at `ADDR` (loopback host:port, :PORT, or unix:PATH; port 0 picks one) instead of stdio")
	allowRemote := fs.Bool("allow-remote", false, "with --listen: accept an ADDR that is not loopback (clients still need the token)")
	tokenFile := fs.String("token-file", "", "with --listen: read the token clients must send from `FILE` (mode 0600; default $"+access.EnvTokenFile+", else a generated file)")
	var roots multiFlag
	fs.Var(&roots, "root", "with --listen: an allowed root `DIR` (repeatable; default: the working directory); clients may open only folders inside the roots")
	cacheDir := fs.String("cache-dir", "", "parent `DIR` of the per-folder index directories (default $"+index.EnvCacheDir+" or the user cache dir)")
	logFile := fs.String("log", "", "append the server log to `FILE` instead of stderr")
	embeddings := fs.String("embeddings", semantic.DefaultMode, "the semantic channel's vectors when the client's settings name none: workspace (learned from each folder, stored with its index), endpoint (an OpenAI-compatible embeddings service, --embeddings-endpoint …) or off")
	epConfig := semantic.EndpointFlags(fs)
	maxOpen := fs.Int("max-open-repos", workspace.DefaultMaxOpenRepos, "with --store: keep at most `N` repositories open (their indexes in memory, their checkouts' files open); the least recently used one is closed past it and reopened from its checkout on disk when asked again")
	storeSrc := pgstore.SourceFlags(fs, "serve the repositories of an index store (postgres://user@host:port/database) instead of folders: a workspace folder names a repository by its name, and context/assemble a repo (or repos); with --listen, clients send a token made by ctxls store token; --cache-dir is where checkouts are kept")
	fs.Bool("stdio", true, "serve on stdin/stdout (the default; accepted because LSP clients pass it)")
	fs.String("clientProcessId", "", "ignored (some LSP clients pass it; initialize's processId is used)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ctxls serve: unexpected argument %q\n%s", fs.Arg(0), serveUsage)
		return 2
	}
	if err := semantic.CheckFlags(*embeddings, *epConfig); err != nil {
		fmt.Fprintf(stderr, "ctxls serve: %v\n%s", err, serveUsage)
		return 2
	}
	if *listen == "" && (*allowRemote || *tokenFile != "" || len(roots) > 0) {
		fmt.Fprintf(stderr, "ctxls serve: --allow-remote, --token-file and --root apply only with --listen\n%s", serveUsage)
		return 2
	}
	if *maxOpen < 1 {
		fmt.Fprintf(stderr, "ctxls serve: --max-open-repos %d: want at least 1\n%s", *maxOpen, serveUsage)
		return 2
	}
	if storeSrc.Named() && (*tokenFile != "" || len(roots) > 0) {
		fmt.Fprintf(stderr, "ctxls serve: with --store, clients send the store's tokens and name repositories: no --token-file or --root\n%s", serveUsage)
		return 2
	}
	logw, closeLog, err := openLog(*logFile, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "ctxls serve: %v\n", err)
		return 2
	}
	defer closeLog()
	logger := log.New(logw, "ctxls: ", log.LstdFlags|log.Lmicroseconds)
	opts := serverOptions(logger, *cacheDir)
	var store workspace.Store
	if storeSrc.Named() {
		var code int
		if store, code = openStore(ctx, "serve", storeSrc, stderr); store == nil {
			return code
		}
		defer store.Close()
		repos, err := serveRepos(store, *cacheDir, *maxOpen, opts.Pool, opts.IndexOptions, logger.Printf)
		if err != nil {
			fmt.Fprintf(stderr, "ctxls serve: %v\n", err)
			return 1
		}
		defer repos.Close()
		opts.Repos = repos
	}
	opts.Embeddings = *embeddings
	if epConfig.URL != "" {
		opts.EmbeddingsEndpoint = epConfig
	}
	if *listen != "" {
		face := listenConfig{addr: *listen, allowRemote: *allowRemote, tokenFile: *tokenFile, roots: roots, store: store}
		// What a user must see (the address, the token file) goes to
		// stderr even when the log goes to a file.
		notice := logger.Printf
		if *logFile != "" {
			notice = func(format string, args ...any) {
				logger.Printf(format, args...)
				fmt.Fprintf(stderr, "ctxls serve: "+format+"\n", args...)
			}
		}
		return serveListen(ctx, face, opts, logger, notice, stderr)
	}
	err = lsp.Serve(ctx, stdioConn{stdin, stdout}, opts)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, lsp.ErrExitWithoutShutdown):
		logger.Print("exit without shutdown")
	default:
		logger.Print(err)
	}
	return 1
}

// openLog returns where a server logs: the file named by --log (appended
// to), else stderr; close closes the file.
func openLog(name string, stderr io.Writer) (w io.Writer, close func(), err error) {
	if name == "" {
		return stderr, func() {}, nil
	}
	f, err := os.OpenFile(name, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

// serverOptions wires the language server to the process's server core
// (newServerCore): the engine, the one Pool of roots, the on-disk
// indexes configured as `ctxls index` and `ctxls assemble` configure them
// (so that they share one index per root).
func serverOptions(logger *log.Logger, cacheDir string) lsp.Options {
	c := newServerCore(logger.Printf, cacheDir)
	return lsp.Options{
		Engine:       c.engine,
		Tokens:       c.reg,
		IndexOptions: c.indexOptions,
		// One index per root for every session of the process.
		Pool:    c.pool,
		Logf:    logger.Printf,
		Version: version(),
	}
}

// serverCore is what the two servers (serve, mcp) start alike: one token
// registry and engine, one Pool of roots — directories and, on a server
// of an index store, its repositories (serveRepos) — and the index
// options every root shares with `ctxls index` and `ctxls assemble`.
type serverCore struct {
	reg          *tokens.Registry
	engine       *retrieve.Engine
	pool         *workspace.Pool
	indexOptions func(root string) index.Options
}

// newServerCore starts a server's core; cacheDir is --cache-dir.
func newServerCore(logf func(format string, args ...any), cacheDir string) serverCore {
	reg := tokens.NewRegistry()
	return serverCore{reg: reg, engine: retrieve.NewEngine(reg).WithResolver(refs.Resolver{}), pool: workspace.NewPool(logf), indexOptions: sharedIndexOptions(reg, cacheDir)}
}

// sharedIndexOptions are the index options of a long-running server (serve
// and mcp), configured as `ctxls index` and `ctxls assemble` configure
// them so that they share one index per root.
func sharedIndexOptions(reg *tokens.Registry, cacheDir string) func(root string) index.Options {
	return func(root string) index.Options {
		// Another process (an editor, ctxls index) holding the root's
		// index: wait 2 s, then index privately.
		opts := index.Options{PrivateWhenLocked: true, LockTimeout: 2 * time.Second}
		if c, err := reg.Get(index.DefaultEncoding); err == nil {
			opts.Counters = map[string]tokens.Counter{index.DefaultEncoding: c}
		}
		if cacheDir != "" {
			opts.CacheDir = index.CacheDirIn(cacheDir, root)
		}
		return opts
	}
}

// listenConfig is what `serve --listen` was told about its network face.
type listenConfig struct {
	addr        string
	allowRemote bool
	tokenFile   string          // "" for $CTXLS_TOKEN_FILE, else a generated one
	roots       []string        // allowed roots; none means the working directory
	store       workspace.Store // a server of an index store: its tokens, no roots
}

// serveListen sets up the access policy of a network face (address,
// token, allowed roots; see package access), listens and serves until ctx
// is cancelled. Bad settings are usage errors (status 2), reported on
// stderr.
func serveListen(ctx context.Context, cfg listenConfig, opts lsp.Options, logger *log.Logger, notice func(string, ...any), stderr io.Writer) int {
	network, address, err := access.ParseListen(cfg.addr, cfg.allowRemote)
	if err != nil {
		fmt.Fprintf(stderr, "ctxls serve: --listen: %v\n", err)
		return 2
	}
	deadlines, err := deadlinesFromEnv()
	if err != nil {
		fmt.Fprintf(stderr, "ctxls serve: %v\n", err)
		return 2
	}
	if cfg.store != nil {
		tokens := newStoreTokens(cfg.store, logger.Printf)
		opts.Access = &lsp.Access{Grant: tokens.grant, AuthTimeout: deadlines.auth, FrameTimeout: deadlines.read,
			RefusalLogf: access.NewRefusalLog(logger.Printf, 0).Logf}
		ln, err := access.Listen(network, address)
		if err != nil {
			logger.Print(err)
			return 1
		}
		notice("clients send a token of the index store as initializationOptions.token (ctxls store token)")
		notice("listening on %s", access.DisplayAddr(ln))
		return serveListener(ctx, ln, opts, logger)
	}
	roots, err := access.NewRoots(cfg.roots)
	if err != nil {
		fmt.Fprintf(stderr, "ctxls serve: --root: %v\n", err)
		return 2
	}
	tok, err := access.LoadOrCreateToken(cfg.tokenFile)
	if err != nil {
		fmt.Fprintf(stderr, "ctxls serve: token: %v\n", err)
		if errors.Is(err, access.ErrBadTokenFile) {
			return 2
		}
		return 1
	}
	defer func() {
		if err := tok.Remove(); err != nil {
			logger.Print(err)
		}
	}()
	opts.Access = &lsp.Access{Token: tok.Value, CheckRoot: roots.Check, AuthTimeout: deadlines.auth, FrameTimeout: deadlines.read}
	ln, err := access.Listen(network, address)
	if err != nil {
		logger.Print(err)
		return 1
	}
	if tok.Generated {
		notice("token file: %s (clients send its content as initializationOptions.token)", tok.Path)
	} else {
		notice("token file: %s", tok.Path)
	}
	notice("allowed roots: %s", roots)
	notice("listening on %s", access.DisplayAddr(ln))
	return serveListener(ctx, ln, opts, logger)
}

// maxUnauthenticated is how many connections may be open at once
// without having presented the token (each for at most the
// authentication timeout, holding at most a 64 KiB message): a client
// opens one connection, an editor a few; more are closed at once, so
// that connections which never authenticate cannot pile up.
const maxUnauthenticated = 64

// serveListener accepts connections on ln and runs one session per
// connection, concurrently, until ctx is cancelled. A connection beyond
// maxUnauthenticated that have not presented the token is closed at once,
// with a log line.
func serveListener(ctx context.Context, ln net.Listener, opts lsp.Options, logger *log.Logger) int {
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	// waiting holds a slot per connection that has not presented the
	// token; a session frees its slot when it does, or ends.
	waiting := make(chan struct{}, maxUnauthenticated)
	for n := 1; ; n++ {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return 0
			}
			logger.Print(err)
			return 1
		}
		remote := strconv.Itoa(n)
		if a := c.RemoteAddr(); a != nil && a.String() != "" {
			remote += " (" + a.String() + ")"
		}
		select {
		case waiting <- struct{}{}:
		default:
			logger.Printf("session %s: closed at once: %d connections are already waiting to send initialize with the token (the limit)", remote, maxUnauthenticated)
			c.Close()
			continue
		}
		var once sync.Once
		release := func() { once.Do(func() { <-waiting }) }
		sessionOpts := opts
		if opts.Access != nil {
			a := *opts.Access
			a.Admitted = release
			sessionOpts.Access = &a
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer release()
			logger.Printf("session %s: start", remote)
			err := lsp.Serve(ctx, c, sessionOpts)
			if err == nil {
				logger.Printf("session %s: end", remote)
			} else {
				logger.Printf("session %s: %v", remote, err)
			}
		}()
	}
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (f *multiFlag) String() string     { return strings.Join(*f, ", ") }
func (f *multiFlag) Set(v string) error { *f = append(*f, v); return nil }

// stdioConn is stdin and stdout as one connection. Close closes stdin
// when it can (so that the reader stops) and leaves stdout open.
type stdioConn struct {
	io.Reader
	io.Writer
}

func (c stdioConn) Close() error {
	if rc, ok := c.Reader.(io.Closer); ok {
		return rc.Close()
	}
	return nil
}

// releaseVersion is set by a release build (make dist: -ldflags -X
// main.releaseVersion=VERSION) and is then the version the binary names;
// empty in any other build.
var releaseVersion string

// version is the module version the binary was built from.
func version() string {
	if releaseVersion != "" {
		return releaseVersion
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return versionOf(info)
}

// versionOf is the version a build says of itself: the module's version
// — a release's tag (go install …@v1.2.3), or for a build in a git
// checkout the pseudo-version Go stamps from it (v0.0.0-TIME-COMMIT,
// "+dirty" with uncommitted changes; `make build` asks for it with
// -buildvcs=auto) — else "devel" and the commit when the build recorded
// one. One word: the editors' health checks show it as it is.
func versionOf(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	v, rev, dirty := "devel", "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" {
		v += "+" + rev[:min(12, len(rev))]
		if dirty {
			v += "-dirty"
		}
	}
	return v
}
