package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/pgstore"
	"github.com/ctxls/ctxls/internal/workspace"
)

// The PostgreSQL store is the workspace's index store (workspace.Store):
// the start-up opens it and hands it to the workspace, which names no
// store of its own.
var _ workspace.Store = (*pgstore.Store)(nil)

// mcpGrant is mcp.Options.Grant for a server whose requests carry store
// tokens.
func mcpGrant(req *sdk.CallToolRequest) (*pgstore.Grant, error) {
	if req.Extra != nil && req.Extra.TokenInfo != nil {
		if g, ok := req.Extra.TokenInfo.Extra["grant"].(*pgstore.Grant); ok {
			return g, nil
		}
	}
	return nil, errors.New("no token: this call reads nothing")
}

// openStore connects a server to the store its --store or --store-file
// flag names. On failure it says why on stderr, never with a password,
// and returns the exit status: 2 when the connection string cannot be had
// or does not parse, 1 otherwise. A password in --store draws a warning:
// the process list shows it to every user of the machine.
func openStore(ctx context.Context, command string, src *pgstore.Source, stderr io.Writer) (workspace.Store, int) {
	dsn, from, err := src.DSN(false)
	if err != nil {
		fmt.Fprintf(stderr, "ctxls %s: %v\n", command, err)
		return nil, 2
	}
	if src.Exposed() {
		fmt.Fprintf(stderr, "ctxls %s: warning: --store holds a password, which every user of this machine can read in the process list: give it in --store-file or a .pgpass file instead (docs/deploy.md)\n", command)
	}
	st, err := pgstore.Open(ctx, dsn)
	if err == nil {
		return st, 0
	}
	fmt.Fprintf(stderr, "ctxls %s: %s: %v\n", command, from, err)
	if errors.As(err, new(*pgstore.URLError)) || errors.As(err, new(*pgstore.SourceError)) {
		return nil, 2
	}
	return nil, 1
}

// serveRepos serves st's repositories through pool, checked out under
// the --cache-dir given (or the default), each indexed with indexOptions,
// at most maxOpen of them open (--max-open-repos).
func serveRepos(st workspace.Store, cacheDir string, maxOpen int, pool *workspace.Pool, indexOptions func(string) index.Options, logf func(string, ...any)) (*workspace.Repos, error) {
	parent, err := workspace.CheckoutParent(cacheDir)
	if err != nil {
		return nil, err
	}
	return workspace.NewRepos(st, pool, workspace.ReposOptions{Parent: parent, IndexOptions: indexOptions, MaxOpenRepos: maxOpen, Logf: logf}), nil
}
