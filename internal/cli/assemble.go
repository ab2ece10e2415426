package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/refs"
	"github.com/ctxls/ctxls/internal/retrieve"
	"github.com/ctxls/ctxls/internal/wire"
	ws "github.com/ctxls/ctxls/internal/workspace"
)

const assembleUsage = `ctxls assemble (--root DIR | [--store URL | --store-file F] --repo NAME [--repo NAME]... [--overlay DIR]) [--query TEXT | --query-file F] [--focus PATH:LINE[:COL]] [--diff REV | --diff-file F|-] [--budget N] [--per-file N] [--per-part N] [--encoding E] [--format markdown|xml|json] [--json] [--strategy grouped|interleaved|score] [--mode related|review] [--include GLOB]... [--exclude GLOB]... [--weights CH=W,…] [--git-history=false] [--embeddings workspace|endpoint|off [--embeddings-endpoint URL --embeddings-model M [--embeddings-dimensions N] [--embeddings-key-env VAR]]] [--explain]`

// ResultSchemaVersion is the version of docs/result.schema.json that the
// JSON result of `ctxls assemble --json` (or --format json) follows; the
// result carries it as "schemaVersion". It changes when a field is
// removed or renamed or changes its type or meaning; fields may be added
// within a version (readers ignore fields they do not know).
const ResultSchemaVersion = 1

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

