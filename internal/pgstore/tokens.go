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

// Authorize returns what token grants.
func (s *Store) Authorize(ctx context.Context, token string) (*Grant, error) {
	token = strings.TrimSpace(token)
	if !strings.HasPrefix(token, tokenPrefix) {
		return nil, ErrBadToken
	}
	sum := sha256.Sum256([]byte(token))
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
		return nil, fmt.Errorf("list repositories: %w", err)
	}
	defer rows.Close()
	var out []RepoInfo
	for rows.Next() {
		var r RepoInfo
		if err := rows.Scan(&r.Name, &r.Generation, &r.Files, &r.Bytes, &r.Updated); err != nil {
			return nil, fmt.Errorf("list repositories: %w", err)
		}
		if g == nil || g.Allows(r.Name) {
			out = append(out, r)
		}
	}
	return out, rows.Err()
}
