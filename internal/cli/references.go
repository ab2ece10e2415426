package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/refs"
	"github.com/ctxls/ctxls/internal/retrieve"
	ws "github.com/ctxls/ctxls/internal/workspace"
)

const referencesUsage = `ctxls references --root DIR (--symbol NAME | --at PATH:LINE[:COL]) [--budget N] [--json]`

const impactUsage = `ctxls impact --root DIR (--diff REV | --diff-file F|-) [--depth N] [--budget N] [--json]`

// ReferencesJSON is `ctxls references --json`'s output.
type ReferencesJSON struct {
	Target       refs.Target    `json:"target"`
	Exact        bool           `json:"exact"`
	References   []refs.Site    `json:"references"`
	Total        int            `json:"total"`
	Omitted      []refs.Omitted `json:"omitted"`
	OmittedTotal int            `json:"omittedTotal"`
	IndexState   string         `json:"indexState"`
}

// ImpactJSON is `ctxls impact --json`'s output.
type ImpactJSON struct {
	Exact        bool           `json:"exact"`
	Reached      []refs.Reached `json:"reached"`
	Total        int            `json:"total"`
	Omitted      []refs.Omitted `json:"omitted"`
	OmittedTotal int            `json:"omittedTotal"`
	IndexState   string         `json:"indexState"`
}

// openSnapshot opens the index of dir for one request and calls fn with
// its snapshot.
func openSnapshot(ctx context.Context, env Env, dir, cacheDir string, fn func(*ws.Snapshot) error) error {
	opts, err := indexOptions(env, cacheDir, retrieve.DefaultEncoding)
	if err != nil {
		return err
	}
	opts.Warm = true
	opts.PrivateWhenLocked, opts.LockTimeout = true, lockWait
	x, err := ws.OpenIndex(ctx, dir, opts)
	if re := (*ws.RootReadError)(nil); errors.As(err, &re) {
		return err
	}
	if err != nil {
		return fmt.Errorf("index %s: %w", dir, err)
	}
	defer x.Close()
	snap, release := x.Snapshot()
	defer release()
	return fn(snap)
}

// parseAt reads --at PATH:LINE[:COL].
func parseAt(s string) (refs.Query, error) {
	parts := strings.Split(s, ":")
	bad := &assemble.ParamError{Field: "at", Msg: fmt.Sprintf("%q: want PATH:LINE or PATH:LINE:COL (1-based)", s)}
	if len(parts) < 2 {
		return refs.Query{}, bad
	}
	q := refs.Query{}
	nums := parts[len(parts)-1:]
	if len(parts) >= 3 {
		if _, err := strconv.Atoi(parts[len(parts)-2]); err == nil {
			nums = parts[len(parts)-2:]
		}
	}
	q.Path = strings.Join(parts[:len(parts)-len(nums)], ":")
	var err error
	if q.Line, err = strconv.Atoi(nums[0]); err != nil || q.Line < 1 {
		return refs.Query{}, bad
	}
	if len(nums) == 2 {
		if q.Column, err = strconv.Atoi(nums[1]); err != nil || q.Column < 1 {
			return refs.Query{}, bad
		}
	}
	if q.Path == "" {
		return refs.Query{}, bad
	}
	return q, nil
}

