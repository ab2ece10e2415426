package workspace

// One call's workspace, as the CLI makes one: the git history, the chunk
// vectors and a store's checkout read for a single request, and an index
// published into a store. The servers' Roots keep the same state open
// for many requests (Root.History, Root.Semantic, Repos).

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/ctxls/ctxls/internal/history"
	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/index/walk"
	"github.com/ctxls/ctxls/internal/pgstore"
	"github.com/ctxls/ctxls/internal/semantic"
)

// The words of the index, the store and the embeddings that a call's
// face passes through (see vocab.go).
type (
	// Index is an open index (index.Index).
	Index = index.Index
	// IndexStats are an index build's figures.
	IndexStats = index.Stats
	// Overlay is files laid over an index's snapshot (a pull request's).
	Overlay = index.Overlay
	// Skipped is a file an index or an overlay left out, and why.
	Skipped = index.Skipped
	// RootReadError says why a root could not be read.
	RootReadError = index.RootReadError
	// RootError says why a directory may not be a root (walk.RootError).
	RootError = walk.RootError
	// CacheDirError says why a cache directory cannot be used.
	CacheDirError = index.CacheDirError
	// StoreFlags are the flags naming a store (--store, --store-file).
	StoreFlags = pgstore.Source
	// StoreFlagsError says why the flags naming a store cannot be read.
	StoreFlagsError = pgstore.SourceError
	// StoreURLError says why a store's URL cannot be used.
	StoreURLError = pgstore.URLError
	// Endpoint is an embeddings service, resolved.
	Endpoint = semantic.Endpoint
	// VectorsPrefetch is a vectors file read ahead.
	VectorsPrefetch = semantic.Prefetch
)

// The environment variables naming a store.
const (
	EnvStore     = pgstore.EnvStore
	EnvStoreFile = pgstore.EnvStoreFile
)

// ErrNotCacheDir: a directory that is not a ctxls cache directory.
var ErrNotCacheDir = index.ErrNotCacheDir

// OpenIndex opens (building or refreshing) root's index (index.Open).
func OpenIndex(ctx context.Context, root string, opts IndexOptions) (*Index, error) {
	return index.Open(ctx, root, opts)
}

// BuildIndex builds or refreshes root's index and closes it (index.Build).
func BuildIndex(ctx context.Context, root string, opts IndexOptions) (IndexStats, error) {
	return index.Build(ctx, root, opts)
}

