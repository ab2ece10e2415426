package workspace

// The words of the layers below that the faces use, named here so that a
// face imports the workspace and the engine and none of package index,
// pgstore, history or semantic: what a face passes through (index
// options, a snapshot, a store's grant, the embeddings' mode) without
// looking inside.

import (
	"context"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/pgstore"
	"github.com/ctxls/ctxls/internal/semantic"
)

// IndexOptions are a root's index options (cache directory, lock policy,
// token counters, lister), as the process's start-up sets them.
type IndexOptions = index.Options

// Snapshot is one state of a root's index, as a View reads it.
type Snapshot = index.Snapshot

// Progress is how far a root's index build has come.
type Progress = index.Progress

// CacheDirIn is the cache directory of root under the directory dir
// (index.CacheDirIn).
func CacheDirIn(dir, root string) string { return index.CacheDirIn(dir, root) }

// Grant is what a store's token may read (pgstore.Grant): AllRepos in
// its list stands for every repository.
type Grant = pgstore.Grant

// TokenChecker checks a store's tokens (pgstore.TokenChecker).
type TokenChecker = pgstore.TokenChecker

// RepoInfo is a store's repository as list_repos lists it.
type RepoInfo = pgstore.RepoInfo

// AllRepos in a list of repositories stands for every one the caller may
// read.
const AllRepos = pgstore.AllRepos

// The store's errors, for errors.Is.
var (
	// ErrNoRepo: no such repository in the store.
	ErrNoRepo = pgstore.ErrNoRepo
	// ErrUnusable: what the store holds for a repository cannot be used.
	ErrUnusable = pgstore.ErrUnusable
	// ErrUnreachable: the store cannot be read now.
	ErrUnreachable = pgstore.ErrUnreachable
	// ErrBadToken: an unknown or revoked token.
	ErrBadToken = pgstore.ErrBadToken
)

// CheckRepoName checks a repository's name.
func CheckRepoName(name string) error { return pgstore.CheckRepoName(name) }

// ResolveRepos resolves a request's list of repositories (AllRepos:
// every one of readable()) into sorted names, each once, at most as many
// as a union reads (pgstore.ResolveRepos).
func ResolveRepos(list []string, readable func() ([]string, error)) ([]string, error) {
	return pgstore.ResolveRepos(list, readable)
}

// List lists the repositories g may read (nil: every one), by name.
func (rs *Repos) List(ctx context.Context, g *Grant) ([]RepoInfo, error) {
	return rs.store.Repos(ctx, g)
}

// The semantic channel's modes (package semantic).
const (
	EmbeddingsWorkspace = semantic.ModeWorkspace
	EmbeddingsEndpoint  = semantic.ModeEndpoint
	EmbeddingsOff       = semantic.ModeOff
	EmbeddingsDefault   = semantic.DefaultMode
)

// EndpointConfig is the embeddings service of mode endpoint.
type EndpointConfig = semantic.EndpointConfig

// CheckEmbeddings checks the name of a semantic channel's mode.
func CheckEmbeddings(mode string) error { return semantic.CheckMode(mode) }
