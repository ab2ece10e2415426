package pgtest

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// A row written on the primary is read on its standby; the primary
// stopped and started again takes writes again.
func TestPrimaryAndStandby(t *testing.T) {
	ctx := context.Background()
	p := Start(t)
	url := p.NewDatabase(t, "probe")
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "CREATE TABLE t (v text); INSERT INTO t VALUES ('one')"); err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)
	s := StartStandby(t, p)
	waitFor(t, s.URL("probe"), "one")

	p.Stop()
	if _, err := pgx.Connect(ctx, url); err == nil {
		t.Fatal("connected to a stopped primary")
	}
	waitFor(t, s.URL("probe"), "one") // the standby still answers
	p.Start()
	c, err = pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "UPDATE t SET v = 'two'"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, s.URL("probe"), "two")
}

// waitFor waits until table t on url holds want.
func waitFor(t *testing.T, url, want string) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(30 * time.Second)
	var got string
	for time.Now().Before(deadline) {
		c, err := pgx.Connect(ctx, url)
		if err == nil {
			err = c.QueryRow(ctx, "SELECT v FROM t").Scan(&got)
			c.Close(ctx)
			if err == nil && got == want {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: got %q, want %q", url, got, want)
}
