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
	"os"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/mcp"
	"github.com/ctxls/ctxls/retrieve"
	"github.com/ctxls/ctxls/tokens"
)

const mcpUsage = `usage: ctxls mcp [--root DIR]... [--cache-dir DIR] [--http ADDR] [--log FILE]

Runs the ctxls MCP server for coding assistants: tools assemble_context,
expand_context, find_symbol and index_status over stdin/stdout (newline-
delimited JSON-RPC), or over the Streamable HTTP transport at
http://ADDR/mcp with --http. See docs/mcp.md.

Roots: each --root; without one, the client's roots when it offers them
(stdio only), else the working directory.

Exit status: 0 when the client closes the connection (stdio) or the process
is interrupted (HTTP), 1 on other errors, 2 on bad usage.
`

// stringsFlag collects a repeatable string flag.
type stringsFlag []string

func (m *stringsFlag) String() string     { return strings.Join(*m, ",") }
func (m *stringsFlag) Set(s string) error { *m = append(*m, s); return nil }

// runMCP runs `ctxls mcp`; args follow "mcp". It returns the exit status.
func runMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, mcpUsage)
		fs.PrintDefaults()
	}
	var roots stringsFlag
	fs.Var(&roots, "root", "serve the workspace at `DIR` (repeatable)")
	cacheDir := fs.String("cache-dir", "", "parent `DIR` of the per-root index directories (default $"+index.EnvCacheDir+" or the user cache dir)")
	httpAddr := fs.String("http", "", "serve the Streamable HTTP transport at `ADDR` (host:port; port 0 picks one) instead of stdio")
	logFile := fs.String("log", "", "append the server log to `FILE` instead of stderr")
	noWatch := fs.Bool("no-watch", false, "do not watch the roots; refresh the index before each call instead")
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
	logw := stderr
	if *logFile != "" {
		f, err := os.OpenFile(*logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintf(stderr, "ctxls mcp: %v\n", err)
			return 2
		}
		defer f.Close()
		logw = f
	}
	logger := log.New(logw, "ctxls mcp: ", log.LstdFlags|log.Lmicroseconds)
	reg := tokens.NewRegistry()
	srv, err := mcp.New(mcp.Options{
		Engine:       retrieve.NewEngine(reg),
		Tokens:       reg,
		IndexOptions: sharedIndexOptions(reg, *cacheDir),
		Roots:        roots,
		ClientRoots:  *httpAddr == "" && len(roots) == 0,
		NoWatch:      *noWatch,
		Logf:         logger.Printf,
		Version:      version(),
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
	if *httpAddr != "" {
		return serveMCPHTTP(ctx, *httpAddr, srv, logger)
	}
	t := &sdk.IOTransport{Reader: readCloser{stdin}, Writer: nopWriteCloser{stdout}}
	if err := srv.SDK().Run(ctx, t); err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		logger.Print(err)
		return 1
	}
	return 0
}

// serveMCPHTTP serves the Streamable HTTP transport at addr until ctx is
// cancelled.
func serveMCPHTTP(ctx context.Context, addr string, srv *mcp.Server, logger *log.Logger) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		logger.Print(err)
		return 1
	}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv.SDK() }, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	logger.Printf("listening on http://%s/mcp", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
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
