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

// openStore connects a server to the store its --store flag names. On
// failure it says why on stderr and returns the exit status: 2 when the
// URL does not parse, 1 otherwise.
func openStore(ctx context.Context, command, url string, stderr io.Writer) (*pgstore.Store, int) {
	st, err := pgstore.Open(ctx, url)
	if err == nil {
		return st, 0
	}
	fmt.Fprintf(stderr, "ctxls %s: --store: %v\n", command, err)
	if ue := (*pgstore.URLError)(nil); errors.As(err, &ue) {
		return nil, 2
	}
	return nil, 1
}

// serveRepos serves st's repositories through pool, checked out under
// the --cache-dir given (or the default), each indexed with indexOptions.
func serveRepos(st *pgstore.Store, cacheDir string, pool *workspace.Pool, indexOptions func(string) index.Options, logf func(string, ...any)) (*workspace.Repos, error) {
	parent, err := workspace.CheckoutParent(cacheDir)
	if err != nil {
		return nil, err
	}
	return workspace.NewRepos(st, pool, workspace.ReposOptions{Parent: parent, IndexOptions: indexOptions, Logf: logf}), nil
}
