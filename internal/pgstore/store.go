package pgstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
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
	// maxRepo is how many bytes one checkout or update of a repository
	// may read (EnvMaxRepoBytes).
	maxRepo int64

	mu   sync.Mutex
	logf func(format string, args ...any)
	// unusable are the generations (by manifest) found unusable.
	unusable map[Hash]unusableGen

	// beforeCommit, when set (by tests), runs between a publish's writing
	// of its blobs and the commit of its generation.
	beforeCommit func()
}

// EnvMaxRepoBytes names the environment variable that sets how many
// bytes (uncompressed) a replica reads from the store for one checkout
// or update of a repository: its manifest, texts, chunks, side files and
// index image together. A number of bytes, or one followed by KiB, MiB or
// GiB; DefaultMaxRepoBytes when unset.
const EnvMaxRepoBytes = "CTXLS_STORE_MAX_BYTES"

// DefaultMaxRepoBytes is the default of EnvMaxRepoBytes: 4 GiB.
const DefaultMaxRepoBytes = 4 << 30

// maxRepoFromEnv reads EnvMaxRepoBytes.
func maxRepoFromEnv() (int64, error) {
	v := os.Getenv(EnvMaxRepoBytes)
	if v == "" {
		return DefaultMaxRepoBytes, nil
	}
	num, unit := v, int64(1)
	for _, u := range []struct {
		suffix string
		n      int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if rest, ok := strings.CutSuffix(v, u.suffix); ok {
			num, unit = rest, u.n
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/unit {
		return 0, fmt.Errorf("$%s=%q: want a size such as 4GiB, 500MiB or a number of bytes", EnvMaxRepoBytes, v)
	}
	return n * unit, nil
}

// SetLogf makes the store report there what a replica should know and
// can go on without: a generation it cannot use (once per generation),
// an index image left out. Nil: nowhere.
func (s *Store) SetLogf(logf func(format string, args ...any)) {
	s.mu.Lock()
	s.logf = logf
	s.mu.Unlock()
}

// log reports a message through SetLogf's function.
func (s *Store) log(format string, args ...any) {
	s.mu.Lock()
	logf := s.logf
	s.mu.Unlock()
	if logf != nil {
		logf(format, args...)
	}
}

// RecheckUnusable is how long a generation found unusable is answered
// with the same error without being read again (a publish may repair
// its rows meanwhile).
const RecheckUnusable = time.Minute

// unusableGen is a generation of repo found unusable: why, and until when
// that answer holds (a publish of repo, seen by this process or notified,
// ends it sooner: it may have repaired the rows).
type unusableGen struct {
	repo  string
	err   error
	until time.Time
}

// forgetUnusable drops what this process remembers of repo's unusable
// generations: the next read tries the store again.
func (s *Store) forgetUnusable(repo string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for mh, u := range s.unusable {
		if u.repo == repo {
			delete(s.unusable, mh)
		}
	}
}

// knownUnusable returns why the generation whose manifest is mh was
// found unusable, when that was less than RecheckUnusable ago; else nil.
func (s *Store) knownUnusable(mh Hash) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u, ok := s.unusable[mh]; ok && time.Now().Before(u.until) {
		return u.err
	}
	return nil
}

// noteFailure records err, the failure of reading generation gen of repo
// (manifest mh; when the generation's row names none, a key of the
// repository's own), when it says the store's content is unusable, and
// logs it unless the same was logged for that generation before.
func (s *Store) noteFailure(repo string, gen int64, mh Hash, err error) {
	if !errors.Is(err, ErrUnusable) {
		return
	}
	s.mu.Lock()
	if s.unusable == nil || len(s.unusable) >= 1024 {
		s.unusable = map[Hash]unusableGen{}
	}
	old, seen := s.unusable[mh]
	s.unusable[mh] = unusableGen{repo: repo, err: err, until: time.Now().Add(RecheckUnusable)}
	s.mu.Unlock()
	if !seen || old.err.Error() != err.Error() {
		s.log("store: repository %s, generation %d cannot be used: %v", repo, gen, err)
	}
}

// ConnectTimeout bounds how long Open waits for the server.
const ConnectTimeout = 10 * time.Second

// Open connects to the database that the connection string dsn names
// (postgres://user@host:port/db?…, or host=… dbname=…) and creates
// ctxls's tables when they are missing. A password missing from dsn is
// taken from $PGPASSWORD or the PostgreSQL password file
// ($PGPASSFILE, ~/.pgpass), which must be one only its owner may read
// (checkPassfile). No error says a password of dsn: each is redacted.
func Open(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, parseError(err, dsn)
	}
	if err := checkPassfile(dsn); err != nil {
		return nil, err
	}
	maxRepo, err := maxRepoFromEnv()
	if err != nil {
		return nil, err
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
		return nil, &scrubbed{err: fmt.Errorf("store %s: %w", Redact(dsn), err), dsn: dsn}
	}
	s := &Store{pool: pool, id: storeID(cfg.ConnConfig), maxRepo: maxRepo}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, &scrubbed{err: fmt.Errorf("store %s: %w", Redact(dsn), err), dsn: dsn}
	}
	return s, nil
}

// storeID names the database cfg connects to, whatever the connection
// string's spelling: its hosts (the fallbacks too, in order of name)
// lower-cased, a socket directory cleaned, their ports, and the
// database. Two spellings of one store share a replica's checkouts and a
// publisher's record.
func storeID(cfg *pgx.ConnConfig) string {
	host := func(h string, port uint16) string {
		if strings.HasPrefix(h, "/") {
			h = filepath.Clean(h)
		} else {
			h = strings.TrimSuffix(strings.ToLower(h), ".")
		}
		return fmt.Sprintf("%s:%d", h, port)
	}
	hosts := []string{host(cfg.Host, cfg.Port)}
	for _, fb := range cfg.Fallbacks {
		if h := host(fb.Host, fb.Port); !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	slices.Sort(hosts)
	return strings.Join(hosts, ",") + "/" + cfg.Database
}

// Close closes the pool.
func (s *Store) Close() { s.pool.Close() }

// URLError is a connection string that does not parse (its message
// redacted).
type URLError struct{ Err error }

func (e *URLError) Error() string {
	return fmt.Sprintf("not a PostgreSQL connection string (postgres://user@host:port/database, or host=… dbname=…): %v", e.Err)
}
func (e *URLError) Unwrap() error { return e.Err }

// ErrNoRepo is returned (wrapped) for a repository the store does not
// have, or one the caller may not read: the two are not told apart.
var ErrNoRepo = errors.New("no such repository in the store")

// ErrDamaged is returned (wrapped) when the store holds a row that is
// not what its name says (its content does not match its hash, it does
// not decompress) or lacks one a generation names: reading it again gives
// the same answer. The repository's publisher repairs it: a publish checks
// every row its generation names and rewrites those that are wrong.
// Damage is one way content cannot be used: it is ErrUnusable too.
var ErrDamaged = fmt.Errorf("the store holds damaged data (reading again does not help: publishing the repository again repairs it): %w", ErrUnusable)

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
// is published (or a publish repaired its rows), until ctx ends or the
// connection is lost (the error says which). listening (when not nil) is
// called once the notifications are subscribed to: what was published
// before may have been missed. What the process remembers of the
// repository's unusable generations is forgotten first.
func (s *Store) Listen(ctx context.Context, listening func(), fn func(repo string)) error {
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
	if listening != nil {
		listening()
	}
	for {
		n, err := conn.Conn().WaitForNotification(ctx)
		if err != nil {
			return err
		}
		s.forgetUnusable(n.Payload)
		fn(n.Payload)
	}
}
