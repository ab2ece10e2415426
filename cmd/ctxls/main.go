// Command ctxls is the context engine: a language server (serve), an MCP
// server (mcp), a headless assembler (assemble) and an indexer (index). See README.md.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"syscall"

	"golang.org/x/term"

	"github.com/ctxls/ctxls/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// A launcher killed without a chance to forward a signal ends ctxls
	// too (parent.go).
	ctx, orphaned := context.WithCancel(ctx)
	defer orphaned()
	watchParent(ctx, orphaned, os.Stderr)
	args := os.Args[1:]
	// CTXLS_CPUPROFILE=FILE writes a CPU profile of the whole run (for
	// docs/benchmarks.md: what a process spends its start-up on).
	if f := os.Getenv("CTXLS_CPUPROFILE"); f != "" {
		if out, err := os.Create(f); err == nil && pprof.StartCPUProfile(out) == nil {
			defer out.Close()
			defer pprof.StopCPUProfile()
		}
	}
	// CTXLS_TRACE=FILE writes an execution trace of the whole run (go tool
	// trace FILE): where a short call's wall time goes, phase by phase.
	if f := os.Getenv("CTXLS_TRACE"); f != "" {
		if out, err := os.Create(f); err == nil && trace.Start(out) == nil {
			defer out.Close()
			defer trace.Stop()
		}
	}
	// CTXLS_MEMPROFILE=FILE writes a heap profile at the end of the run
	// (what stays in use: the index's tables, the vectors).
	if f := os.Getenv("CTXLS_MEMPROFILE"); f != "" {
		defer writeHeapProfile(f)
	}
	printGoroutinesOnSignal(ctx, os.Stderr)
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
		trace.Stop()
		os.Exit(code)
	}
}

// writeHeapProfile writes the heap profile to the file f (errors are
// ignored: a profile is a diagnostic).
func writeHeapProfile(f string) {
	out, err := os.Create(f)
	if err != nil {
		return
	}
	defer out.Close()
	_ = pprof.WriteHeapProfile(out)
}

// printGoroutinesOnSignal makes the process print "ctxls: goroutines: N"
// on w each time it gets SIGUSR1, until ctx ends: the soak harness counts a
// server's goroutines that way to tell a leak (docs/reliability.md).
func printGoroutinesOnSignal(ctx context.Context, w io.Writer) {
	sig := goroutinesSignal()
	if sig == nil {
		return
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sig)
	go func() {
		defer signal.Stop(ch)
		for {
			select {
			case <-ch:
				fmt.Fprintf(w, "ctxls: goroutines: %d\n", runtime.NumGoroutine())
			case <-ctx.Done():
				return
			}
		}
	}()
}
