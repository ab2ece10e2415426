// Command soak runs ctxls's load harness (package soak) and prints its
// report:
//
//	go build -o bin/ctxls ./cmd/ctxls
//	go run ./soak/cmd/soak -bin bin/ctxls [-sessions 8] [-duration 60s] [-json report.json]
//
// `make soak` runs it with the defaults. Exit status: 0 when every promise
// held, 1 when one failed (the report lists them) or the run could not be
// made, 2 on bad usage.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/ctxls/ctxls/soak"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg soak.Config
	fs.StringVar(&cfg.Binary, "bin", "bin/ctxls", "the ctxls `binary` to run")
	fs.StringVar(&cfg.WorkDir, "workdir", "", "`DIR` for the token, the index cache, the extra folders and the logs (default: a new temporary directory, kept when the run fails)")
	fs.StringVar(&cfg.Tree, "tree", "", "where to copy the tree (`DIR`, emptied first; default WORKDIR/tree)")
	fs.StringVar(&cfg.GoRoot, "goroot", "", "Go's root to copy the tree from (default: go env GOROOT)")
	pkgs := fs.String("packages", "long", "the packages of GOROOT/src copied: long (≈ 550 files), short (≈ 75) or a comma-separated `list`")
	fs.IntVar(&cfg.Sessions, "sessions", 8, "concurrent LSP sessions of the load")
	fs.DurationVar(&cfg.Duration, "duration", 60*time.Second, "how long the load runs")
	fs.DurationVar(&cfg.IdleDuration, "idle", 10*time.Second, "how long the idle session runs first")
	fs.IntVar(&cfg.FilesPerSession, "files", 4, "files each session opens")
	fs.DurationVar(&cfg.FolderGap, "folder-gap", 0, "time between adding a workspace folder and removing it (default duration/4; negative: none)")
	fs.DurationVar(&cfg.Think, "think", 50*time.Millisecond, "the most a client waits between two steps")
	fs.DurationVar(&cfg.Timeout, "timeout", 60*time.Second, "a request not answered within this is an error")
	fs.IntVar(&cfg.MCPClients, "mcp-clients", 4, "MCP clients of the MCP phase (negative: none)")
	fs.DurationVar(&cfg.MCPDuration, "mcp-duration", 0, "how long the MCP phase runs (default duration/2)")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed of the workload's choices")
	fs.BoolVar(&cfg.AllowStale, "allow-stale", false, "report parts with an old buffer text (stale buffer parts, docs/reliability.md) without failing")
	fs.Float64Var(&cfg.MaxRSSGrowth, "max-rss-growth", 0, "fail when the server's RSS grows more than this `fraction` after warm-up (0: not checked)")
	fs.Float64Var(&cfg.MaxP95Ratio, "max-p95-ratio", 0, "fail when the load's context/assemble p95 is more than this many times the idle one (0: not checked)")
	jsonOut := fs.String("json", "", "also write the report as JSON to `FILE`")
	quiet := fs.Bool("q", false, "no progress lines")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "soak: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	switch *pkgs {
	case "long":
		cfg.Packages = soak.LongPackages
	case "short":
		cfg.Packages = soak.ShortPackages
	default:
		cfg.Packages = strings.Split(*pkgs, ",")
	}
	bin, err := filepath.Abs(cfg.Binary)
	if err != nil {
		fmt.Fprintf(stderr, "soak: %v\n", err)
		return 2
	}
	if _, err := os.Stat(bin); err != nil {
		fmt.Fprintf(stderr, "soak: the ctxls binary: %v (build it: make build)\n", err)
		return 2
	}
	cfg.Binary = bin
	temp := cfg.WorkDir == ""
	if temp {
		if cfg.WorkDir, err = os.MkdirTemp("", "ctxls-soak-"); err != nil {
			fmt.Fprintf(stderr, "soak: %v\n", err)
			return 1
		}
	}
	if !*quiet {
		cfg.Logf = func(format string, args ...any) {
			fmt.Fprintf(stderr, "soak: %s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
		}
	}
	rep, err := soak.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "soak: %v (work directory %s)\n", err, cfg.WorkDir)
		return 1
	}
	rep.WriteText(stdout)
	if *jsonOut != "" {
		f, err := os.Create(*jsonOut)
		if err == nil {
			err = rep.WriteJSON(f)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "soak: %v\n", err)
			return 1
		}
	}
	if !rep.Pass {
		fmt.Fprintf(stderr, "soak: work directory kept: %s\n", cfg.WorkDir)
		return 1
	}
	if temp {
		os.RemoveAll(cfg.WorkDir)
	}
	return 0
}
