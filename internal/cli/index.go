package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/ctxls/ctxls/internal/retrieve"
	ws "github.com/ctxls/ctxls/internal/workspace"
)

const indexUsage = `ctxls index --root DIR [[--store URL | --store-file F] --repo NAME [--store-vectors]] [--json] [--rebuild] [--retrain] [--encoding E] [--cache-dir DIR] [--git-history=false] [--embeddings workspace|endpoint|off [--embeddings-endpoint URL --embeddings-model M …]]`

func runIndex(ctx context.Context, args []string, env Env) error {
	fs := newFlagSet("index")
	root := fs.String("root", "", "workspace root (required)")
	asJSON := fs.Bool("json", false, "print the build statistics as JSON")
	rebuild := fs.Bool("rebuild", false, "rebuild from scratch even if a valid index exists")
	retrain := fs.Bool("retrain", false, "train the semantic channel's model again on the tree as it is (otherwise the kept model is reused until the tree has drifted past its thresholds, embedding only changed files)")
	encoding := fs.String("encoding", retrieve.DefaultEncoding, "token encoding counted for every chunk")
	cacheDir := fs.String("cache-dir", "", "index directory for this root: new, empty, or one ctxls made (default $CTXLS_CACHE_DIR/<hash> or the user cache dir)")
	useHistory := fs.Bool("git-history", true, "also read the root's git history into its cache beside the index (false: leave it)")
	embeddings := fs.String("embeddings", ws.EmbeddingsDefault, "also compute the semantic channel's vectors, stored beside the index: workspace (learned from the root itself), endpoint (asked of an embeddings service, --embeddings-endpoint …) or off")
	epConfig := ws.AddEndpointFlags(fs)
	storeSrc := ws.AddStoreFlags(fs, "then publish the index into this PostgreSQL store (postgres://user@host:port/database; with --repo and no --store or --store-file, $CTXLS_STORE_FILE or $CTXLS_STORE) as --repo's next generation")
	repoName := fs.String("repo", "", "the repository's name in --store (letters, digits, . _ - /)")
	storeVectors := fs.Bool("store-vectors", false, "with --store: publish the semantic channel's vectors too (they change whole with any change to the tree; without them each replica computes its own)")
	if help, err := parseFlags(fs, args, indexUsage, env); help || err != nil {
		return err
	}
	dir, err := rootDir(*root, indexUsage)
	if err != nil {
		return err
	}
	dsn, from, err := storeDSN(storeSrc, *repoName != "", indexUsage)
	if err != nil {
		return err
	}
	if (dsn == "") != (*repoName == "") {
		return &usageError{indexUsage, "give --store and --repo together (or --repo with --store-file, $" + ws.EnvStoreFile + " or $" + ws.EnvStore + ")"}
	}
	var st ws.Store
	if dsn != "" {
		if err := ws.CheckRepoName(*repoName); err != nil {
			return &usageError{indexUsage, err.Error()}
		}
		// Connect first: a store that cannot be reached fails before the
		// build, not after it.
		if st, err = openStore(ctx, storeSrc, dsn, from, indexUsage, env); err != nil {
			return err
		}
		defer st.Close()
	}
	ep, err := ws.EmbeddingsFlags(*embeddings, epConfig)
	if err != nil {
		return &usageError{indexUsage, err.Error()}
	}
	if *retrain && *embeddings != ws.EmbeddingsWorkspace {
		return &usageError{indexUsage, "--retrain trains the workspace embedder: it goes with --embeddings workspace"}
	}
	opts, err := indexOptions(env, *cacheDir, *encoding)
	if err != nil {
		return err
	}
	opts.Rebuild = *rebuild
	// Writing the index is the whole job: a cache directory that cannot
	// take it fails the command instead of indexing in memory for nothing.
	opts.NoMemoryFallback = true
	var bar *progressBar
	if env.StderrIsTerminal && !*asJSON {
		bar = newProgressBar(env.Stderr)
		opts.Progress = bar.update
	}
	defer batchGC(ctx)()
	// With a store, the index built is published before it is closed,
	// its git history read into its cache first (the publish carries it).
	var then func(x *ws.Index)
	var pub *ws.PublishStats
	var pubErr error
	if st != nil {
		withVectors := *storeVectors && *embeddings == ws.EmbeddingsWorkspace
		then = func(x *ws.Index) {
			if x.Dir() == "" {
				pubErr = fmt.Errorf("publish %s: the index could not be kept on disk", *repoName)
				return
			}
			if *useHistory {
				ws.LoadHistory(ctx, dir, x.Dir(), warnf(env))
			}
			var ps ws.PublishStats
			if ps, pubErr = ws.Publish(ctx, st, *repoName, x, withVectors); pubErr == nil {
				pub = &ps
			}
		}
	}
	bs, err := buildIndex(ctx, dir, opts, vectorsOf(*embeddings, *retrain), ep, env, then)
	bar.finish()
	var ce *ws.CacheDirError
	var re *ws.RootReadError
	switch {
	case errors.Is(err, ws.ErrNotCacheDir) || errors.As(err, &re):
		return err // names the directory, why, and what to do
	case errors.As(err, &ce):
		return fmt.Errorf("%w: nothing was saved (give --cache-dir, or $CTXLS_CACHE_DIR, a writable directory with free space)", err)
	case err != nil:
		return fmt.Errorf("index %s: %w", dir, err)
	}
	if pubErr != nil {
		return pubErr
	}
	if *useHistory && bs.Dir != "" && st == nil {
		// Read the git history into its cache beside the index too: the
		// next assemble then only checks HEAD.
		ws.LoadHistory(ctx, dir, bs.Dir, warnf(env))
	}
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if pub != nil {
			return enc.Encode(struct {
				ws.IndexStats
				Publish *ws.PublishStats `json:"publish"`
			}{bs, pub})
		}
		return enc.Encode(bs)
	}
	fmt.Fprintln(env.Stdout, summary(bs))
	if pub != nil {
		fmt.Fprintln(env.Stdout, publishSummary(*pub))
	}
	return nil
}

