package pgstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestRedact: every place a connection string holds a password is
// masked: a URL's userinfo, its query's password and sslpassword (also
// percent-encoded keys), a keyword/value string's password, quoted or not,
// with escapes and spaces around '='; a malformed string is masked from
// where it stops parsing. What is not a secret is left as it is.
func TestRedact(t *testing.T) {
	cases := []struct{ in, want string }{
		// No password.
		{"postgres://ctxls@db1:5432/ctxls?sslmode=verify-full", "postgres://ctxls@db1:5432/ctxls?sslmode=verify-full"},
		{"host=db1 dbname=ctxls user=ctxls sslmode=verify-full", "host=db1 dbname=ctxls user=ctxls sslmode=verify-full"},
		{"", ""},
		// A URL's userinfo.
		{"postgres://ctxls:hunter2@db1/ctxls", "postgres://ctxls:xxxxx@db1/ctxls"},
		{"postgresql://ctxls:hun%40ter2@db1:5432,db2:5432/ctxls", "postgresql://ctxls:xxxxx@db1:5432,db2:5432/ctxls"},
		{"POSTGRES://ctxls:hunter2@db1/ctxls", "POSTGRES://ctxls:xxxxx@db1/ctxls"},
		// A password with an unencoded '/', '?' or '@': more is masked.
		{"postgres://ctxls:hun/ter2@db1/ctxls", "postgres://ctxls:xxxxx@db1/ctxls"},
		{"postgres://ctxls:hun@ter2@db1/ctxls", "postgres://ctxls:xxxxx@db1/ctxls"},
		{"postgres://ctxls:hun?t=er2@db1/ctxls", "postgres://ctxls:xxxxx@db1/ctxls"},
		// A URL's query.
		{"postgres://ctxls@db1/ctxls?password=hunter2", "postgres://ctxls@db1/ctxls?password=xxxxx"},
		{"postgres://ctxls@db1/ctxls?sslmode=require&password=hunter2&application_name=x", "postgres://ctxls@db1/ctxls?sslmode=require&password=xxxxx&application_name=x"},
		{"postgres://ctxls@db1/ctxls?pass%77ord=hunter2", "postgres://ctxls@db1/ctxls?pass%77ord=xxxxx"},
		{"postgres://ctxls@db1/ctxls?sslpassword=keypass", "postgres://ctxls@db1/ctxls?sslpassword=xxxxx"},
		{"postgres://ctxls:a@db1/ctxls?password=hunter2", "postgres://ctxls:xxxxx@db1/ctxls?password=xxxxx"},
		// Keyword/value.
		{"host=db1 password=hunter2 dbname=ctxls", "host=db1 password=xxxxx dbname=ctxls"},
		{"host=db1 password='hun ter2' dbname=ctxls", "host=db1 password=xxxxx dbname=ctxls"},
		{`host=db1 password='hun\' ter2' dbname=ctxls`, "host=db1 password=xxxxx dbname=ctxls"},
		{`host=db1 password=hun\ ter2 dbname=ctxls`, "host=db1 password=xxxxx dbname=ctxls"},
		{"host=db1 password = hunter2 dbname=ctxls", "host=db1 password = xxxxx dbname=ctxls"},
		{"host=db1\tpassword=hunter2\ndbname=ctxls", "host=db1\tpassword=xxxxx\ndbname=ctxls"},
		{"host=db1 PASSWORD=hunter2", "host=db1 PASSWORD=xxxxx"},
		{"password=hunter2", "password=xxxxx"},
		{"host=db1 sslpassword=keypass", "host=db1 sslpassword=xxxxx"},
		// Malformed keyword/value strings.
		{"host=db1 password='hunter2 dbname=ctxls", "host=db1 xxxxx"},
		{"host=db1 pass word=hunter2", "host=db1 xxxxx"},
		{"host=db1 hunter2", "host=db1 xxxxx"},
		{" postgres://ctxls:hunter2@db1/ctxls", " xxxxx"},
	}
	for _, c := range cases {
		got := Redact(c.in)
		if got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
		}
		for _, secret := range []string{"hunter2", "hun", "ter2", "keypass"} {
			if strings.Contains(got, secret) {
				t.Errorf("Redact(%q) = %q: %q is in it", c.in, got, secret)
			}
		}
		// A malformed string is masked whole, but holds a password only
		// when it names one.
		if want := got != c.in && c.in != "host=db1 hunter2" && c.in != "host=db1 pass word=hunter2"; HasPassword(c.in) != want {
			t.Errorf("HasPassword(%q) = %v, want %v", c.in, HasPassword(c.in), want)
		}
	}
}

