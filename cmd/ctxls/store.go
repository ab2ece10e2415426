package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/pgstore"
	"github.com/ctxls/ctxls/internal/workspace"
)

// storeTokenTTL is how long a server remembers the store's answer for a
// token: a revoked token is refused within it (while the store answers;
// when it does not, the last answer holds).
const storeTokenTTL = 10 * time.Second

// storeTokens checks the bearer tokens of a server of an index store
// against the store's tokens.
type storeTokens struct {
	st *pgstore.Store
	mu sync.Mutex
	m  map[string]cachedGrant
}

type cachedGrant struct {
	g  *pgstore.Grant
	at time.Time
}

func newStoreTokens(st *pgstore.Store) *storeTokens {
	return &storeTokens{st: st, m: map[string]cachedGrant{}}
}

// grant returns what tok grants.
func (t *storeTokens) grant(ctx context.Context, tok string) (*pgstore.Grant, error) {
	t.mu.Lock()
	c, ok := t.m[tok]
	t.mu.Unlock()
	if ok && time.Since(c.at) < storeTokenTTL {
		return c.g, nil
	}
	g, err := t.st.Authorize(ctx, tok)
	if errors.Is(err, pgstore.ErrBadToken) {
		return nil, errors.New("unknown or revoked token: send a token made by ctxls store token (see docs/deploy.md)")
	}
	if err != nil {
		if ok {
			// The store down: a token it granted before keeps its
			// grant until the store answers again.
			return c.g, nil
		}
		return nil, fmt.Errorf("the index store cannot check the token now (try again shortly): %w", err)
	}
	t.mu.Lock()
	if len(t.m) > 10000 {
		clear(t.m)
	}
	t.m[tok] = cachedGrant{g, time.Now()}
	t.mu.Unlock()
	return g, nil
}

// guardVerify is access.GuardOptions.Verify.
func (t *storeTokens) guardVerify(r *http.Request, tok string) error {
	_, err := t.grant(r.Context(), tok)
	return err
}

// withGrant puts the token's grant where the MCP tools find it
// (CallToolRequest.Extra.TokenInfo), its name as the user that a session
// is bound to.
func (t *storeTokens) withGrant(next http.Handler) http.Handler {
	return auth.RequireBearerToken(func(ctx context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		g, err := t.grant(ctx, tok)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
		}
		return &auth.TokenInfo{UserID: g.Name, Extra: map[string]any{"grant": g}}, nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(next)
}

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
func openStore(ctx context.Context, command string, src *pgstore.Source, stderr io.Writer) (*pgstore.Store, int) {
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
// the --cache-dir given (or the default), each indexed with indexOptions.
func serveRepos(st *pgstore.Store, cacheDir string, pool *workspace.Pool, indexOptions func(string) index.Options, logf func(string, ...any)) (*workspace.Repos, error) {
	parent, err := workspace.CheckoutParent(cacheDir)
	if err != nil {
		return nil, err
	}
	return workspace.NewRepos(st, pool, workspace.ReposOptions{Parent: parent, IndexOptions: indexOptions, Logf: logf}), nil
}
