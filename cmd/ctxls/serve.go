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
	"sync"
	"time"

	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/lsp"
	"github.com/ctxls/ctxls/retrieve"
	"github.com/ctxls/ctxls/tokens"
)

const serveUsage = `usage: ctxls serve [--listen ADDR] [--cache-dir DIR] [--log FILE]

Runs the ctxls language server: LSP over stdin/stdout, or over TCP with
--listen (one independent session per connection, several at a time; the
listener runs until the process is interrupted). See docs/protocol.md.

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
	listen := fs.String("listen", "", "serve over TCP at `ADDR` (host:port; port 0 picks one) instead of stdio")
	cacheDir := fs.String("cache-dir", "", "parent `DIR` of the per-folder index directories (default $"+index.EnvCacheDir+" or the user cache dir)")
	logFile := fs.String("log", "", "append the server log to `FILE` instead of stderr")
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
	logw := stderr
	if *logFile != "" {
		f, err := os.OpenFile(*logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintf(stderr, "ctxls serve: %v\n", err)
			return 2
		}
		defer f.Close()
		logw = f
	}
	logger := log.New(logw, "ctxls: ", log.LstdFlags|log.Lmicroseconds)
	opts := serverOptions(logger, *cacheDir)
	if *listen != "" {
		return serveTCP(ctx, *listen, opts, logger)
	}
	err := lsp.Serve(ctx, stdioConn{stdin, stdout}, opts)
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

// serverOptions wires the language server to the engine and the on-disk
// indexes, configured as `ctxls index` and `ctxls assemble` configure
// them (so that they share one index per root).
func serverOptions(logger *log.Logger, cacheDir string) lsp.Options {
	reg := tokens.NewRegistry()
	return lsp.Options{
		Engine:       retrieve.NewEngine(reg),
		Tokens:       reg,
		IndexOptions: sharedIndexOptions(reg, cacheDir),
		Logf:         logger.Printf,
		Version:      version(),
	}
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

// serveTCP accepts connections on addr and runs one session per
// connection, concurrently, until ctx is cancelled.
func serveTCP(ctx context.Context, addr string, opts lsp.Options, logger *log.Logger) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		logger.Print(err)
		return 1
	}
	logger.Printf("listening on %s", ln.Addr())
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return 0
			}
			logger.Print(err)
			return 1
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			remote := c.RemoteAddr()
			logger.Printf("session %s: start", remote)
			err := lsp.Serve(ctx, c, opts)
			if err == nil {
				logger.Printf("session %s: end", remote)
			} else {
				logger.Printf("session %s: %v", remote, err)
			}
		}()
	}
}

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

// version is the module version the binary was built from.
func version() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "devel"
}
