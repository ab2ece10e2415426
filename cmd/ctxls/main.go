// Command ctxls is the context engine: a language server (serve), an MCP
// server (mcp), a headless assembler (assemble) and an indexer (index). See README.md.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"golang.org/x/term"

	"github.com/ctxls/ctxls/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	args := os.Args[1:]
	// CTXLS_CPUPROFILE=FILE writes a CPU profile of the whole run (for
	// docs/benchmarks.md: what a process spends its start-up on).
	if f := os.Getenv("CTXLS_CPUPROFILE"); f != "" {
		if out, err := os.Create(f); err == nil && pprof.StartCPUProfile(out) == nil {
			defer out.Close()
			defer pprof.StopCPUProfile()
		}
	}
	var code int
	switch {
	case len(args) > 0 && args[0] == "serve":
		code = runServe(ctx, args[1:], os.Stdin, os.Stdout, os.Stderr)
	case len(args) > 0 && args[0] == "mcp":
		code = runMCP(ctx, args[1:], os.Stdin, os.Stdout, os.Stderr)
	case len(args) > 0 && (args[0] == "version" || args[0] == "--version"):
		// What editor plugins show in their health checks.
		fmt.Fprintf(os.Stdout, "ctxls %s\n", version())
	default:
		code = cli.Main(ctx, args, cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
			StderrIsTerminal: term.IsTerminal(int(os.Stderr.Fd()))})
	}
	stop()
	if code != 0 {
		pprof.StopCPUProfile()
		os.Exit(code)
	}
}
