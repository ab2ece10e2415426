package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/ctxls/ctxls/internal/retrieve"
	ws "github.com/ctxls/ctxls/internal/workspace"
)

// storeDSN returns the connection string src gives and where it came
// from (with env, for a command that always reads a store, the
// environment's when no flag gives one); a connection string that cannot
// be had is bad usage (of usage).
func storeDSN(src *ws.StoreFlags, env bool, usage string) (dsn, from string, err error) {
	dsn, from, err = src.DSN(env)
	if se := (*ws.StoreFlagsError)(nil); errors.As(err, &se) {
		return "", "", &usageError{usage, se.Error()}
	}
	return dsn, from, err
}

// openStore connects to the store at dsn, which from gave; errors name
// from, and a connection string that does not parse is bad usage (of
// usage). A password in --store draws a warning: the process list shows
// it to every user of the machine.
func openStore(ctx context.Context, src *ws.StoreFlags, dsn, from, usage string, env Env) (ws.Store, error) {
	if src.Exposed() {
		fmt.Fprintf(env.Stderr, "ctxls: warning: --store holds a password, which every user of this machine can read in the process list: give it in --store-file, $%s or a .pgpass file instead (docs/deploy.md)\n", ws.EnvStore)
	}
	st, err := ws.OpenStore(ctx, dsn)
	var ue *ws.StoreURLError
	var se *ws.StoreFlagsError
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
	src := ws.AddStoreFlags(fs, "the store: postgres://user@host:port/database")
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
		return &usageError{storeUsage, "--store is required (or --store-file, $" + ws.EnvStoreFile + ", $" + ws.EnvStore + ")"}
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
				list = []ws.RepoInfo{}
			}
			return printJSON(env.Stdout, list)
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
			return printJSON(env.Stdout, gs)
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
// is one that ctxls writes (ws.CheckRepoName), else quoted with
// every control and non-ASCII character escaped: a row written into the
// store by other means must not reach a terminal's escape sequences
// (clearing the screen, writing the clipboard, forging lines).
func printableName(name string) string {
	if ws.CheckRepoName(name) == nil {
		return name
	}
	return strconv.QuoteToASCII(name)
}

// checkoutSource checks the repositories named out of st for a request
// (workspace.CheckoutSource), saying what to do about a store's refusal.
func checkoutSource(ctx context.Context, st ws.Store, names []string, cacheDir string) (ws.StoreSource, *ws.Checkout, error) {
	src, single, err := ws.CheckoutSource(ctx, st, names, cacheDir)
	if err != nil {
		return nil, nil, storeError(err)
	}
	return src, single, nil
}

// warnf writes a warning on env's standard error.
func warnf(env Env) func(format string, args ...any) {
	return func(format string, args ...any) { fmt.Fprintf(env.Stderr, "ctxls: warning: "+format+"\n", args...) }
}

// storeError says what to do about a store's refusal.
func storeError(err error) error {
	switch {
	case errors.Is(err, ws.ErrNoRepo):
		return fmt.Errorf("%w (ctxls store repos --store URL lists them)", err)
	}
	return err
}

// overlayDiff lays the files diff touches, read from dir (a pull request's
// checkout), over the stored index through o: changed and added files
// with dir's content, deleted and renamed-away ones hidden. dir's files
// are read as an index of dir would read them (ws.Overlay.LayTree):
// one the walk's rules refuse — a symbolic link out of dir or into .git,
// a secret, an ignored file, one over the size limit — is hidden too,
// and returned among the skipped.
func overlayDiff(ctx context.Context, o *ws.Overlay, dir, diff string) ([]ws.Skipped, error) {
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
