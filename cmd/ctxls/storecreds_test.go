package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/pgstore/pgtest"
)

// storeProc is a ctxls server of a store started with an environment of
// its own, its stderr collected.
type storeProc struct {
	cmd *exec.Cmd
	log *syncBuffer
}

// startStoreServer starts ctxls with args and env (added to the test
// process's, with no $CTXLS_STORE or PostgreSQL settings of its own) and
// waits until it listens.
func startStoreServer(t *testing.T, env []string, args ...string) *storeProc {
	t.Helper()
	p := &storeProc{log: &syncBuffer{}}
	p.cmd = ctxlsCmd(args...)
	p.cmd.Env = append(p.cmd.Env, "CTXLS_STORE=", "CTXLS_STORE_FILE=", "PGPASSWORD=", "PGPASSFILE=", "HOME="+t.TempDir())
	p.cmd.Env = append(p.cmd.Env, env...)
	p.cmd.Stderr = p.log
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.cmd.Process.Kill() //nolint:errcheck // may be dead already
		p.cmd.Wait()         //nolint:errcheck // killed
	})
	listening := regexp.MustCompile(`listening on (\S+)`)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if listening.MatchString(p.log.String()) {
			return p
		}
		if p.cmd.ProcessState != nil {
			break
		}
	}
	t.Fatalf("%v did not listen:\n%s", args, p.log.String())
	return nil
}

// cmdline is the command line /proc shows every user for the process.
func (p *storeProc) cmdline(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(p.cmd.Process.Pid) + "/cmdline")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	return strings.ReplaceAll(string(b), "\x00", " ")
}

// TestStoreCredentials: a server of a store takes the store's password
// from a file (--store-file, 0600) or from PostgreSQL's password file
// ($PGPASSFILE) and connects with it: the password is then neither on
// its command line (/proc/PID/cmdline, which every user reads) nor on
// its stderr, and the replica answers a store token. A password given on
// the command line draws a warning; a store file others may read is
// refused (exit 2); a wrong password, in a URL or a keyword/value string,
// fails (exit 1) without any message saying it.
func TestStoreCredentials(t *testing.T) {
	t.Parallel() // its own servers and directories: beside the package's other long tests
	srv := pgtest.Start(t)
	srv.NewDatabase(t, "creds")
	const password = "e2e-Secret_pw-9f3"
	url := srv.PasswordRole(t, "app", password, "creds")
	withPW := strings.Replace(url, "app@", "app:"+password+"@", 1)
	dir := t.TempDir()
	write := func(name, content string, perm os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), perm); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, perm); err != nil {
			t.Fatal(err)
		}
		return p
	}
	storeFile := write("store", withPW+"\n", 0o600)
	pgpass := write("pgpass", fmt.Sprintf("127.0.0.1:%d:creds:app:%s\n", srv.Port, password), 0o600)

	// Publish and make a token with the connection string in the
	// environment.
	tree := t.TempDir()
	if err := os.WriteFile(filepath.Join(tree, "invoice.go"), []byte(storeRepos["org/billing"]["invoice.go"]), 0o644); err != nil {
		t.Fatal(err)
	}
	cli := func(args ...string) string {
		t.Helper()
		cmd := ctxlsCmd(args...)
		cmd.Env = append(cmd.Env, "CTXLS_STORE_FILE=", "CTXLS_STORE="+withPW, "HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil || strings.Contains(string(out), password) {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	cli("index", "--root", tree, "--cache-dir", t.TempDir(), "--repo", "org/billing")
	tok := strings.TrimSpace(cli("store", "token", "--name", "bot", "--repos", "org/billing"))

	for _, c := range []struct {
		name string
		env  []string
		args []string
	}{
		{"mcp --store-file", nil, []string{"mcp", "--http", "127.0.0.1:0", "--store-file", storeFile}},
		{"mcp --store, $PGPASSFILE", []string{"PGPASSFILE=" + pgpass}, []string{"mcp", "--http", "127.0.0.1:0", "--store", url}},
		{"serve --store-file", nil, []string{"serve", "--listen", "127.0.0.1:0", "--store-file", storeFile}},
	} {
		p := startStoreServer(t, c.env, append(c.args, "--cache-dir", t.TempDir())...)
		if cl := p.cmdline(t); strings.Contains(cl, password) || !strings.Contains(cl, "127.0.0.1:0") {
			t.Errorf("%s: the command line shows the password: %s", c.name, cl)
		}
		if c.args[0] == "mcp" {
			r := &replica{cmd: p.cmd, log: p.log, url: regexp.MustCompile(`listening on (http://\S+)`).FindStringSubmatch(p.log.String())[1]}
			if text, isErr := call(t, r.client(t, tok), "list_repos", nil); isErr || !strings.Contains(text, "org/billing") {
				t.Errorf("%s: list_repos: %s\n%s", c.name, text, p.log.String())
			}
		}
		if strings.Contains(p.log.String(), password) || strings.Contains(p.log.String(), "warning") {
			t.Errorf("%s: stderr:\n%s", c.name, p.log.String())
		}
		p.cmd.Process.Kill() //nolint:errcheck // done with it
	}

	// The password on the command line: it works, with a warning.
	p := startStoreServer(t, nil, "mcp", "--http", "127.0.0.1:0", "--store", withPW, "--cache-dir", t.TempDir())
	if log := p.log.String(); !strings.Contains(log, "warning: --store holds a password") || strings.Contains(log, password) {
		t.Errorf("--store with a password:\n%s", log)
	}

	// Refusals.
	loose := write("loose", withPW, 0o644)
	wrong := "wrong-" + password
	wrongURL := write("wrong-url", strings.Replace(url, "app@", "app:"+wrong+"@", 1), 0o600)
	wrongQuery := write("wrong-query", url+"&password="+wrong, 0o600)
	wrongKV := write("wrong-kv", fmt.Sprintf("host=127.0.0.1 port=%d dbname=creds user=app sslmode=disable password='%s'", srv.Port, wrong), 0o600)
	badKV := write("bad-kv", fmt.Sprintf(`host=127.0.0.1 port=notaport password=%s\ tail`, wrong), 0o600)
	for _, c := range []struct {
		file string
		code int
		want string
	}{
		{loose, 2, "chmod 600"},
		{wrongURL, 1, "password authentication failed"},
		{wrongQuery, 1, "password authentication failed"},
		{wrongKV, 1, "password authentication failed"},
		{badKV, 2, "invalid port"},
	} {
		for _, face := range [][]string{{"mcp", "--http", "127.0.0.1:0"}, {"serve", "--listen", "127.0.0.1:0"}} {
			cmd := ctxlsCmd(append(face, "--store-file", c.file, "--cache-dir", t.TempDir())...)
			cmd.Env = append(cmd.Env, "HOME="+t.TempDir(), "PGPASSFILE=", "PGPASSWORD=")
			out, _ := cmd.CombinedOutput()
			code := cmd.ProcessState.ExitCode()
			if code != c.code || !strings.Contains(string(out), c.want) || strings.Contains(string(out), password) || strings.Contains(string(out), "tail") {
				t.Errorf("%s --store-file %s: exit %d, want %d and %q:\n%s", face[0], filepath.Base(c.file), code, c.code, c.want, out)
			}
		}
	}
}
