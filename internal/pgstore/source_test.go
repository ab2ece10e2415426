package pgstore

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/pgstore/pgtest"
)

func writeSecret(t *testing.T, content string, perm os.FileMode) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(p, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, perm); err != nil { // whatever the umask
		t.Fatal(err)
	}
	return p
}

// TestSourceDSN: --store, else --store-file, else (for the commands that
// always read a store) $CTXLS_STORE_FILE, else $CTXLS_STORE; both flags
// at once, and a store file that others may read, that is not a regular
// file or that is empty, are refused as bad usage (*SourceError).
func TestSourceDSN(t *testing.T) {
	const dsn = "postgres://ctxls:pw@db1/ctxls"
	file := writeSecret(t, "\n  "+dsn+"\n", 0o600)
	envFile := writeSecret(t, "host=db2 password=pw", 0o600)
	t.Setenv(EnvStoreFile, "")
	t.Setenv(EnvStore, "")
	parse := func(args ...string) *Source {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		src := SourceFlags(fs, "the store")
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return src
	}
	check := func(src *Source, env bool, want, wantFrom string) {
		t.Helper()
		got, from, err := src.DSN(env)
		if err != nil || got != want || from != wantFrom {
			t.Errorf("DSN(%v) = %q, %q, %v; want %q from %q", env, got, from, err, want, wantFrom)
		}
	}
	check(parse("--store", "postgres://ctxls@db1/ctxls"), true, "postgres://ctxls@db1/ctxls", "--store")
	check(parse("--store-file", file), true, dsn, "--store-file "+file)
	check(parse(), true, "", "")
	t.Setenv(EnvStore, " host=db3 ")
	check(parse(), true, "host=db3", "$CTXLS_STORE")
	check(parse(), false, "", "")
	t.Setenv(EnvStoreFile, envFile)
	check(parse(), true, "host=db2 password=pw", "$CTXLS_STORE_FILE "+envFile)
	check(parse("--store-file", file), true, dsn, "--store-file "+file)
	check(parse(), false, "", "")

	if !parse("--store", dsn).Exposed() || parse("--store", "postgres://ctxls@db1/ctxls").Exposed() || parse("--store-file", file).Exposed() {
		t.Error("Exposed: want true only for a password in --store")
	}
	refused := []struct {
		args []string
		env  string
		want string
	}{
		{[]string{"--store", dsn, "--store-file", file}, "", "not both"},
		{[]string{"--store-file", writeSecret(t, dsn, 0o644)}, "", "chmod 600"},
		{[]string{"--store-file", writeSecret(t, dsn, 0o640)}, "", "chmod 600"},
		{[]string{"--store-file", writeSecret(t, " \n", 0o600)}, "", "empty"},
		{[]string{"--store-file", t.TempDir()}, "", "not a regular file"},
		{[]string{"--store-file", filepath.Join(t.TempDir(), "missing")}, "", "no such file"},
		{nil, writeSecret(t, dsn, 0o604), "$CTXLS_STORE_FILE: "},
	}
	for _, c := range refused {
		t.Setenv(EnvStoreFile, c.env)
		_, _, err := parse(c.args...).DSN(true)
		if !errors.As(err, new(*SourceError)) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "pw") {
			t.Errorf("%v %s: %v; want a *SourceError mentioning %q, without the password", c.args, c.env, err, c.want)
		}
	}
}

// TestOpenPassfile: a connection string without a password takes it from
// PostgreSQL's password file, as libpq does: $PGPASSFILE, else ~/.pgpass,
// also when the connection string names the file (passfile=); a password
// file that other users may read is refused, saying so; without a
// password the server refuses the connection, and the error says so
// without any password.
func TestOpenPassfile(t *testing.T) {
	srv := pgtest.Start(t)
	srv.NewDatabase(t, "creds")
	const password = "pgpass-Secret_42"
	url := srv.PasswordRole(t, "app", password, "creds")
	line := fmt.Sprintf("127.0.0.1:%d:creds:app:%s\n", srv.Port, password)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("PGPASSWORD", "")
	t.Setenv("PGPASSFILE", "")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	open := func(dsn string) error {
		t.Helper()
		st, err := Open(ctx, dsn)
		if err == nil {
			defer st.Close()
			_, err = st.Repos(ctx, nil)
		}
		if err != nil && strings.Contains(err.Error(), password) {
			t.Errorf("the error says the password: %v", err)
		}
		return err
	}

	if err := open(url); err == nil || !strings.Contains(err.Error(), "password authentication failed") {
		t.Errorf("no password anywhere: %v; want the server's refusal", err)
	}
	pgpass := filepath.Join(home, ".pgpass")
	if err := os.WriteFile(pgpass, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := open(url); err != nil {
		t.Errorf("~/.pgpass 0600: %v", err)
	}
	if err := os.Chmod(pgpass, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := open(url); !errors.As(err, new(*SourceError)) || !strings.Contains(err.Error(), "chmod 600 "+pgpass) {
		t.Errorf("~/.pgpass 0644: %v; want a refusal naming chmod 600", err)
	}
	named := writeSecret(t, line, 0o600)
	t.Setenv("PGPASSFILE", named)
	if err := open(url); err != nil {
		t.Errorf("$PGPASSFILE 0600 (~/.pgpass 0644 not read): %v", err)
	}
	if err := os.Chmod(named, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := open(url); !errors.As(err, new(*SourceError)) || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("$PGPASSFILE 0640: %v; want a refusal", err)
	}
	t.Setenv("PGPASSFILE", "")
	inDSN := writeSecret(t, line, 0o600)
	if err := open(url + "&passfile=" + inDSN); err != nil {
		t.Errorf("passfile= in the URL: %v", err)
	}
	kv := fmt.Sprintf("host=127.0.0.1 port=%d dbname=creds user=app sslmode=disable passfile='%s'", srv.Port, inDSN)
	if err := open(kv); err != nil {
		t.Errorf("passfile= in a keyword/value string: %v", err)
	}
	// A password in the connection string: the password file is not read.
	if err := open(strings.Replace(url, "app@", "app:"+password+"@", 1)); err != nil {
		t.Errorf("the password in the URL, ~/.pgpass 0644 not read: %v", err)
	}
	if err := open(strings.Replace(url, "app@", "app:wrong-"+password+"@", 1)); err == nil || strings.Contains(err.Error(), "wrong-") {
		t.Errorf("a wrong password: %v; want a refusal that does not say it", err)
	}
}
