// Package pgtest starts real PostgreSQL servers for tests: a primary in a
// temporary directory, and streaming standbys of it. It uses the server
// binaries of the machine's PostgreSQL packages (Debian's postgresql-15,
// which `make test` installs when missing); nothing stands in for them.
//
// PostgreSQL refuses to run as root: under root the servers run as the
// user nobody, in directories made for them.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Server is one running (or stopped) PostgreSQL server.
type Server struct {
	tb      testing.TB
	bin     string // the server binaries' directory
	dir     string // the server's own directory (data and log)
	Port    int
	standby bool

	mu   sync.Mutex
	proc *exec.Cmd
	done chan struct{}
}

// BinDir returns the directory of the PostgreSQL server binaries:
// $CTXLS_PG_BINDIR, else the newest /usr/lib/postgresql/<version>/bin,
// else the directory of a postgres on PATH.
func BinDir() (string, error) {
	if d := os.Getenv("CTXLS_PG_BINDIR"); d != "" {
		return d, nil
	}
	vers, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	slices.SortFunc(vers, func(a, b string) int { return version(b) - version(a) })
	if len(vers) > 0 {
		return filepath.Dir(vers[0]), nil
	}
	if p, err := exec.LookPath("postgres"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("no PostgreSQL server binaries (postgres, initdb): install Debian's postgresql-15 (make need-postgres) or set CTXLS_PG_BINDIR")
}

// version is the major version in a path /usr/lib/postgresql/<v>/bin/….
func version(p string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(p))))
	return v
}

// Start initializes and starts a primary server; it is stopped and its
// files removed when the test ends. The test fails when PostgreSQL is not
// installed.
func Start(tb testing.TB) *Server {
	tb.Helper()
	bin, err := BinDir()
	if err != nil {
		tb.Fatal(err)
	}
	s := &Server{tb: tb, bin: bin, dir: serverDir(tb), Port: freePort(tb)}
	tb.Cleanup(s.Stop)
	s.run(tb, "initdb", "-D", s.data(), "-U", "ctxls", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C")
	s.Start()
	return s
}

// StartStandby makes a streaming standby of primary from a base backup
// and starts it; it answers reads (hot standby) and follows the primary.
func StartStandby(tb testing.TB, primary *Server) *Server {
	tb.Helper()
	s := &Server{tb: tb, bin: primary.bin, dir: serverDir(tb), Port: freePort(tb), standby: true}
	s.run(tb, "pg_basebackup", "-D", s.data(), "-h", "127.0.0.1", "-p", strconv.Itoa(primary.Port),
		"-U", "ctxls", "-R", "-X", "stream", "--no-sync", "-c", "fast")
	tb.Cleanup(s.Stop)
	s.Start()
	return s
}

// URL is the connection string of database db on the server.
func (s *Server) URL(db string) string {
	return fmt.Sprintf("postgres://ctxls@127.0.0.1:%d/%s?sslmode=disable", s.Port, db)
}

// NewDatabase creates a fresh database on the server and returns its URL.
func (s *Server) NewDatabase(tb testing.TB, name string) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		tb.Fatal(err)
	}
	return s.URL(name)
}

// PasswordRole creates a login role (a superuser) that must give
// password to connect over TCP (scram-sha-256, where every other role is
// trusted), and returns the URL of database db for it, without the
// password.
func (s *Server) PasswordRole(tb testing.TB, role, password, db string) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close(ctx)
	lit := "'" + strings.ReplaceAll(password, "'", "''") + "'"
	if _, err := c.Exec(ctx, "CREATE ROLE "+pgx.Identifier{role}.Sanitize()+" LOGIN SUPERUSER PASSWORD "+lit); err != nil {
		tb.Fatal(err)
	}
	hba := filepath.Join(s.data(), "pg_hba.conf")
	old, err := os.ReadFile(hba)
	if err != nil {
		tb.Fatal(err)
	}
	line := fmt.Sprintf("host all %s 127.0.0.1/32 scram-sha-256\n", pgx.Identifier{role}.Sanitize())
	if err := os.WriteFile(hba, append([]byte(line), old...), 0o600); err != nil {
		tb.Fatal(err)
	}
	if _, err := c.Exec(ctx, "SELECT pg_reload_conf()"); err != nil {
		tb.Fatal(err)
	}
	url := fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", role, s.Port, db)
	// The server reloads its configuration in a moment: until then the
	// role is trusted.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		cctx, ccancel := context.WithTimeout(ctx, 5*time.Second)
		cfg, err := pgx.ParseConfig(url)
		if err != nil {
			ccancel()
			tb.Fatal(err)
		}
		cfg.Password = ""
		cfg.Fallbacks = nil
		probe, err := pgx.ConnectConfig(cctx, cfg)
		ccancel()
		if err != nil {
			return url
		}
		probe.Close(ctx)
		if time.Now().After(deadline) {
			tb.Fatalf("the server still lets role %s in without a password", role)
		}
	}
}

