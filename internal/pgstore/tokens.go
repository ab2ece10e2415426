package pgstore

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// AllRepos in a grant's list stands for every repository of the store.
const AllRepos = "*"

// tokenPrefix starts every token: a secret scanner can tell one.
const tokenPrefix = "ctxls_"

// ErrBadToken is returned (wrapped) for a token the store does not know.
var ErrBadToken = errors.New("unknown or revoked token")

// Grant is what a token may read.
type Grant struct {
	Name  string
	Repos []string // sorted; AllRepos: every one
}

// Allows reports whether the grant covers repo.
func (g *Grant) Allows(repo string) bool {
	if g == nil {
		return false
	}
	_, ok := slices.BinarySearch(g.Repos, repo)
	return ok || slices.Contains(g.Repos, AllRepos)
}

// CreateToken makes a token named name (unique) that grants repos and
// returns it: the store keeps only its hash, so it is shown once.
func (s *Store) CreateToken(ctx context.Context, name string, repos []string) (string, error) {
	if name == "" {
		return "", errors.New("a token needs a name (--name)")
	}
	if len(repos) == 0 {
		return "", errors.New("a token grants at least one repository (--repos a,b or '*')")
	}
	for _, r := range repos {
		if r != AllRepos {
			if err := CheckRepoName(r); err != nil {
				return "", err
			}
		}
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	tok := tokenPrefix + base64.RawURLEncoding.EncodeToString(raw[:])
	sum := sha256.Sum256([]byte(tok))
	sorted := slices.Clone(repos)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	_, err := s.pool.Exec(ctx, "INSERT INTO ctxls_tokens (hash, name, repos) VALUES ($1, $2, $3)", sum[:], name, sorted)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" {
		return "", fmt.Errorf("a token named %q exists already", name)
	}
	if err != nil {
		if readOnly(err) {
			return "", fmt.Errorf("create token: %w", ErrReadOnly)
		}
		return "", fmt.Errorf("create token: %w", err)
	}
	return tok, nil
}

// RevokeToken deletes the token named name.
func (s *Store) RevokeToken(ctx context.Context, name string) error {
	tag, err := s.pool.Exec(ctx, "DELETE FROM ctxls_tokens WHERE name = $1", name)
	if err != nil {
		return fmt.Errorf("revoke token: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("revoke token: no token named %q", name)
	}
	return nil
}

// Authorize returns what token grants. A token that is not of the form
// CreateToken makes is refused without asking the database.
func (s *Store) Authorize(ctx context.Context, token string) (*Grant, error) {
	token = strings.TrimSpace(token)
	if !wellFormed(token) {
		return nil, ErrBadToken
	}
	return s.authorize(ctx, sha256.Sum256([]byte(token)))
}

// authorize returns what the token whose hash is sum grants.
func (s *Store) authorize(ctx context.Context, sum [sha256.Size]byte) (*Grant, error) {
	g := &Grant{}
	err := s.pool.QueryRow(ctx, "SELECT name, repos FROM ctxls_tokens WHERE hash = $1", sum[:]).Scan(&g.Name, &g.Repos)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrBadToken
	}
	if err != nil {
		return nil, fmt.Errorf("check token: %w", err)
	}
	slices.Sort(g.Repos)
	return g, nil
}

// tokenLen is the length of a token CreateToken makes: the prefix and 32
// random bytes in unpadded base64url.
var tokenLen = len(tokenPrefix) + base64.RawURLEncoding.EncodedLen(32)

