package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readDeploy returns the text of a file of deploy/ (or docs/).
func readDeploy(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", path))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDeployReplicasOnLoopback: the systemd units of the deployment
// example run the replicas on loopback (the balancer beside them faces
// the network), never on 0.0.0.0 with --allow-remote, and give the
// store's connection string in a file, never on the command line; the
// nginx example balances over loopback replicas; the runnable example
// puts no connection string on a command line either.
func TestDeployReplicasOnLoopback(t *testing.T) {
	units, err := filepath.Glob("../../deploy/systemd/*.service")
	if err != nil || len(units) < 2 {
		t.Fatalf("the units: %v %v", units, err)
	}
	exec := regexp.MustCompile(`(?m)^ExecStart=.*/ctxls (.*)$`)
	for _, u := range units {
		text := readDeploy(t, filepath.Join("deploy", "systemd", filepath.Base(u)))
		m := exec.FindStringSubmatch(text)
		if m == nil {
			t.Errorf("%s: no ExecStart running ctxls", u)
			continue
		}
		args := m[1]
		for _, bad := range []string{"0.0.0.0", "[::]", "--allow-remote", "--store ", "--store=", "postgres://", "CTXLS_STORE}"} {
			if strings.Contains(args, bad) {
				t.Errorf("%s: ExecStart holds %q: %s", u, bad, args)
			}
		}
		if !strings.Contains(args, "--store-file /etc/ctxls/") {
			t.Errorf("%s: the store is not given in a file: %s", u, args)
		}
		if strings.HasPrefix(args, "mcp ") && !strings.Contains(args, "--http 127.0.0.1:") {
			t.Errorf("%s: the replica does not listen on loopback: %s", u, args)
		}
	}
	nginx := readDeploy(t, "deploy/nginx.conf")
	servers := regexp.MustCompile(`(?m)^\s*server\s+([^;\s]+);`).FindAllStringSubmatch(nginx, -1)
	if len(servers) == 0 {
		t.Fatal("nginx.conf: no upstream server")
	}
	for _, s := range servers {
		if !strings.HasPrefix(s[1], "127.0.0.1:") {
			t.Errorf("nginx.conf: upstream %s is not on loopback", s[1])
		}
	}
	example := readDeploy(t, "deploy/example.sh")
	if regexp.MustCompile(`--store\s+"`).MatchString(example) || strings.Contains(example, "--allow-remote") {
		t.Error("deploy/example.sh gives the store on a command line, or listens beyond loopback")
	}
}

// TestDeployDSNsUseTLS: every connection string the deployment's docs and
// files show for a store on another machine checks the server's
// certificate (sslmode=verify-full); only loopback goes without TLS.
func TestDeployDSNsUseTLS(t *testing.T) {
	files := []string{"docs/deploy.md", "docs/review-bots.md", "README.md", "deploy/nginx.conf", "deploy/example.sh"}
	units, _ := filepath.Glob("../../deploy/systemd/*")
	for _, u := range units {
		files = append(files, filepath.Join("deploy", "systemd", filepath.Base(u)))
	}
	dsn := regexp.MustCompile("postgres(?:ql)?://[^\\s`'\")]+")
	checked := 0
	for _, f := range files {
		for _, u := range dsn.FindAllString(readDeploy(t, f), -1) {
			rest := strings.SplitN(u, "://", 2)[1]
			if strings.HasPrefix(rest, "…") {
				continue // a placeholder
			}
			if i := strings.IndexAny(rest, "@/"); i >= 0 && rest[i] == '@' {
				rest = rest[i+1:]
			}
			hosts := rest
			if i := strings.IndexAny(hosts, "/?"); i >= 0 {
				hosts = hosts[:i]
			}
			remote := false
			for _, h := range strings.Split(hosts, ",") {
				if strings.HasPrefix(h, "[") {
					h = h[:strings.IndexByte(h, ']')+1]
				} else {
					h = strings.Split(h, ":")[0]
				}
				if h != "127.0.0.1" && h != "localhost" && h != "[::1]" {
					remote = true
				}
			}
			checked++
			if remote && !strings.Contains(u, "sslmode=verify-full") {
				t.Errorf("%s: %s reaches another machine without sslmode=verify-full", f, u)
			}
		}
	}
	if checked < 3 {
		t.Errorf("only %d connection strings found in %v", checked, files)
	}
}
