package pgstore

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Store is a connection pool to one PostgreSQL database holding ctxls's
// tables. It is safe for concurrent use.
type Store struct {
	pool  *pgxpool.Pool
	codec codec
	// id names the database (host, port, database) without credentials:
	// checkouts of two stores never share a directory.
	id string
}

// ConnectTimeout bounds how long Open waits for the server.
const ConnectTimeout = 10 * time.Second

// Open connects to the database at url (postgres://user@host:port/db?…)
// and creates ctxls's tables when they are missing.
func Open(ctx context.Context, rawURL string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(rawURL)
	if err != nil {
		return nil, &URLError{Err: err}
	}
	if cfg.ConnConfig.ConnectTimeout == 0 || cfg.ConnConfig.ConnectTimeout > ConnectTimeout {
		cfg.ConnConfig.ConnectTimeout = ConnectTimeout
	}
	cfg.MaxConns = 8
	// A connection idle for a moment is checked before use: after the
	// server restarted, the first request must not get a dead one.
	cfg.ShouldPing = func(_ context.Context, p pgxpool.ShouldPingParams) bool { return p.IdleDuration > 50*time.Millisecond }
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", redact(rawURL), err)
	}
	s := &Store{pool: pool, id: fmt.Sprintf("%s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store %s: %w", redact(rawURL), err)
	}
	return s, nil
}

// Close closes the pool.
func (s *Store) Close() { s.pool.Close() }

// URLError is a store URL that does not parse.
type URLError struct{ Err error }

func (e *URLError) Error() string {
	return fmt.Sprintf("not a PostgreSQL URL (postgres://user@host:port/database): %v", e.Err)
}
func (e *URLError) Unwrap() error { return e.Err }

// redact returns u without its password, for messages.
func redact(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.User == nil {
		return u
	}
	if _, ok := p.User.Password(); ok {
		p.User = url.UserPassword(p.User.Username(), "xxxxx")
	}
	return p.String()
}

// ErrNoRepo is returned (wrapped) for a repository the store does not
// have, or one the caller may not read: the two are not told apart.
var ErrNoRepo = errors.New("no such repository in the store")

// ErrDamaged is returned (wrapped) when the store holds a row that is
// not what its name says (its content does not match its hash, it does
// not decompress) or lacks one a generation names: reading it again gives
// the same answer. The repository's publisher repairs it: a publish checks
// every row its generation names and rewrites those that are wrong.
var ErrDamaged = errors.New("the store holds damaged data (reading again does not help: publishing the repository again repairs it)")

// ErrReadOnly is returned (wrapped) when the store only takes reads: a
// standby, or a primary in recovery.
var ErrReadOnly = errors.New("the store is read-only (a standby)")

// readOnly reports whether err is PostgreSQL refusing a write in a
// read-only transaction (a hot standby).
func readOnly(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "25006"
}

// inTx runs fn in a transaction, committed when fn returns nil.
func (s *Store) inTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit, a no-op
	if err := fn(tx); err != nil {
		if readOnly(err) {
			return fmt.Errorf("%w: %v", ErrReadOnly, err)
		}
		return err
	}
	return tx.Commit(ctx)
}

// Listen calls fn with a repository's name each time a generation of it
// is published, until ctx ends or the connection is lost (the error
// says which).
func (s *Store) Listen(ctx context.Context, fn func(repo string)) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	// The connection ends here: LISTEN stays with the session.
	defer func() {
		conn.Conn().Close(context.Background()) //nolint:errcheck // discarded
		conn.Release()
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+NotifyChannel); err != nil {
		return err
	}
	for {
		n, err := conn.Conn().WaitForNotification(ctx)
		if err != nil {
			return err
		}
		fn(n.Payload)
	}
}
