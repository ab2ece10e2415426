package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/tokens"
	ws "github.com/ctxls/ctxls/internal/workspace"
)

// Env is what a command runs with.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// StderrIsTerminal turns on progress bars.
	StderrIsTerminal bool
	Tokens           *tokens.Registry
}

// usageError is bad usage: exit status 2, with the command's usage line.
type usageError struct {
	usage string
	msg   string
}

func (e *usageError) Error() string { return e.msg }

// exit maps an error to an exit status and prints it.
func exit(env Env, err error) int {
	if err == nil {
		return 0
	}
	var ue *usageError
	var pe *assemble.ParamError
	var re *ws.RootError
	switch {
	case errors.As(err, &ue):
		fmt.Fprintf(env.Stderr, "ctxls: %s\nusage: %s\n", ue.msg, ue.usage)
		return 2
	case errors.As(err, &pe):
		fmt.Fprintf(env.Stderr, "ctxls: %s\n", flagName(pe))
		return 2
	case errors.As(err, &re): // --root in VCS metadata or a secret directory, or too broad
		fmt.Fprintf(env.Stderr, "ctxls: --root %v\n", re)
		return 2
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(env.Stderr, "ctxls: interrupted")
		return 1
	}
	fmt.Fprintf(env.Stderr, "ctxls: %v\n", err)
	return 1
}

// flagName rewrites a protocol field name into the flag a CLI user gave.
func flagName(pe *assemble.ParamError) string {
	m := map[string]string{
		"budget.maxTokens": "--budget", "budget.perFileMaxTokens": "--per-file", "budget.perPartMaxTokens": "--per-part",
		"format": "--format", "strategy": "--strategy", "encoding": "--encoding", "focus": "--focus", "diff": "--diff",
		"include": "--include", "exclude": "--exclude", "query": "--query", "weights": "--weights", "mode": "--mode",
		"symbol": "--symbol", "at": "--at", "depth": "--depth",
	}
	if f, ok := m[pe.Field]; ok {
		return f + ": " + pe.Msg
	}
	return pe.Error()
}

// Main runs one ctxls subcommand (args without the program name).
func Main(ctx context.Context, args []string, env Env) int {
	if env.Tokens == nil {
		env.Tokens = tokens.NewRegistry()
	}
	if len(args) == 0 {
		fmt.Fprintln(env.Stderr, mainUsage)
		return 2
	}
	switch args[0] {
	case "assemble":
		return exit(env, runAssemble(ctx, args[1:], env))
	case "index":
		return exit(env, runIndex(ctx, args[1:], env))
	case "references":
		return exit(env, runReferences(ctx, args[1:], env))
	case "impact":
		return exit(env, runImpact(ctx, args[1:], env))
	case "store":
		return exit(env, runStore(ctx, args[1:], env))
	case "help", "-h", "--help":
		fmt.Fprintln(env.Stdout, mainUsage)
		return 0
	}
	fmt.Fprintf(env.Stderr, "ctxls: unknown command %q\n%s\n", args[0], mainUsage)
	return 2
}

const mainUsage = `usage: ctxls <command> [flags]

commands:
  assemble   print the context for a question, a cursor or a diff (ctxls assemble -h)
  references list the places that use a symbol, resolved by types for Go (ctxls references -h)
  impact     list what a change reaches: changed units, their callers, what they use (ctxls impact -h)
  index      build or refresh the on-disk index of a workspace (ctxls index -h); --store publishes it
  store      list a store's repositories, make and revoke its tokens, collect its garbage (ctxls store -h)
  serve      run the language server on stdio (--listen ADDR for a loopback or Unix socket, with a token: ctxls serve -h)
  mcp        run the MCP server for coding assistants on stdio (--http ADDR for Streamable HTTP)
  version    print the version`

// newFlagSet returns a flag set that reports errors instead of exiting.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

func parseFlags(fs *flag.FlagSet, args []string, usage string, env Env) (help bool, err error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(env.Stdout)
			fmt.Fprintf(env.Stdout, "usage: %s\n\nflags:\n", usage)
			fs.PrintDefaults()
			return true, nil
		}
		return false, &usageError{usage, err.Error()}
	}
	if fs.NArg() > 0 {
		return false, &usageError{usage, fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	return false, nil
}

// rootDir checks --root and returns its absolute, symlink-resolved path.
func rootDir(root, usage string) (string, error) {
	if root == "" {
		return "", &usageError{usage, "--root is required"}
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("--root %s: %w", root, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", &usageError{usage, fmt.Sprintf("--root %s: no such directory", root)}
		}
		return "", fmt.Errorf("--root %s: %w", root, err)
	}
	if !st.IsDir() {
		return "", &usageError{usage, fmt.Sprintf("--root %s: not a directory", root)}
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs, nil
}

// indexOptions are the options every CLI command opens an index with.
func indexOptions(env Env, cacheDir, encoding string) (ws.IndexOptions, error) {
	// A lazy counter: the index counts tokens only for files it
	// (re)indexes, and a warm open with nothing changed needs none.
	counter, err := env.Tokens.Lazy(encoding)
	if err != nil {
		return ws.IndexOptions{}, &assemble.ParamError{Field: "encoding", Msg: err.Error()}
	}
	// An empty CacheDir lets the index choose: $CTXLS_CACHE_DIR/<hash of
	// root> or the user cache directory.
	return ws.IndexOptions{Counters: map[string]tokens.Counter{encoding: counter}, CacheDir: cacheDir,
		// The cache directory cannot be written: said once, on stderr.
		Warnf: func(format string, args ...any) { fmt.Fprintf(env.Stderr, "ctxls: warning: "+format+"\n", args...) },
	}, nil
}

// printJSON writes v to w as indented JSON (the --json output of the
// commands).
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