func runAssemble(ctx context.Context, args []string, env Env) error {
	fs := newFlagSet("assemble")
	root := fs.String("root", "", "workspace root (required)")
	query := fs.String("query", "", "the question or task")
	queryFile := fs.String("query-file", "", "read the query from a file (- for stdin)")
	focus := fs.String("focus", "", "the cursor: PATH:LINE[:COL], 1-based, PATH relative to --root")
	diffRev := fs.String("diff", "", "use `git diff REV` in the root as the diff")
	diffFile := fs.String("diff-file", "", "read a unified diff from a file (- for stdin)")
	budget := fs.Int("budget", 8000, "maximum tokens of the rendered context")
	perFile := fs.Int("per-file", 0, "maximum tokens per file (0 = no cap)")
	perPart := fs.Int("per-part", 0, "maximum tokens per part (0 = no cap)")
	encoding := fs.String("encoding", retrieve.DefaultEncoding, "token encoding: cl100k_base, o200k_base or approx")
	format := fs.String("format", "markdown", "rendering: markdown, xml or json (json implies --json)")
	asJSON := fs.Bool("json", false, "print the whole result object as JSON (docs/result.schema.json), the context rendered in --format inside it")
	strategy := fs.String("strategy", "grouped", "order: grouped, interleaved or score")
	mode := fs.String("mode", "related", "what the context is for: related (the code related to the request; for a diff, what else may change with it) or review (a diff under review: its changed code, its callers and the definitions it uses, nothing else)")
	explain := fs.Bool("explain", false, "print why each part is in and each candidate out (stderr, or in the JSON)")
	cacheDir := fs.String("cache-dir", "", "index directory for this root: new, empty, or one ctxls made (default $CTXLS_CACHE_DIR/<hash> or the user cache dir)")
	weights := fs.String("weights", "", "retrieval channel weights, e.g. graph=1,neighbor=0 (0 turns a channel off)")
	useHistory := fs.Bool("git-history", true, "use the root's git history: files changed with the diff's, files changed often and lately (read once, cached with the index)")
	embeddings := fs.String("embeddings", ws.EmbeddingsDefault, "the semantic channel's vectors: workspace (learned from the root itself, stored with the index), endpoint (an OpenAI-compatible embeddings service, --embeddings-endpoint …) or off")
	epConfig := ws.AddEndpointFlags(fs)
	storeSrc := ws.AddStoreFlags(fs, "answer from a PostgreSQL store of indexes (postgres://user@host:port/database; with --repo and no --store or --store-file, $CTXLS_STORE_FILE or $CTXLS_STORE) instead of a root: name the repository with --repo; --cache-dir is then where checkouts are kept")
	overlayDir := fs.String("overlay", "", "with --store and --diff-file: read the diff's files from this directory (a pull request's checkout) and lay them over the stored index in memory: a review bot's context with no index of its own")
	var repoNames multiFlag
	fs.Var(&repoNames, "repo", "the repository of --store to answer for; repeated (or '*': every one), one context across them, each repository's paths under its name")
	var include, exclude multiFlag
	fs.Var(&include, "include", "only paths matching this glob (repeatable)")
	fs.Var(&exclude, "exclude", "leave out paths matching this glob (repeatable)")
	if help, err := parseFlags(fs, args, assembleUsage, env); help || err != nil {
		return err
	}
	var dir string
	var src ws.StoreSource
	var single *ws.Checkout // src when it is one repository's
	if storeSrc.Named() || len(repoNames) > 0 {
		dsn, from, err := storeDSN(storeSrc, len(repoNames) > 0, assembleUsage)
		switch {
		case err != nil:
			return err
		case *root != "":
			return &usageError{assembleUsage, "give --root or --store, not both"}
		case dsn == "":
			return &usageError{assembleUsage, "--repo needs --store (or --store-file, $" + ws.EnvStoreFile + ", $" + ws.EnvStore + ")"}
		case len(repoNames) == 0:
			return &usageError{assembleUsage, "--store needs --repo NAME"}
		case *diffRev != "":
			return &usageError{assembleUsage, "--diff REV runs git in the root; with --store, give the diff with --diff-file"}
		}
		if *overlayDir != "" && *diffFile == "" {
			return &usageError{assembleUsage, "--overlay goes with --diff-file: the diff names the files to lay over the stored index"}
		}
		for _, r := range repoNames {
			if r == ws.AllRepos {
				continue
			}
			if err := ws.CheckRepoName(r); err != nil {
				return &usageError{assembleUsage, err.Error()}
			}
		}
		st, err := openStore(ctx, storeSrc, dsn, from, assembleUsage, env)
		if err != nil {
			return err
		}
		defer st.Close()
		if src, single, err = checkoutSource(ctx, st, repoNames, *cacheDir); err != nil {
			return err
		}
		defer src.Close()
		dir, _ = src.Dirs()
	} else {
		if *overlayDir != "" {
			return &usageError{assembleUsage, "--overlay goes with --store: a local root reads its files itself"}
		}
		var err error
		if dir, err = rootDir(*root, assembleUsage); err != nil {
			return err
		}
	}
	req := retrieve.Request{
		Query: *query, Budget: assemble.Budget{MaxTokens: *budget, PerFileMaxTokens: *perFile, PerPartMaxTokens: *perPart},
		Format: assemble.Format(*format), Strategy: assemble.Strategy(*strategy), Encoding: *encoding,
		Include: include, Exclude: exclude, Explain: *explain, Mode: retrieve.Mode(*mode),
	}
	if *weights != "" {
		w, err := retrieve.ParseWeights(*weights)
		if err != nil {
			return &usageError{assembleUsage, "--weights: " + err.Error()}
		}
		req.Weights = w
	}
	if *queryFile != "" {
		if *query != "" {
			return &usageError{assembleUsage, "give --query or --query-file, not both"}
		}
		b, err := readInput("--query-file", *queryFile, env.Stdin, retrieve.MaxQueryBytes)
		if err != nil {
			return err
		}
		req.Query = string(b)
	}
	if *focus != "" {
		f, err := parseFocus(*focus, dir)
		if err != nil {
			return err
		}
		req.Focus = f
	}
	switch {
	case *diffRev != "" && *diffFile != "":
		return &usageError{assembleUsage, "give --diff or --diff-file, not both"}
	case *diffRev != "":
		out, err := retrieve.DiffOfRev(ctx, dir, *diffRev, "diff")
		if err != nil {
			return err
		}
		req.Diff = out
	case *diffFile != "":
		b, err := readInput("--diff-file", *diffFile, env.Stdin, retrieve.MaxDiffBytes)
		if err != nil {
			return err
		}
		req.Diff = string(b)
	}
	engine := retrieve.NewEngine(env.Tokens).WithResolver(refs.Resolver{})
	// The request is checked once: the plan is what the engine runs.
	plan, err := engine.Plan(req)
	if errors.Is(err, retrieve.ErrNothingAsked) {
		return &usageError{assembleUsage, "give at least one of --query, --query-file, --focus, --diff and --diff-file (non-empty)"}
	} else if err != nil {
		return err
	}
	ep, err := ws.EmbeddingsFlags(*embeddings, epConfig)
	if err != nil {
		return &usageError{assembleUsage, err.Error()}
	}
	start := time.Now()
	// Build the encoding on the side while the index opens; the request
	// waits for it only if it is not ready by then.
	go env.Tokens.Get(plan.Request().Encoding) //nolint:errcheck // Assemble reports the error
	opts, err := indexOptions(env, *cacheDir, plan.Request().Encoding)
	if err != nil {
		return err
	}
	if u, ok := ws.AsUnion(src); ok {
		defer ws.OpenUnionParts(ctx, u, opts, lockWait)()
	}
	if src != nil {
		if err := ws.PrepareSource(src, &opts); err != nil {
			return fmt.Errorf("checkout: %w", err)
		}
	}
	opts.Warm = true // a request follows at once
	// Another ctxls (a server on the same root) holding the index: answer
	// from a private index built for this call, said once on stderr,
	// rather than wait for the lock or fail.
	opts.PrivateWhenLocked, opts.LockTimeout = true, lockWait
	var bar *progressBar
	if env.StderrIsTerminal {
		bar = newProgressBar(env.Stderr)
		opts.Progress = bar.update
	}
	defer batchGC(ctx)()
	// The vector store the request reads after the index opens is read
	// while it opens.
	var vectors *ws.VectorsPrefetch
	if *embeddings == ws.EmbeddingsWorkspace && plan.WantsSemantic() {
		if cdir, err := opts.CacheDirOf(dir); err == nil {
			vectors = ws.PrefetchVectors(cdir)
		}
	}
	x, err := ws.OpenIndex(ctx, dir, opts)
	bar.finish()
	if re := (*ws.RootReadError)(nil); errors.As(err, &re) {
		return err // names the root and why
	}
	if err != nil {
		return fmt.Errorf("index %s: %w", dir, err)
	}
	defer x.Close()
	snap, release := x.Snapshot()
	defer release()
	// The vectors and history are the stored generation's; a pull
	// request's files laid over it are what the request reads.
	base := snap
	if *overlayDir != "" {
		o := x.NewOverlay()
		defer o.Close()
		skipped, err := overlayDiff(ctx, o, *overlayDir, plan.Request().Diff)
		if err != nil {
			return err
		}
		if *explain {
			for _, s := range skipped {
				why := s.Reason
				if s.Detail != "" {
					why += " " + s.Detail
				}
				fmt.Fprintf(env.Stderr, "overlay: %s left out: %s\n", s.Path, why)
			}
		}
		var releaseOverlay func()
		snap, releaseOverlay = o.Snapshot()
		defer releaseOverlay()
	}
	switch {
	case !*useHistory || !plan.WantsHistory():
	case single != nil:
		plan.SetHistory(ws.StoreHistory(x.Dir())) // the tree is no git checkout
	case src != nil: // several repositories: no one history
		plan.AddNote(ws.UnionHistoryNote)
	default:
		plan.SetHistory(ws.LoadHistory(ctx, dir, x.Dir(), warnf(env)))
	}
	if u, ok := ws.AsUnion(src); ok && *embeddings == ws.EmbeddingsWorkspace && plan.WantsSemantic() {
		// Several repositories: their vectors are each one's own, as every
		// replica computes them.
		vs, err := ws.UnionVectors(ctx, base, u.Repos, nil, ws.UnionVectorDir(u))
		if err != nil {
			fmt.Fprintf(env.Stderr, "ctxls: warning: semantic vectors: %v (going on without them)\n", err)
		}
		plan.SetSemantic(vs)
	} else if *embeddings != ws.EmbeddingsOff && plan.WantsSemantic() {
		plan.SetSemantic(ws.LoadVectors(ctx, base, x.Dir(), ep, vectors, false, warnf(env)))
	}
	if *explain && !*asJSON && plan.Request().Format != assemble.JSON {
		switch {
		case *embeddings == ws.EmbeddingsOff:
			fmt.Fprintln(env.Stderr, "semantic: off (--embeddings off)")
		case plan.SemanticUnasked() != "":
			fmt.Fprintln(env.Stderr, "semantic: "+plan.SemanticUnasked())
		case plan.Request().Semantic == nil:
			fmt.Fprintln(env.Stderr, "semantic: none (off by --weights, or the vectors could not be computed)")
		default:
			fmt.Fprintf(env.Stderr, "semantic: %v\n", plan.Request().Semantic)
		}
		switch {
		case !*useHistory:
			fmt.Fprintln(env.Stderr, "history: off (--git-history=false)")
		case plan.Request().History == nil && src != nil && single == nil:
			fmt.Fprintln(env.Stderr, "history: none (several repositories: a union reads no git history)")
		case plan.Request().History == nil:
			fmt.Fprintln(env.Stderr, "history: none (not a git checkout, or off by --weights)")
		default:
			fmt.Fprintf(env.Stderr, "history: %v\n", plan.Request().History)
		}
	}
	resp, err := engine.AssemblePlan(ctx, snap, plan)
	if err != nil {
		return err
	}
	if *asJSON || plan.Request().Format == assemble.JSON {
		if resp.Omitted == nil {
			resp.Omitted = []assemble.Omitted{}
		}
		out := struct {
			SchemaVersion int `json:"schemaVersion"`
			*retrieve.Response
			Parts  []wire.Part        `json:"parts"`
			Timing map[string]float64 `json:"timing"`
		}{ResultSchemaVersion, resp, wire.Parts(resp.Parts, nil), map[string]float64{"elapsedMs": float64(time.Since(start).Microseconds()) / 1000}}
		enc := json.NewEncoder(env.Stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if _, err := io.WriteString(env.Stdout, resp.Rendered); err != nil {
		return err
	}
	if *explain {
		writeExplain(env.Stderr, resp)
	}
	return nil
}

// parseFocus reads --focus PATH:LINE[:COL] (retrieve.ParseFocus, the
// grammar of every face), the path relative to the root or absolute
// inside it.
func parseFocus(s, root string) (*retrieve.Focus, error) {
	p, line, col, err := retrieve.ParseFocus(s)
	if err != nil {
		return nil, err
	}
	rel, err := retrieve.RootPath(root, p, "focus")
	if err != nil {
		return nil, err
	}
	return &retrieve.Focus{Path: rel, Line: line, Col: col}, nil
}

// lockWait is how long ctxls assemble waits for another ctxls's hold on
// the root's index before it builds a private one: a refresh or checkpoint
// of a server lets go within it; a running server does not.
const lockWait = 2 * time.Second

// readInput reads the file name ("-": stdin) that flag names, up to
// limit bytes: a longer input (an endless stream such as /dev/zero
// included) is bad usage naming the flag and the limit, found after
// reading limit+1 bytes, never more.
func readInput(flag, name string, stdin io.Reader, limit int) ([]byte, error) {
	r := stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", flag, name, err)
	}
	if len(b) > limit {
		return nil, &assemble.ParamError{Field: flag, Msg: fmt.Sprintf("%s is longer than the %s a request may hold", name, retrieve.SizeText(limit))}
	}
	return b, nil
}

// writeExplain prints --explain: each part's and omitted candidate's
// channels in the engine's order for it (retrieve.ExplainChannels).
func writeExplain(w io.Writer, resp *retrieve.Response) {
	explainChannels := retrieve.ExplainChannels()
	for _, e := range resp.Explain {
		status := "in " + e.Part
		if e.Part == "" {
			status = "out: " + e.Reason
		}
		var chans []string
		for _, name := range explainChannels {
			if v, ok := e.Channels[name]; ok {
				chans = append(chans, fmt.Sprintf("%s=%.3f", name, v))
			}
		}
		why := ""
		if len(e.Priors) > 0 {
			why = " {" + strings.Join(e.Priors, "; ") + "}"
		}
		if e.Focus != "" {
			why += " (" + e.Focus + ")"
		}
		fmt.Fprintf(w, "%-8s %s %s score=%.3f [%s]%s\n", status, e.Handle, e.Symbol, e.Score, strings.Join(chans, " "), why)
	}
}