func runReferences(ctx context.Context, args []string, env Env) error {
	fs := newFlagSet("references")
	root := fs.String("root", "", "workspace root (required)")
	symbol := fs.String("symbol", "", "the name: Normalize, ranges.Normalize, Index.Close")
	at := fs.String("at", "", "a position instead: PATH:LINE[:COL], the path relative to the root")
	budget := fs.Int("budget", 0, "token budget of the listing (0: every reference)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	cacheDir := fs.String("cache-dir", "", "index cache directory (default: the user cache directory)")
	if help, err := parseFlags(fs, args, referencesUsage, env); help || err != nil {
		return err
	}
	dir, err := rootDir(*root, referencesUsage)
	if err != nil {
		return err
	}
	var q refs.Query
	switch {
	case (*symbol == "") == (*at == ""):
		return &usageError{referencesUsage, "give --symbol or --at, one of them"}
	case *symbol != "":
		q.Symbol = *symbol
	default:
		if q, err = parseAt(*at); err != nil {
			return err
		}
	}
	return printListing(ctx, env, dir, *cacheDir, *budget, referencesUsage, *asJSON, func(snap *ws.Snapshot, count func(string) int) (string, any, error) {
		res, err := refs.Find(ctx, snap, q)
		if err != nil {
			return "", nil, err
		}
		l := res.List(*budget, count)
		return l.Text, ReferencesJSON{Target: res.Target, Exact: res.Exact, References: res.Sites[:l.Listed], Total: len(res.Sites),
			Omitted: omittedList(l.Omitted), OmittedTotal: l.OmittedTotal, IndexState: snap.StateRoot()}, nil
	})
}

func runImpact(ctx context.Context, args []string, env Env) error {
	fs := newFlagSet("impact")
	root := fs.String("root", "", "workspace root (required)")
	diffRev := fs.String("diff", "", "the change: git diff REV in the root (HEAD~1, main...HEAD)")
	diffFile := fs.String("diff-file", "", "the change: a unified diff read from a file (- for stdin)")
	depth := fs.Int("depth", 1, "hops of callers to follow (0 to 5)")
	budget := fs.Int("budget", 0, "token budget of the listing (0: everything reached)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	cacheDir := fs.String("cache-dir", "", "index cache directory (default: the user cache directory)")
	if help, err := parseFlags(fs, args, impactUsage, env); help || err != nil {
		return err
	}
	dir, err := rootDir(*root, impactUsage)
	if err != nil {
		return err
	}
	var diff string
	switch {
	case (*diffRev == "") == (*diffFile == ""):
		return &usageError{impactUsage, "give --diff or --diff-file, one of them"}
	case *diffRev != "":
		if diff, err = retrieve.DiffOfRev(ctx, dir, *diffRev, "diff"); err != nil {
			return err
		}
	default:
		b, err := readInput("--diff-file", *diffFile, env.Stdin, retrieve.MaxDiffBytes)
		if err != nil {
			return err
		}
		diff = string(b)
	}
	return printListing(ctx, env, dir, *cacheDir, *budget, impactUsage, *asJSON, func(snap *ws.Snapshot, count func(string) int) (string, any, error) {
		res, err := refs.Impact(ctx, snap, diff, *depth)
		if err != nil {
			return "", nil, err
		}
		l := res.List(*budget, count)
		return l.Text, ImpactJSON{Exact: res.Exact, Reached: res.Reached[:l.Listed], Total: len(res.Reached),
			Omitted: omittedList(l.Omitted), OmittedTotal: l.OmittedTotal, IndexState: snap.StateRoot()}, nil
	})
}

// printListing opens dir's index for one request and prints the listing
// list makes of its snapshot within budget tokens: its text, or with
// asJSON its JSON value.
func printListing(ctx context.Context, env Env, dir, cacheDir string, budget int, usage string, asJSON bool,
	list func(snap *ws.Snapshot, count func(string) int) (text string, out any, err error)) error {
	if budget < 0 {
		return &usageError{usage, "--budget: want 0 or more tokens"}
	}
	counter, err := env.Tokens.Get(retrieve.DefaultEncoding)
	if err != nil {
		return err
	}
	return openSnapshot(ctx, env, dir, cacheDir, func(snap *ws.Snapshot) error {
		text, out, err := list(snap, counter.Count)
		if err != nil {
			return err
		}
		if !asJSON {
			_, err := fmt.Fprint(env.Stdout, text)
			return err
		}
		return printJSON(env.Stdout, out)
	})
}

// omittedList is l as a JSON array: never null.
func omittedList(l []refs.Omitted) []refs.Omitted {
	if l == nil {
		return []refs.Omitted{}
	}
	return l
}
