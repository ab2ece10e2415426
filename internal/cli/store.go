package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxls/ctxls/internal/history"
	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/pgstore"
	"github.com/ctxls/ctxls/internal/retrieve"
	"github.com/ctxls/ctxls/internal/semantic"
	ws "github.com/ctxls/ctxls/internal/workspace"
)

// storeDSN returns the connection string src gives and where it came
// from (with env, for a command that always reads a store, the
// environment's when no flag gives one); a connection string that cannot
// be had is bad usage (of usage).
func storeDSN(src *pgstore.Source, env bool, usage string) (dsn, from string, err error) {
	dsn, from, err = src.DSN(env)
	if se := (*pgstore.SourceError)(nil); errors.As(err, &se) {
		return "", "", &usageError{usage, se.Error()}
	}
	return dsn, from, err
}

// openStore connects to the store at dsn, which from gave; errors name
// from, and a connection string that does not parse is bad usage (of
// usage). A password in --store draws a warning: the process list shows
// it to every user of the machine.
func openStore(ctx context.Context, src *pgstore.Source, dsn, from, usage string, env Env) (*pgstore.Store, error) {
	if src.Exposed() {
		fmt.Fprintf(env.Stderr, "ctxls: warning: --store holds a password, which every user of this machine can read in the process list: give it in --store-file, $%s or a .pgpass file instead (docs/deploy.md)\n", pgstore.EnvStore)
	}
	st, err := pgstore.Open(ctx, dsn)
	var ue *pgstore.URLError
	var se *pgstore.SourceError
	switch {
	case errors.As(err, &ue):
		return nil, &usageError{usage, from + ": " + ue.Error()}
	case errors.As(err, &se):
		return nil, &usageError{usage, from + ": " + se.Error()}
	case err != nil:
		return nil, fmt.Errorf("%s: %w (is the store's server up, and the connection string right?)", from, err)
	}
	// What the store reports (a publish's retries, a generation it
	// cannot use) goes to stderr.
	st.SetLogf(func(format string, args ...any) { fmt.Fprintf(env.Stderr, "ctxls: "+format+"\n", args...) })
	return st, nil
}

