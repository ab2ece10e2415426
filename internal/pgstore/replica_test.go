package pgstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ctxls/ctxls/internal/pgstore/pgtest"
)

// A TokenChecker remembers the store's answers, refusals too, for its
// TTL: a revoked token is refused once it has passed; a token not of a
// store's form is refused without the store; while the store is down a
// token it answered for keeps that answer and any other is told only
// that the store is unavailable (nothing of its address or user), and
// the store is not asked again within the retry interval.
func TestTokenChecker(t *testing.T) {
	ctx := context.Background()
	srv := pgtest.Start(t)
	s := open(t, srv.NewDatabase(t, "checker"))
	tok, err := s.CreateToken(ctx, "bot", []string{"team/b", "team/a"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := s.CreateToken(ctx, "other", []string{"team/c"})
	if err != nil {
		t.Fatal(err)
	}
	var logged []string
	c := s.NewTokenChecker(func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) })
	c.ttl, c.retry = 300*time.Millisecond, 300*time.Millisecond

	for _, bad := range []string{"", "ctxls_forged", tok + "x", tok[:len(tok)-1] + "!", "Bearer " + tok} {
		if _, err := c.Check(ctx, bad); !errors.Is(err, ErrBadToken) {
			t.Errorf("%q: %v, want ErrBadToken", bad, err)
		}
	}
	g, err := c.Check(ctx, " "+tok+"\n")
	if err != nil || g.Name != "bot" || !slices.Equal(g.Repos, []string{"team/a", "team/b"}) {
		t.Fatalf("the token: %+v, %v", g, err)
	}
	unknown := "ctxls_" + strings.Repeat("A", 43)
	if _, err := c.Check(ctx, unknown); !errors.Is(err, ErrBadToken) {
		t.Fatalf("an unknown token: %v", err)
	}

	// Revoked: still granted within the TTL, refused after it.
	if err := s.RevokeToken(ctx, "bot"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Check(ctx, tok); err != nil {
		t.Fatalf("within the TTL of the revocation: %v", err)
	}
	time.Sleep(c.ttl)
	if _, err := c.Check(ctx, tok); !errors.Is(err, ErrBadToken) {
		t.Fatalf("after the TTL of the revocation: %v", err)
	}

	// The store down (what it committed written first: the test
	// server commits asynchronously, and stops as a crash would).
	if _, err := c.Check(ctx, other); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, srv.URL("checker"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CHECKPOINT"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	srv.Stop()
	time.Sleep(c.ttl)
	if g, err := c.Check(ctx, other); err != nil || g.Name != "other" {
		t.Errorf("a token granted before, the store down: %+v, %v", g, err)
	}
	if _, err := c.Check(ctx, tok); !errors.Is(err, ErrBadToken) {
		t.Errorf("a token refused before, the store down: %v", err)
	}
	for i := range 3 {
		fresh := "ctxls_" + strings.Repeat("B", 42) + strconv.Itoa(i)
		_, err := c.Check(ctx, fresh)
		if !errors.Is(err, ErrUnavailable) || err.Error() != ErrUnavailable.Error() {
			t.Errorf("an unknown token, the store down: %v, want only %q", err, ErrUnavailable)
		}
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "cannot check tokens") {
		t.Errorf("the log, the store down: %q, want one line", logged)
	}

	// The store back: asked again after the retry interval.
	srv.Start()
	time.Sleep(c.retry)
	back, err := s.CreateToken(ctx, "back", []string{"team/a"})
	if err != nil {
		t.Fatal(err)
	}
	if g, err := c.Check(ctx, back); err != nil || g.Name != "back" {
		t.Errorf("the store back: %+v, %v", g, err)
	}
	if len(logged) != 2 || !strings.Contains(logged[1], "again") {
		t.Errorf("the log, the store back: %q", logged)
	}
}

// ResolveRepos bounds a request's repos list before anything else,
// counts each repository once, expands '*' once, and names the maximum.
func TestResolveRepos(t *testing.T) {
	readable := func() ([]string, error) { return []string{"a", "b", "c"}, nil }
	many := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("r%02d", i)
		}
		return out
	}
	for _, c := range []struct {
		list    []string
		want    []string
		wantErr string
	}{
		{[]string{"b", "a", "b"}, []string{"a", "b"}, ""},
		{[]string{"*", "*", "x"}, []string{"a", "b", "c", "x"}, ""},
		{[]string{"c"}, []string{"c"}, ""},
		{nil, nil, "no repository"},
		{many(MaxUnionRepos), many(MaxUnionRepos), ""},
		{many(MaxUnionRepos + 1), nil, "at most 32 repositories"},
		{slices.Repeat([]string{"*"}, 100000), nil, "at most 32 repositories"},
		{append(many(MaxUnionRepos-2), "*"), nil, "('*' names 33 here"},
	} {
		got, err := ResolveRepos(c.list, readable)
		name := strings.Join(c.list[:min(len(c.list), 4)], ",")
		switch {
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%s: %v, want an error with %q", name, err, c.wantErr)
		case c.wantErr == "" && (err != nil || !slices.Equal(got, c.want)):
			t.Errorf("%s: %v, %v, want %v", name, got, err, c.want)
		}
	}
	if _, err := ResolveRepos([]string{"*"}, func() ([]string, error) { return nil, errors.New("down") }); err == nil || err.Error() != "down" {
		t.Errorf("'*', the store down: %v", err)
	}
}