// TestScrub: a secret is removed from a message however the message
// writes it: the whole connection string, the password as written, or
// decoded (percent-decoded, unquoted, unescaped).
func TestScrub(t *testing.T) {
	for _, c := range []struct{ dsn, msg string }{
		{"postgres://ctxls:hun%40ter2@db1/ctxls", "cannot parse `postgres://ctxls:hun%40ter2@db1/ctxls`: bad"},
		{"postgres://ctxls:hun%40ter2@db1/ctxls", "password hun@ter2 refused"},
		{`host=db1 password='hun\' ter2'`, `the password was hun' ter2`},
		{`host=db1 password='hun\' ter2'`, `cannot parse "host=db1 password='hun\' ter2'"`},
	} {
		got := scrub(c.msg, c.dsn)
		if strings.Contains(got, "hun") || strings.Contains(got, "ter2") {
			t.Errorf("scrub(%q, %q) = %q", c.msg, c.dsn, got)
		}
	}
}

// closedPort returns a loopback port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestOpenErrorsRedacted: whether a connection string does not parse or
// its server cannot be reached, Open's error says neither its password
// nor its client key's passphrase, in every form a connection string
// takes.
func TestOpenErrorsRedacted(t *testing.T) {
	port := closedPort(t)
	const secret = "Sup3r-Secret_pw"
	unreachable := []string{
		fmt.Sprintf("postgres://ctxls:%s@127.0.0.1:%d/ctxls?sslmode=disable", secret, port),
		fmt.Sprintf("postgres://ctxls@127.0.0.1:%d/ctxls?sslmode=disable&password=%s", port, secret),
		fmt.Sprintf("postgres://ctxls@127.0.0.1:%d/ctxls?sslmode=disable&pass%%77ord=%s", port, secret),
		fmt.Sprintf("host=127.0.0.1 port=%d dbname=ctxls user=ctxls sslmode=disable password=%s", port, secret),
		fmt.Sprintf("host=127.0.0.1 port=%d dbname=ctxls user=ctxls sslmode=disable password='%s'", port, secret),
		fmt.Sprintf("host=127.0.0.1 port=%d dbname=ctxls user=ctxls sslmode=disable password = %s", port, secret),
	}
	malformed := []string{
		fmt.Sprintf("postgres://ctxls:%s@127.0.0.1:notaport/ctxls", secret),
		fmt.Sprintf("postgres://ctxls@127.0.0.1:%d/ctxls?password=%s&sslmode", port, secret),
		fmt.Sprintf(`host=127.0.0.1 password=%s\ x port=notaport`, secret),
		fmt.Sprintf(`host=127.0.0.1 password=Mask\ %s port=notaport`, secret),
		fmt.Sprintf("host=127.0.0.1 password = %s port=notaport", secret),
		fmt.Sprintf("host=127.0.0.1 password='%s", secret),
		fmt.Sprintf("host=127.0.0.1 password=%s connect_timeout=never", secret),
		fmt.Sprintf("postgres://ctxls@127.0.0.1/ctxls?sslpassword=%s&sslmode=verify-full&sslkey=/nonexistent&sslcert=/nonexistent", secret),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, dsn := range append(unreachable, malformed...) {
		st, err := Open(ctx, dsn)
		if err == nil {
			st.Close()
			t.Errorf("Open(%q) connected", dsn)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, secret) || strings.Contains(msg, "Sup3r") {
			t.Errorf("Open(%q): the error says the password: %s", dsn, msg)
		}
	}
	for _, dsn := range malformed[:7] {
		if _, err := Open(ctx, dsn); !errors.As(err, new(*URLError)) {
			t.Errorf("Open(%q): %v, want a *URLError", dsn, err)
		}
	}
}

// Spellings of one store's connection string name one store: a replica
// keeps one set of checkouts for them, a publisher one record.
func TestStoreIDIgnoresSpelling(t *testing.T) {
	id := func(dsn string) string {
		t.Helper()
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			t.Fatal(err)
		}
		return storeID(cfg)
	}
	want := id("postgres://ctxls@db1.example.org:5432/ctxls?sslmode=disable")
	for _, dsn := range []string{
		"postgres://ctxls@DB1.Example.ORG:5432/ctxls?sslmode=disable",
		"postgres://other@db1.example.org/ctxls?sslmode=disable&application_name=replica",
		"host=db1.example.org. port=5432 dbname=ctxls user=ctxls sslmode=disable",
	} {
		if got := id(dsn); got != want {
			t.Errorf("%s: store %q, want %q", dsn, got, want)
		}
	}
	pair := id("postgres://ctxls@db1:5432,db2:5433/ctxls?sslmode=disable")
	if got := id("postgres://ctxls@DB2:5433,db1:5432/ctxls?sslmode=disable"); got != pair {
		t.Errorf("a primary and a standby in the other order: %q, want %q", got, pair)
	}
	for _, other := range []string{"postgres://ctxls@db1.example.org:5432/other?sslmode=disable", "postgres://ctxls@db1.example.org:5433/ctxls?sslmode=disable"} {
		if id(other) == want {
			t.Errorf("%s names the same store as %s", other, want)
		}
	}
	if a, b := id("host=/var/run/postgresql/ dbname=ctxls"), id("host=/var/run/postgresql dbname=ctxls"); a != b {
		t.Errorf("a socket directory's spellings: %q and %q", a, b)
	}
}