// OpenStore opens the index store at dsn (pgstore.Open).
func OpenStore(ctx context.Context, dsn string) (Store, error) {
	st, err := pgstore.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// AddStoreFlags adds the flags naming a store to fs (pgstore.SourceFlags).
func AddStoreFlags(fs *flag.FlagSet, storeHelp string) *StoreFlags {
	return pgstore.SourceFlags(fs, storeHelp)
}

// AddEndpointFlags adds the embeddings service's flags to fs.
func AddEndpointFlags(fs *flag.FlagSet) *EndpointConfig { return semantic.EndpointFlags(fs) }

// IndexUnchanged reports whether root's kept index and the workspace
// vectors beside it are up to date with the disk, without opening either
// (index.Unchanged, semantic.InSync): the statistics a refresh would
// report and true, or false when there is anything to do (then open the
// index as usual).
func IndexUnchanged(ctx context.Context, root string, opts IndexOptions) (IndexStats, bool) {
	st, ok := index.Unchanged(ctx, root, opts)
	if !ok || st.Dir == "" || !semantic.InSync(filepath.Join(st.Dir, semantic.CacheFile), st.StateRoot, semantic.DefaultOptions()) {
		return IndexStats{}, false
	}
	return st, true
}

// PrefetchVectors starts reading the vectors file of an index directory.
func PrefetchVectors(indexDir string) *VectorsPrefetch {
	return semantic.PrefetchStore(filepath.Join(indexDir, semantic.CacheFile))
}

// LoadHistory reads the root's git history through the cache in the
// index directory; nil when there is none (no git, not a repository), or,
// with a warning, when it cannot be read.
func LoadHistory(ctx context.Context, root, indexDir string, warnf func(format string, args ...any)) *history.Log {
	cache := ""
	if indexDir != "" {
		cache = filepath.Join(indexDir, history.CacheFile)
	}
	l, err := history.Load(ctx, root, cache, history.DefaultOptions(), warnf)
	if err != nil {
		if !history.Unavailable(err) && ctx.Err() == nil {
			warnf("history: %v (going on without it)", err)
		}
		return nil
	}
	return l
}

// LoadVectors returns the root's chunk vectors through the cache in the
// index directory: the cached model reused while the tree has drifted
// little from what it was trained on (only the changed files embedded),
// trained again past the drift thresholds or with retrain, and written
// back; nil, with a warning, when they cannot be computed. The answer
// names the model with the index state (retrieve), so the same state
// gives the same answer.
func LoadVectors(ctx context.Context, snap *index.Snapshot, indexDir string, ep *semantic.Endpoint, pre *semantic.Prefetch, retrain bool, warnf func(format string, args ...any)) *semantic.Store {
	cache := ""
	if indexDir != "" {
		cache = filepath.Join(indexDir, semantic.CacheFile)
	}
	var s *semantic.Store
	var err error
	if ep != nil {
		ep.Warnf = warnf // a failure is told once, by the endpoint
		s, _, err = semantic.LoadEndpoint(ctx, snap, cache, ep, nil)
		if err != nil {
			return nil
		}
		return s
	}
	if pre != nil && pre.Path() == cache {
		s, _, err = semantic.LoadPrefetched(ctx, snap, pre, semantic.DefaultOptions(), retrain, warnf)
	} else {
		s, _, err = semantic.Load(ctx, snap, cache, semantic.DefaultOptions(), retrain, warnf)
	}
	if err != nil {
		if ctx.Err() == nil {
			warnf("semantic vectors: %v (going on without them)", err)
		}
		return nil
	}
	return s
}

// EmbeddingsFlags checks --embeddings and the service's flags
// (semantic.CheckFlags); it returns the service (nil: none).
func EmbeddingsFlags(mode string, cfg *semantic.EndpointConfig) (*semantic.Endpoint, error) {
	if err := semantic.CheckFlags(mode, *cfg); err != nil {
		return nil, err
	}
	if mode != semantic.ModeEndpoint && (cfg.URL != "" || cfg.Model != "") {
		return nil, errors.New("--embeddings-endpoint and --embeddings-model go with --embeddings endpoint")
	}
	ep, _ := semantic.Resolve(mode, cfg)
	return ep, nil
}

// CheckoutSource checks the repositories named out of st for a request:
// one repository's checkout (returned twice: as the source and as
// itself), or the union of several ('*': every one in the store).
// The caller closes the source.
func CheckoutSource(ctx context.Context, st Store, names []string, cacheDir string) (StoreSource, *Checkout, error) {
	parent, err := CheckoutParent(cacheDir)
	if err != nil {
		return nil, nil, err
	}
	names, err = ResolveRepos(names, func() ([]string, error) {
		list, err := st.Repos(ctx, nil)
		if err != nil {
			return nil, err
		}
		if len(list) == 0 {
			return nil, errors.New("--repo '*': the store has no repository")
		}
		all := make([]string, 0, len(list))
		for _, r := range list {
			all = append(all, r.Name)
		}
		return all, nil
	})
	if err != nil {
		return nil, nil, err
	}
	var src StoreSource
	var single *Checkout
	switch len(names) {
	case 1:
		co, err := st.Checkout(ctx, names[0], parent, nil)
		if err != nil {
			return nil, nil, err
		}
		src, single = co, co
	default:
		u, err := st.CheckoutUnion(ctx, names, parent, nil)
		if err != nil {
			return nil, nil, err
		}
		src = u
	}
	return src, single, nil
}

// StoreHistory returns the history a checkout came with (nil: none).
func StoreHistory(indexDir string) *history.Log {
	return history.LoadCache(filepath.Join(indexDir, history.CacheFile))
}

// Publish publishes the open index x as repo's next generation, with
// the git history's cache and, withVectors, the semantic channel's vectors
// (which change whole with any change to the tree: the vectors of a
// workspace are trained on all of it, so a replica computing its own keeps
// publishes small).
func Publish(ctx context.Context, st Store, repo string, x *index.Index, withVectors bool) (PublishStats, error) {
	snap, release := x.Snapshot()
	defer release()
	d := x.Dir()
	// The index directory keeps the publish's record: the next publish
	// checks the store's rows against it instead of reading them back.
	po := PublishOptions{Producer: x.ChunkingKey(), RecordDir: d}
	var err error
	if po.Image, err = x.ImageFiles(ctx); err != nil {
		return PublishStats{}, fmt.Errorf("publish %s: %w", repo, err)
	}
	po.Sides = []pgstore.Side{{Name: history.CacheFile, Path: filepath.Join(d, history.CacheFile)}}
	if withVectors {
		vp := filepath.Join(d, semantic.CacheFile)
		// The side file is the cache file alone: a delta beside it is
		// folded in first.
		if err := semantic.Fold(vp); err != nil {
			return PublishStats{}, fmt.Errorf("publish %s: %w", repo, err)
		}
		po.Sides = append(po.Sides, pgstore.Side{Name: semantic.CacheFile, Path: vp})
	}
	return st.Publish(ctx, repo, snap, po)
}

// AsUnion returns src as a union of several repositories, when it is one.
func AsUnion(src StoreSource) (*Union, bool) {
	u, ok := src.(*Union)
	return u, ok
}

// OpenUnionParts makes u's index read its chunks from its repositories'
// own indexes (pgstore.Union.SetLocal), as a replica does, rather than ask
// the store file by file: each opened from its checkout (the published
// image, the chunks of its generation) when the union's index first needs
// one of its files — a union whose index is current opens none. A
// repository whose index is held by another ctxls is read from a private
// copy (after waiting lockWait for it); one that cannot be opened is read
// from the store. The returned function closes those opened.
func OpenUnionParts(ctx context.Context, u *Union, opts index.Options, lockWait time.Duration) func() {
	var mu sync.Mutex
	var opened []*index.Index
	indexes := map[string]func() *index.Index{}
	for _, co := range u.Parts() {
		var once sync.Once
		var x *index.Index
		indexes[co.Repo] = func() *index.Index {
			once.Do(func() {
				o := opts
				if err := PrepareSource(co, &o); err != nil {
					return
				}
				o.PrivateWhenLocked, o.LockTimeout = true, lockWait
				got, err := index.Open(ctx, co.Root, o)
				if err != nil {
					return
				}
				mu.Lock()
				opened = append(opened, got)
				mu.Unlock()
				if got.Wait(ctx) == nil {
					x = got
				}
			})
			return x
		}
	}
	u.SetLocal(IndexChunks(indexes))
	return func() {
		mu.Lock()
		defer mu.Unlock()
		for _, x := range opened {
			x.Close()
		}
	}
}
