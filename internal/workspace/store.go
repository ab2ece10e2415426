package workspace

// The seam between the workspace and an index store: the calls Repos,
// the CLI's call functions (CheckoutSource, Publish) and the faces' store
// commands make of a store, as an interface the workspace owns. The
// PostgreSQL store (*pgstore.Store) is the one implementation; the
// process's start-up (cmd/ctxls) opens it and checks that it satisfies
// Store. The interface lives here, not in package pgstore, because the
// workspace imports pgstore (its checkouts, unions and grants are the
// values that cross the seam) and pgstore must not import the workspace.

import (
	"context"

	"github.com/ctxls/ctxls/internal/pgstore"
)

// Store is an index store as the workspace and its faces use it.
type Store interface {
	// Checkout brings repo's current generation into the directory
	// parent and returns it, locked for reading; allow (nil: every
	// repository) refuses a repository as one the store does not have.
	Checkout(ctx context.Context, repo, parent string, allow func(repo string) bool) (*Checkout, error)
	// CheckoutUnion checks out several repositories (sorted, each once)
	// read as one tree, each under its name.
	CheckoutUnion(ctx context.Context, repos []string, parent string, allow func(repo string) bool) (*Union, error)
	// Repos lists the repositories g may read (nil: every one) with
	// their current generations, by name: the poll of Repos is one call.
	Repos(ctx context.Context, g *Grant) ([]RepoInfo, error)
	// Listen calls listening once the store's notifications are heard,
	// then fn with each repository said to have a new generation,
	// until ctx ends or the connection is lost.
	Listen(ctx context.Context, listening func(), fn func(repo string)) error
	// Publish stores snap as repo's next generation.
	Publish(ctx context.Context, repo string, snap *Snapshot, po PublishOptions) (PublishStats, error)
	// NewTokenChecker checks the tokens a server's clients send,
	// remembering its answers a while (errors wrap ErrBadToken).
	NewTokenChecker(logf func(format string, args ...any)) *TokenChecker
	// CreateToken makes a token named name reading repos (AllRepos:
	// every one); RevokeToken revokes it.
	CreateToken(ctx context.Context, name string, repos []string) (string, error)
	RevokeToken(ctx context.Context, name string) error
	// GC deletes what no repository's current generation reads.
	GC(ctx context.Context) (GCStats, error)
	// SetLogf is where the store reports (a generation it cannot use is
	// logged once).
	SetLogf(logf func(format string, args ...any))
	// Close closes the store's connections.
	Close()
}

// The store's values that cross the seam, under the workspace's names.
type (
	// Checkout is one repository checked out of a store.
	Checkout = pgstore.Checkout
	// Union is several repositories checked out as one tree.
	Union = pgstore.Union
	// LocalChunks gives a union its repositories' chunks from their own
	// indexes (Union.SetLocal).
	LocalChunks = pgstore.LocalChunks
	// PublishOptions are what a publish stores beside the index.
	PublishOptions = pgstore.PublishOptions
	// PublishStats are a publish's figures.
	PublishStats = pgstore.PublishStats
	// GCStats are a store's garbage collection's figures.
	GCStats = pgstore.GCStats
)