// wellFormed reports whether token has the form of the tokens CreateToken
// makes: anything else is no token of any store, whatever the database
// holds.
func wellFormed(token string) bool {
	rest, ok := strings.CutPrefix(token, tokenPrefix)
	if !ok || len(token) != tokenLen {
		return false
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// ErrUnavailable is returned (wrapped) by TokenChecker.Check when the
// store cannot be asked about a token the checker does not know. Its
// text says nothing of the store (address, user, database): it is shown
// to clients that have not proved who they are.
var ErrUnavailable = errors.New("the index store is unavailable (try again shortly)")

// Bounds of TokenChecker's memory.
const (
	// TokenTTL is how long a checker trusts the store's answer for a
	// token, a grant or a refusal: a revoked token is refused within it.
	TokenTTL = 10 * time.Second
	// tokenRetry is how long after the store failed to answer a checker
	// answers ErrUnavailable for the tokens it does not know, without
	// asking: clients with forged tokens do not make it dial a store
	// that is down once per request.
	tokenRetry = 2 * time.Second
	// maxTokenAnswers bounds the answers kept; past it they are all
	// forgotten (a known token then costs one query again).
	maxTokenAnswers = 10000
)

// TokenChecker checks tokens against a store's and remembers the answers
// for TokenTTL, refusals as well as grants: a server of a store asks the
// database once per token per TokenTTL, however many requests carry it.
// While the store does not answer, a token it answered before keeps that
// answer (a store outage does not lock out every client, nor let in a
// revoked one), and any other token is answered ErrUnavailable. It is
// safe for concurrent use.
type TokenChecker struct {
	store      *Store
	logf       func(format string, args ...any)
	ttl, retry time.Duration // TokenTTL, tokenRetry

	mu      sync.Mutex // guards the fields below
	answers map[[sha256.Size]byte]tokenAnswer
	// failedAt is when the store last failed to answer (zero: it
	// answered since).
	failedAt time.Time
}

// tokenAnswer is the store's answer for a token: its grant, or nil for a
// refusal.
type tokenAnswer struct {
	g  *Grant
	at time.Time
}

func (a tokenAnswer) result() (*Grant, error) {
	if a.g == nil {
		return nil, ErrBadToken
	}
	return a.g, nil
}

// NewTokenChecker returns a checker of s's tokens. logf hears when the
// store stops answering (with why) and when it answers again, once each.
func (s *Store) NewTokenChecker(logf func(format string, args ...any)) *TokenChecker {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &TokenChecker{store: s, logf: logf, ttl: TokenTTL, retry: tokenRetry, answers: map[[sha256.Size]byte]tokenAnswer{}}
}

// Check returns what token grants: ErrBadToken for a token that is not of
// a store's form (without asking the store), or that the store does not
// know; ErrUnavailable when the store cannot be asked and the checker
// knows nothing of the token; the error of ctx when it ends first. The
// grant returned is shared: callers do not change it.
func (t *TokenChecker) Check(ctx context.Context, token string) (*Grant, error) {
	token = strings.TrimSpace(token)
	if !wellFormed(token) {
		return nil, ErrBadToken
	}
	key := sha256.Sum256([]byte(token))
	now := time.Now()
	t.mu.Lock()
	a, known := t.answers[key]
	failing := !t.failedAt.IsZero() && now.Sub(t.failedAt) < t.retry
	t.mu.Unlock()
	switch {
	case known && now.Sub(a.at) < t.ttl:
		return a.result()
	case failing && known:
		return a.result()
	case failing:
		return nil, ErrUnavailable
	}
	g, err := t.store.authorize(ctx, key)
	if err != nil && !errors.Is(err, ErrBadToken) {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		t.mu.Lock()
		if t.failedAt.IsZero() {
			t.logf("the index store cannot check tokens: %v (tokens it answered for keep their answer; others are told the store is unavailable)", err)
		}
		t.failedAt = time.Now()
		t.mu.Unlock()
		if known {
			return a.result()
		}
		return nil, ErrUnavailable
	}
	t.mu.Lock()
	if !t.failedAt.IsZero() {
		t.logf("the index store checks tokens again")
		t.failedAt = time.Time{}
	}
	if len(t.answers) >= maxTokenAnswers {
		clear(t.answers)
	}
	t.answers[key] = tokenAnswer{g: g, at: time.Now()}
	t.mu.Unlock()
	if err != nil {
		return nil, ErrBadToken
	}
	return g, nil
}

// RepoInfo is one repository of the store.
type RepoInfo struct {
	Name       string `json:"name"`
	Generation int64  `json:"generation"`
	Files      int    `json:"files"`
	Bytes      int64  `json:"bytes"`
	Updated    string `json:"updated"` // RFC 3339, UTC
}

// Repos lists the repositories with a generation that g may read (nil:
// every one), by name.
func (s *Store) Repos(ctx context.Context, g *Grant) ([]RepoInfo, error) {
	rows, err := s.pool.Query(ctx, `SELECT r.name, r.generation, g.files, g.bytes,
		to_char(r.updated AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
		FROM ctxls_repos r JOIN ctxls_generations g ON g.repo = r.name AND g.id = r.generation
		ORDER BY r.name`)
	if err != nil {
		return nil, fmt.Errorf("list repositories: %w", s.unreachable(ctx, err))
	}
	defer rows.Close()
	var out []RepoInfo
	for rows.Next() {
		var r RepoInfo
		if err := rows.Scan(&r.Name, &r.Generation, &r.Files, &r.Bytes, &r.Updated); err != nil {
			return nil, fmt.Errorf("list repositories: %w", s.unreachable(ctx, err))
		}
		if g == nil || g.Allows(r.Name) {
			out = append(out, r)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list repositories: %w", s.unreachable(ctx, err))
	}
	return out, nil
}