// publishSummary is the line `ctxls index --store` adds.
func publishSummary(p ws.PublishStats) string {
	var line string
	if p.Unchanged {
		line = fmt.Sprintf("publish: %s generation %d unchanged (%d files) in %.2f s", p.Repo, p.Generation, p.Files, p.DurationMs/1000)
	} else {
		line = fmt.Sprintf("publish: %s generation %d: %d files, %d of %d blobs new, %.1f MB written in %.2f s",
			p.Repo, p.Generation, p.Files, p.NewBlobs, p.Checked, float64(p.Written)/1e6, p.DurationMs/1000)
	}
	if p.Image {
		line += fmt.Sprintf("; the index image for cold replicas, %.1f MB", float64(p.ImageWritten)/1e6)
	}
	if p.Repaired > 0 {
		line += fmt.Sprintf("; damaged blobs in the store written again: %d", p.Repaired)
	}
	return line
}

// vectorsWanted says what buildIndex does with the semantic channel's
// vectors.
type vectorsWanted int

const (
	vectorsNone    vectorsWanted = iota // leave them
	vectorsSync                         // bring them up to date, the kept model reused within its drift
	vectorsRetrain                      // train the model again
)

// vectorsOf is what --embeddings and --retrain ask of buildIndex.
func vectorsOf(mode string, retrain bool) vectorsWanted {
	switch {
	case mode == ws.EmbeddingsOff:
		return vectorsNone
	case retrain:
		return vectorsRetrain
	}
	return vectorsSync
}

// buildIndex builds or refreshes the index of root, as index.Build does,
// and brings the semantic channel's vectors beside it up to date as vec
// says; then (when set) runs on the index before it is closed.
func buildIndex(ctx context.Context, root string, opts ws.IndexOptions, vec vectorsWanted, ep *ws.Endpoint, env Env, then func(*ws.Index)) (ws.IndexStats, error) {
	withVectors := vec != vectorsNone
	if !withVectors && then == nil {
		return ws.BuildIndex(ctx, root, opts)
	}
	// Nothing changed since the last run, the vectors with it: said
	// without opening the index.
	if then == nil && vec == vectorsSync && ep == nil {
		if st, ok := ws.IndexUnchanged(ctx, root, opts); ok {
			return st, nil
		}
	}
	opts.Background, opts.Warm = false, false
	// The vector store synced after the index opens is read while it
	// opens (as assemble does).
	var pre *ws.VectorsPrefetch
	if withVectors && ep == nil && vec != vectorsRetrain {
		if cdir, err := opts.CacheDirOf(root); err == nil {
			pre = ws.PrefetchVectors(cdir)
		}
	}
	x, err := ws.OpenIndex(ctx, root, opts)
	if err != nil {
		return ws.IndexStats{}, err
	}
	st := x.Stats()
	if withVectors && st.Dir != "" {
		snap, release := x.Snapshot()
		ws.LoadVectors(ctx, snap, st.Dir, ep, pre, vec == vectorsRetrain, warnf(env))
		release()
	}
	if then != nil {
		then(x)
	}
	if err := x.Close(); err != nil {
		return st, err
	}
	return st, nil
}

// summary is the one line `ctxls index` prints.
func summary(st ws.IndexStats) string {
	var skipped []string
	keys := make([]string, 0, len(st.Skipped))
	for k := range st.Skipped {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		skipped = append(skipped, fmt.Sprintf("%s %d", k, st.Skipped[k]))
	}
	s := fmt.Sprintf("%s: %d files, %d chunks, %.1f MB in %.2f s (%d read, %d changed, %d removed), index %.1f MB",
		st.Mode, st.Files, st.Chunks, float64(st.Bytes)/1e6, st.DurationMs/1000, st.Read, st.Changed, st.Removed, float64(st.IndexBytes)/1e6)
	if st.Reason != "" {
		s += " [" + st.Reason + "]"
	}
	if len(skipped) > 0 {
		s += "; skipped: " + strings.Join(skipped, ", ")
	}
	return s
}
