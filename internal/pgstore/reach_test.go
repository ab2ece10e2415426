package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ctxls/ctxls/internal/pgstore/pgtest"
)

// logLines collects what a store logs (SetLogf).
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// exec runs statements on url as the test's own client.
func exec(t *testing.T, url string, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for _, q := range stmts {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// killOnce makes the server end the session that first inserts into
// table (a statement trigger calling pg_terminate_backend on its own
// backend: the client sees 57P01, as when an administrator or a fast
// shutdown ends it), once; counter is a sequence counting the inserts.
func killOnce(t *testing.T, url, table, counter string) {
	t.Helper()
	exec(t, url,
		"CREATE SEQUENCE "+counter,
		`CREATE OR REPLACE FUNCTION ctxls_test_kill() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF nextval(TG_ARGV[0]::regclass) = 1 THEN
				PERFORM pg_terminate_backend(pg_backend_pid());
				PERFORM pg_sleep(5); -- the termination comes first
			END IF;
			RETURN NULL;
		END $$`,
		"CREATE TRIGGER "+counter+" BEFORE INSERT ON "+table+" FOR EACH STATEMENT EXECUTE FUNCTION ctxls_test_kill('"+counter+"')")
}

// A publish whose session the server ends (pg_terminate_backend, while it
// writes its blobs and again while it makes its generation current), or
// whose server restarts while it writes, tries again with a backoff, logs
// each retry, and completes: the generation is current and checks out.
// Before, the first ended session failed the publish.
func TestPublishRetriesUnreachable(t *testing.T) {
	srv := pgtest.Start(t)
	url := srv.NewDatabase(t, "retry")
	s := open(t, url)
	var log logLines
	s.SetLogf(log.logf)
	killOnce(t, url, "ctxls_blobs", "kill_blobs")
	killOnce(t, url, "ctxls_generations", "kill_gen")

	root := tree(t, map[string]string{"a.go": "package a\n\n// Alpha is the first.\nfunc Alpha() {}\n"})
	st := publishTree(t, s, "org/a", root)
	if st.Generation != 1 || !strings.Contains(log.String(), "write blobs: terminating connection due to administrator command; trying again") ||
		!strings.Contains(log.String(), "make the generation current: terminating connection") {
		t.Fatalf("publish with its sessions ended: %+v\n%s", st, log.String())
	}
	if text, err := checkoutText(t, s, "org/a", "a.go"); err != nil || !strings.Contains(text, "Alpha") {
		t.Fatalf("checkout after the retried publish: %q %v", text, err)
	}

	// The server restarts while the publish's last transaction runs (it
	// sleeps in a trigger until the server is stopped).
	exec(t, url, "DROP TRIGGER kill_gen ON ctxls_generations",
		`CREATE FUNCTION ctxls_test_sleep() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF nextval('sleep_gen') = 1 THEN PERFORM pg_sleep(60); END IF;
			RETURN NULL;
		END $$`,
		"CREATE SEQUENCE sleep_gen",
		"CREATE TRIGGER sleep_gen BEFORE INSERT ON ctxls_generations FOR EACH STATEMENT EXECUTE FUNCTION ctxls_test_sleep()")
	root2 := tree(t, map[string]string{"a.go": "package a\n\n// Beta is the second.\nfunc Beta() {}\n"})
	snap := localSnapshot(t, root2)
	done := make(chan error, 1)
	go func() {
		_, err := s.Publish(context.Background(), "org/a", snap, PublishOptions{})
		done <- err
	}()
	waitSleeping(t, srv)
	srv.Shutdown()
	time.Sleep(2 * RetryFirst) // a retry or two finds the server down
	srv.Start()
	if err := <-done; err != nil {
		t.Fatalf("publish across a restart: %v\n%s", err, log.String())
	}
	if !strings.Contains(log.String(), "make the generation current") || !strings.Contains(log.String(), "attempt 3") {
		t.Fatalf("the retries across the restart are not logged:\n%s", log.String())
	}
	if text, err := checkoutText(t, s, "org/a", "a.go"); err != nil || !strings.Contains(text, "Beta") {
		t.Fatalf("checkout after the publish across a restart: %q %v", text, err)
	}
}

// waitSleeping waits until a session of srv sleeps in pg_sleep.
func waitSleeping(t *testing.T, srv *pgtest.Server) {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, srv.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var n int
		if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
	}
	t.Fatal("no session sleeps in the trigger")
}

// A failure to reach the server is an error wrapping ErrUnreachable that
// names the store by host, port and database — never its user or
// password — and is not ErrNoRepo: a repository's checkout and the list
// of repositories with the server stopped.
func TestUnreachableError(t *testing.T) {
	srv := pgtest.Start(t)
	srv.NewDatabase(t, "reach")
	url := strings.Replace(srv.PasswordRole(t, "reader", "s3cret-pass", "reach"), "reader@", "reader:s3cret-pass@", 1)
	s := open(t, url)
	srv.Shutdown()
	ctx := context.Background()
	_, errRepos := s.Repos(ctx, nil)
	_, errCo := s.Checkout(ctx, "org/a", t.TempDir(), nil)
	for _, err := range []error{errRepos, errCo} {
		if !errors.Is(err, ErrUnreachable) || errors.Is(err, ErrNoRepo) {
			t.Fatalf("with the server stopped: %v", err)
		}
		msg := err.Error()
		want := "the index store 127.0.0.1:" + strconv.Itoa(srv.Port) + "/reach cannot be read now (try again shortly)"
		if !strings.Contains(msg, want) || strings.Contains(msg, "reader") || strings.Contains(msg, "s3cret") || strings.Contains(msg, "postgres://") {
			t.Fatalf("the error says %q; want %q, and no user, password or URL", msg, want)
		}
	}
	srv.Start()
	if _, err := s.Repos(ctx, nil); err != nil {
		t.Fatalf("after the restart: %v", err)
	}
}