// checkoutSource checks the repositories named out of st for a request:
// one repository's checkout (returned twice: as the source and as
// itself), or the union of several ('*': every one in the store).
// The caller closes the source.
func checkoutSource(ctx context.Context, st *pgstore.Store, names []string, cacheDir string) (ws.StoreSource, *pgstore.Checkout, error) {
	parent, err := ws.CheckoutParent(cacheDir)
	if err != nil {
		return nil, nil, err
	}
	if slices.Contains(names, pgstore.AllRepos) {
		list, err := st.Repos(ctx, nil)
		if err != nil {
			return nil, nil, err
		}
		names = names[:0:0]
		for _, r := range list {
			names = append(names, r.Name)
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	var src ws.StoreSource
	var single *pgstore.Checkout
	switch len(names) {
	case 0:
		return nil, nil, errors.New("--repo '*': the store has no repository")
	case 1:
		co, err := st.Checkout(ctx, names[0], parent, nil)
		if err != nil {
			return nil, nil, storeError(err)
		}
		src, single = co, co
	default:
		u, err := st.CheckoutUnion(ctx, names, parent, nil)
		if err != nil {
			return nil, nil, storeError(err)
		}
		src = u
	}
	return src, single, nil
}

// storeHistory returns the history a checkout came with (nil: none).
func storeHistory(indexDir string) *history.Log {
	return history.LoadCache(filepath.Join(indexDir, history.CacheFile))
}

// publish publishes the open index x as repo's next generation, with
// the git history's cache and, withVectors, the semantic channel's vectors
// (which change whole with any change to the tree: the vectors of a
// workspace are trained on all of it, so a replica computing its own keeps
// publishes small).
func publish(ctx context.Context, st *pgstore.Store, repo string, x *index.Index, withVectors bool) (pgstore.PublishStats, error) {
	snap, release := x.Snapshot()
	defer release()
	d := x.Dir()
	// The index directory keeps the publish's record: the next publish
	// checks the store's rows against it instead of reading them back.
	po := pgstore.PublishOptions{Producer: x.ChunkingKey(), RecordDir: d}
	var err error
	if po.Image, err = x.ImageFiles(ctx); err != nil {
		return pgstore.PublishStats{}, fmt.Errorf("publish %s: %w", repo, err)
	}
	po.Sides = []pgstore.Side{{Name: history.CacheFile, Path: filepath.Join(d, history.CacheFile)}}
	if withVectors {
		vp := filepath.Join(d, semantic.CacheFile)
		// The side file is the cache file alone: a delta beside it is
		// folded in first.
		if err := semantic.Fold(vp); err != nil {
			return pgstore.PublishStats{}, fmt.Errorf("publish %s: %w", repo, err)
		}
		po.Sides = append(po.Sides, pgstore.Side{Name: semantic.CacheFile, Path: vp})
	}
	return st.Publish(ctx, repo, snap, po)
}

const storeUsage = `ctxls store repos STORE [--json] | ctxls store token STORE --name NAME --repos A,B|'*' | ctxls store revoke STORE --name NAME | ctxls store gc STORE [--json]
  STORE: --store URL | --store-file FILE | $CTXLS_STORE_FILE | $CTXLS_STORE
  gc deletes the blobs no kept generation or index image names (safe beside publishes and replicas)`

// runStore runs `ctxls store …`: the store's repositories, tokens and
// collection.
func runStore(ctx context.Context, args []string, env Env) error {
	if len(args) == 0 {
		return &usageError{storeUsage, "give a store command: repos, token, revoke or gc"}
	}
	fs := newFlagSet("store " + args[0])
	src := pgstore.SourceFlags(fs, "the store: postgres://user@host:port/database")
	name := fs.String("name", "", "the token's name")
	repos := fs.String("repos", "", "the repositories a token grants, comma-separated ('*': every one)")
	asJSON := fs.Bool("json", false, "print JSON")
	if help, err := parseFlags(fs, args[1:], storeUsage, env); help || err != nil {
		return err
	}
	dsn, from, err := storeDSN(src, true, storeUsage)
	if err != nil {
		return err
	}
	if dsn == "" {
		return &usageError{storeUsage, "--store is required (or --store-file, $" + pgstore.EnvStoreFile + ", $" + pgstore.EnvStore + ")"}
	}
	st, err := openStore(ctx, src, dsn, from, storeUsage, env)
	if err != nil {
		return err
	}
	defer st.Close()
	switch args[0] {
	case "repos":
		list, err := st.Repos(ctx, nil)
		if err != nil {
			return err
		}
		if *asJSON {
			if list == nil {
				list = []pgstore.RepoInfo{}
			}
			enc := json.NewEncoder(env.Stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(list)
		}
		for _, r := range list {
			fmt.Fprintf(env.Stdout, "%s\tgeneration %d\t%d files\t%.1f MB\t%s\n", printableName(r.Name), r.Generation, r.Files, float64(r.Bytes)/1e6, r.Updated)
		}
		return nil
	case "token":
		var list []string
		for r := range strings.SplitSeq(*repos, ",") {
			if r = strings.TrimSpace(r); r != "" {
				list = append(list, r)
			}
		}
		tok, err := st.CreateToken(ctx, *name, list)
		if err != nil {
			return err
		}
		fmt.Fprintln(env.Stdout, tok)
		return nil
	case "revoke":
		return st.RevokeToken(ctx, *name)
	case "gc":
		gs, err := st.GC(ctx)
		if err != nil {
			return err
		}
		if *asJSON {
			enc := json.NewEncoder(env.Stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(gs)
		}
		fmt.Fprintf(env.Stdout, "gc: %d generations and %d images name %d blobs; deleted %d blobs (%.1f MB compressed) in %.0f ms\n",
			gs.Generations, gs.Images, gs.Kept, gs.Deleted, float64(gs.DeletedBytes)/1e6, gs.DurationMs)
		if gs.VacuumError != "" {
			fmt.Fprintf(env.Stderr, "ctxls: gc: the blobs' table was not vacuumed (%s): its space is reused once autovacuum passes\n", gs.VacuumError)
		}
		return nil
	}
	return &usageError{storeUsage, fmt.Sprintf("unknown store command %q", args[0])}
}

// printableName returns a repository's name as the store holds it when it
// is one that ctxls writes (pgstore.CheckRepoName), else quoted with
// every control and non-ASCII character escaped: a row written into the
// store by other means must not reach a terminal's escape sequences
// (clearing the screen, writing the clipboard, forging lines).
func printableName(name string) string {
	if pgstore.CheckRepoName(name) == nil {
		return name
	}
	return strconv.QuoteToASCII(name)
}

// storeError says what to do about a store's refusal.
func storeError(err error) error {
	switch {
	case errors.Is(err, pgstore.ErrNoRepo):
		return fmt.Errorf("%w (ctxls store repos --store URL lists them)", err)
	}
	return err
}

// overlayDiff lays the files diff touches, read from dir (a pull request's
// checkout), over the stored index through o: changed and added files
// with dir's content, deleted and renamed-away ones hidden. dir's files
// are read as an index of dir would read them (index.Overlay.LayTree):
// one the walk's rules refuse — a symbolic link out of dir or into .git,
// a secret, an ignored file, one over the size limit — is hidden too,
// and returned among the skipped.
func overlayDiff(ctx context.Context, o *index.Overlay, dir, diff string) ([]index.Skipped, error) {
	files, err := retrieve.ParseDiff(diff)
	if err != nil {
		return nil, fmt.Errorf("--diff-file: %w", err)
	}
	// The paths renamed away and deleted first, so that a path the diff
	// both vacates and adds ends with dir's file.
	var lay []string
	for _, f := range files {
		if f.OldPath != "" && f.OldPath != f.Path {
			if err := o.Remove(f.OldPath); err != nil {
				return nil, fmt.Errorf("--overlay: %w", err)
			}
		}
		if f.Path == "" {
			continue
		}
		rel, err := retrieve.RootPath(dir, f.Path, "overlay")
		if err != nil {
			return nil, fmt.Errorf("--overlay: the diff names %s: %w", f.Path, err)
		}
		lay = append(lay, rel)
	}
	skipped, err := o.LayTree(ctx, dir, lay)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("--overlay: %w (give the pull request's checkout)", err)
	}
	if err != nil {
		return nil, fmt.Errorf("--overlay: %w", err)
	}
	return skipped, nil
}