func (s *Server) data() string { return filepath.Join(s.dir, "data") }

// Start starts the server (again) and waits until it accepts connections.
func (s *Server) Start() {
	s.tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc != nil {
		return
	}
	logf, err := os.OpenFile(filepath.Join(s.dir, "log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		s.tb.Fatal(err)
	}
	cmd := s.command("postgres", "-D", s.data(), "-p", strconv.Itoa(s.Port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "shared_buffers=32MB", "-c", "max_connections=60", "-c", "wal_keep_size=256MB")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		s.tb.Fatalf("start postgres: %v", err)
	}
	logf.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }() //nolint:errcheck // a stopped server's status says nothing
	s.proc, s.done = cmd, done
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c, err := pgx.Connect(ctx, s.URL("postgres"))
		if err == nil {
			c.Close(ctx)
			cancel()
			return
		}
		cancel()
		select {
		case <-done:
			s.proc = nil
			s.tb.Fatalf("postgres exited at start: %s", s.Log())
		default:
		}
		if time.Now().After(deadline) {
			s.tb.Fatalf("postgres did not accept connections in 60 s: %v\n%s", err, s.Log())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop stops the server at once (immediate shutdown: SIGQUIT), as a crash
// or a pulled cable would, and waits for it to exit.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return
	}
	s.proc.Process.Signal(syscall.SIGQUIT) //nolint:errcheck // it may be gone already
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		s.proc.Process.Kill() //nolint:errcheck // last resort
		<-s.done
	}
	s.proc = nil
}

// Shutdown stops the server as an administrator's restart does (fast
// shutdown: SIGINT): it ends every session (their clients see 57P01),
// writes a checkpoint, so that every committed transaction survives, and
// exits; Shutdown waits for that.
func (s *Server) Shutdown() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return
	}
	s.proc.Process.Signal(syscall.SIGINT) //nolint:errcheck // it may be gone already
	select {
	case <-s.done:
	case <-time.After(60 * time.Second):
		s.proc.Process.Kill() //nolint:errcheck // last resort
		<-s.done
	}
	s.proc = nil
}

// Log returns the server's log so far (for failure messages).
func (s *Server) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "log"))
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// command is a server binary run as the servers' user.
func (s *Server) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C", "TZ=UTC")
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		cmd.Dir = s.dir
	}
	return cmd
}

// run runs a server binary to completion.
func (s *Server) run(tb testing.TB, name string, args ...string) {
	tb.Helper()
	if out, err := s.command(name, args...).CombinedOutput(); err != nil {
		tb.Fatalf("%s: %v\n%s", name, err, strings.TrimSpace(string(out)))
	}
}

// nobody is the uid and gid the servers run as under root.
const nobody = 65534

// serverDir makes a directory for one server, owned by the servers' user
// and removed when the test ends (after the server stopped: cleanups run
// last registered first).
func serverDir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.MkdirTemp("", "ctxls-pg-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	if os.Geteuid() == 0 {
		// /tmp's own mode lets nobody in; the directory is its.
		if err := os.Chown(dir, nobody, nobody); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// freePort returns a TCP port on the loopback that nothing listens on.
func freePort(tb testing.TB) int {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
