package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/ctxls/ctxls/internal/pgstore"
	"github.com/ctxls/ctxls/internal/workspace"
)

// storeTokens checks the tokens of a server of an index store's clients
// (pgstore.TokenChecker: answers remembered 10 s, refusals too; a
// malformed token costs no query) and says what a refusal means in
// words a client that has not proved who it is may read: never the
// store's address, user or database.
type storeTokens struct {
	check *pgstore.TokenChecker
}

func newStoreTokens(st workspace.Store, logf func(format string, args ...any)) *storeTokens {
	return &storeTokens{check: st.NewTokenChecker(logf)}
}

// grant returns what tok grants. Its errors wrap pgstore.ErrBadToken
// (unknown, malformed or revoked) or pgstore.ErrUnavailable.
func (t *storeTokens) grant(ctx context.Context, tok string) (*pgstore.Grant, error) {
	g, err := t.check.Check(ctx, tok)
	switch {
	case err == nil:
		return g, nil
	case errors.Is(err, pgstore.ErrBadToken):
		return nil, fmt.Errorf("%w: send a token made by ctxls store token (see docs/deploy.md)", err)
	}
	return nil, err // pgstore.ErrUnavailable, or ctx's end
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
