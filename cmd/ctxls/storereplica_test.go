package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/internal/pgstore"
	"github.com/ctxls/ctxls/internal/pgstore/pgtest"
)

// replicaStore is a PostgreSQL server with one store database whose
// repositories are published, for the tests of a replica's clients.
type replicaStore struct {
	srv *pgtest.Server
	db  string
	url string
	st  *pgstore.Store
}

// newReplicaStore starts PostgreSQL (with pg_stat_statements loaded, so
// that a test can count what a replica asks of it), creates database db
// and publishes repos into it.
func newReplicaStore(t *testing.T, db string, repos map[string]map[string]string) *replicaStore {
	t.Helper()
	srv := pgtest.Start(t)
	ctx := context.Background()
	c, err := pgx.Connect(ctx, srv.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'"); err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)
	srv.Stop()
	srv.Start()
	url := srv.NewDatabase(t, db)
	c, err = pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "CREATE EXTENSION pg_stat_statements"); err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)
	for _, repo := range slices.Sorted(func(yield func(string) bool) {
		for r := range repos {
			if !yield(r) {
				return
			}
		}
	}) {
		root := filepath.Join(t.TempDir(), "tree")
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		publishRepo(t, url, repo, root, repos[repo])
	}
	st, err := pgstore.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return &replicaStore{srv: srv, db: db, url: url, st: st}
}

// token makes a token named name granting repos.
func (s *replicaStore) token(t *testing.T, name string, repos ...string) string {
	t.Helper()
	tok, err := s.st.CreateToken(context.Background(), name, repos)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// statements counts the statements run in the store's database whose
// text contains like ("": every one), by pg_stat_statements (exact, and
// current: the cumulative statistics of pg_stat_database lag by seconds).
func (s *replicaStore) statements(t *testing.T, like string) int64 {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, s.url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var n int64
	if err := c.QueryRow(ctx, `SELECT coalesce(sum(calls), 0)::bigint FROM pg_stat_statements s
		JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1 AND strpos(s.query, $2) > 0`, s.db, like).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// storeProcess is a `ctxls serve --listen --store` or `ctxls mcp --http
// --store` process.
type storeProcess struct {
	cmd      *exec.Cmd
	addr     string // serve: host:port; mcp: the /mcp URL
	log      *syncBuffer
	cacheDir string
}

// startStoreProcess runs ctxls face (serve or mcp) on the store at url
// until the test ends.
func startStoreProcess(t *testing.T, face, url string) *storeProcess {
	t.Helper()
	p := &storeProcess{log: &syncBuffer{}, cacheDir: t.TempDir()}
	listening := regexp.MustCompile(`listening on (\S+)`)
	switch face {
	case "serve":
		p.cmd = ctxlsCmd("serve", "--listen", "127.0.0.1:0", "--store", url, "--cache-dir", p.cacheDir)
	case "mcp":
		p.cmd = ctxlsCmd("mcp", "--http", "127.0.0.1:0", "--store", url, "--cache-dir", p.cacheDir)
		listening = regexp.MustCompile(`listening on (http://\S+)`)
	}
	p.cmd.Stderr = p.log
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.stop)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := listening.FindStringSubmatch(p.log.String()); m != nil {
			p.addr = m[1]
			return p
		}
	}
	t.Fatalf("ctxls %s did not listen:\n%s", face, p.log.String())
	return nil
}

// stop kills the process.
func (p *storeProcess) stop() {
	p.cmd.Process.Kill() //nolint:errcheck // may be dead already
	p.cmd.Wait()         //nolint:errcheck // killed
}

// lsp connects a language-server client with token and the
// initialize params' other members (folders); it fails the test when
// initialize fails.
func (p *storeProcess) lsp(t *testing.T, token string, folders []map[string]string) *lspClient {
	t.Helper()
	c := dial(t, p.addr)
	c.conn.SetDeadline(time.Now().Add(5 * time.Minute))
	params := map[string]any{"processId": nil, "capabilities": map[string]any{}, "initializationOptions": map[string]any{"token": token}}
	if folders != nil {
		params["workspaceFolders"] = folders
	}
	if m := c.call("initialize", params); m.Error != nil {
		t.Fatalf("initialize: %s\n%s", m.Error.Message, p.log.String())
	}
	c.notify("initialized", map[string]any{})
	return c
}

// usage is what a replica process holds: resident memory, open file
// descriptors (and those in the directories of repository unions), the
// union directories in its cache directory.
type usage struct {
	rssKiB, fds, unionFDDirs, unionDirs int
}

func (p *storeProcess) usage(t *testing.T) usage {
	t.Helper()
	var u usage
	pid := strconv.Itoa(p.cmd.Process.Pid)
	status, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`VmRSS:\s+(\d+) kB`).FindSubmatch(status); m != nil {
		u.rssKiB, _ = strconv.Atoi(string(m[1]))
	}
	fds, err := os.ReadDir("/proc/" + pid + "/fd")
	if err != nil {
		t.Fatal(err)
	}
	u.fds = len(fds)
	dirs := map[string]bool{}
	for _, fd := range fds {
		target, err := os.Readlink("/proc/" + pid + "/fd/" + fd.Name())
		if err != nil {
			continue
		}
		if rel, ok := strings.CutPrefix(target, p.cacheDir+"/"); ok && strings.HasPrefix(rel, "u-") {
			dirs[strings.SplitN(rel, "/", 2)[0]] = true
		}
	}
	u.unionFDDirs = len(dirs)
	entries, err := os.ReadDir(p.cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "u-") {
			u.unionDirs++
		}
	}
	return u
}

// mcpClient connects an MCP client to a replica with token.
func (p *storeProcess) mcpClient(t *testing.T, token string) *sdk.ClientSession {
	t.Helper()
	return (&replica{url: p.addr, log: p.log}).client(t, token)
}

// A revoked token's open language-server connection is refused at its
// next request once the replica's 10 s memory of the token has passed,
// and the connection ends: the grant is checked per request, not once
// at initialize.
func TestServeStoreRevokedToken(t *testing.T) {
	t.Parallel() // its own servers and directories: beside the package's other long tests
	s := newReplicaStore(t, "revoke", map[string]map[string]string{"org/billing": storeRepos["org/billing"]})
	tok := s.token(t, "editor", "org/billing")
	p := startStoreProcess(t, "serve", s.url)
	c := p.lsp(t, tok, []map[string]string{{"uri": "file:///home/dev/billing", "name": "org/billing"}})
	if text := c.assemble(map[string]any{"query": "sales tax of an invoice", "budget": map[string]any{"maxTokens": 300}}); !strings.Contains(text, "func Invoice") {
		t.Fatalf("before the revocation: %s", text)
	}
	if err := s.st.RevokeToken(context.Background(), "editor"); err != nil {
		t.Fatal(err)
	}
	revoked := time.Now()
	for {
		m := c.call("context/assemble", map[string]any{"query": "sales tax of an invoice", "budget": map[string]any{"maxTokens": 300}})
		if m.Error != nil {
			if !strings.Contains(m.Error.Message, "revoked") || strings.Contains(string(m.Result), "Invoice") {
				t.Fatalf("after the revocation: %d %s", m.Error.Code, m.Error.Message)
			}
			break
		}
		if time.Since(revoked) > 15*time.Second {
			t.Fatalf("a revoked token still answered %v after the revocation: %.200s", time.Since(revoked).Round(time.Second), m.Result)
		}
		time.Sleep(250 * time.Millisecond)
	}
	// The connection ends after the refusal.
	c.conn.SetDeadline(time.Now().Add(10 * time.Second))
	for {
		if _, err := c.read(); err != nil {
			if strings.Contains(err.Error(), "timeout") {
				t.Fatalf("the connection of a revoked token stayed open: %v", err)
			}
			break
		}
	}
}

// unionRepos are n small repositories of files Go files each, each
// repository about one thing.
func unionRepos(n, files int) map[string]map[string]string {
	topics := []string{"invoice", "login", "rank", "cache", "queue", "parser", "router", "ledger", "mailer", "report", "search", "upload"}
	out := map[string]map[string]string{}
	for i := range n {
		topic := topics[i%len(topics)]
		title := strings.ToUpper(topic[:1]) + topic[1:]
		repo := map[string]string{}
		for j := range files {
			var b strings.Builder
			fmt.Fprintf(&b, "package r%02d\n\n", i)
			for k := range 8 {
				fmt.Fprintf(&b, "// %s%d_%d handles step %d of the %s in part %d of repository %d.\nfunc %s%d_%d(n int) int {\n\tif n > %d {\n\t\treturn n - %d\n\t}\n\treturn n + %d\n}\n\n",
					title, j, k, k, topic, j, i, title, j, k, k*j, i, k)
			}
			repo[fmt.Sprintf("%s%d.go", topic, j)] = b.String()
		}
		out[fmt.Sprintf("org/r%02d", i)] = repo
	}
	return out
}

// combinations lists every subset of names with two members or more.
func combinations(names []string) [][]string {
	var out [][]string
	for mask := 1; mask < 1<<len(names); mask++ {
		var set []string
		for i, n := range names {
			if mask&(1<<i) != 0 {
				set = append(set, n)
			}
		}
		if len(set) >= 2 {
			out = append(out, set)
		}
	}
	return out
}

// A token's requests cannot make a replica hold an index per combination
// of repositories for ever: a repos list is bounded (deduplicated; at
// most 32 entries and 32 repositories, the maximum named in the error),
// the unions a process keeps open are bounded (16), an evicted union is
// closed and its directory removed, and the replica polls the store with
// one statement whatever it holds. Over MCP and the language server, a
// token for 6 repositories asking every one of their 57 combinations
// leaves at most 16 unions open or on disk and the idle replica asking
// the store less than a statement a second.
//
// CTXLS_BENCH_UNION_REPOS=8 CTXLS_BENCH_UNION_FILES=40 asks the 247
// combinations of 8 repositories of 40 files and logs the replicas'
// memory, open files and statements per second (docs/benchmarks.md).
func TestStoreUnionsBounded(t *testing.T) {
	t.Parallel() // its own servers and directories: beside the package's other long tests
	n, files := 6, 2
	for _, v := range []struct {
		name     string
		dst      *int
		min, max int
	}{{"CTXLS_BENCH_UNION_REPOS", &n, 2, 12}, {"CTXLS_BENCH_UNION_FILES", &files, 1, 500}} {
		if s := os.Getenv(v.name); s != "" {
			var err error
			if *v.dst, err = strconv.Atoi(s); err != nil || *v.dst < v.min || *v.dst > v.max {
				t.Fatalf("%s=%q: want %d to %d", v.name, s, v.min, v.max)
			}
		}
	}
	repos := unionRepos(n, files)
	s := newReplicaStore(t, "unions", repos)
	names := slices.Sorted(func(yield func(string) bool) {
		for r := range repos {
			if !yield(r) {
				return
			}
		}
	})
	tok := s.token(t, "fleet", names...)
	combos := combinations(names)
	const maxUnions = 16

	// idleRate is the statements a second the replica runs, idle, over
	// window.
	idleRate := func(window time.Duration) float64 {
		time.Sleep(3 * time.Second) // the last requests' work done
		before := s.statements(t, "")
		time.Sleep(window)
		after := s.statements(t, "")
		return float64(after-before-1) / window.Seconds() // less the count's own statement
	}
	check := func(face string, p *storeProcess, before usage, rate float64) {
		t.Helper()
		after := p.usage(t)
		t.Logf("%s, %d repositories of %d files, %d combinations: RSS %d → %d KiB, open files %d → %d (in %d union directories), %d union directories on disk, idle: %.1f statements/s",
			face, n, files, len(combos), before.rssKiB, after.rssKiB, before.fds, after.fds, after.unionFDDirs, after.unionDirs, rate)
		if after.unionDirs > maxUnions || after.unionFDDirs > maxUnions {
			t.Errorf("%s: %d union directories on disk, %d with open files, want at most %d", face, after.unionDirs, after.unionFDDirs, maxUnions)
		}
		if rate > 1 {
			t.Errorf("%s: the idle replica runs %.1f statements a second, want at most 1", face, rate)
		}
	}

	// MCP.
	p := startStoreProcess(t, "mcp", s.url)
	cs := p.mcpClient(t, tok)
	// A repos list is bounded, and named repositories are counted once.
	stars := make([]string, 100000)
	for i := range stars {
		stars[i] = "*"
	}
	if text, isErr := call(t, cs, "assemble_context", map[string]any{"query": "invoice", "repos": stars}); !isErr || !strings.Contains(text, "at most 32") {
		t.Errorf("repos: 100 000 times \"*\": error %v %.300s, want an error naming the maximum", isErr, text)
	}
	if text, isErr := call(t, cs, "assemble_context", map[string]any{"query": "invoice", "repos": []string{names[0], names[0], names[1], "*", "*"}, "budget": map[string]any{"maxTokens": 200}}); isErr {
		t.Errorf("repos with duplicates: %s", text)
	}
	before := p.usage(t)
	for _, set := range combos {
		if text, isErr := call(t, cs, "assemble_context", map[string]any{"query": "the invoice and the login", "repos": set, "budget": map[string]any{"maxTokens": 200}}); isErr {
			t.Fatalf("repos %v: %s\n%s", set, text, p.log.String())
		}
	}
	check("mcp --http --store", p, before, idleRate(10*time.Second))
	// The replica still answers every combination (a union evicted is
	// opened again).
	if text, isErr := call(t, cs, "assemble_context", map[string]any{"query": "the invoice and the login", "repos": combos[0], "budget": map[string]any{"maxTokens": 200}}); isErr {
		t.Errorf("a union evicted, asked again: %s", text)
	}

	// The language server: one session asking every combination (the
	// MCP replica stopped: its poll would count).
	p.stop()
	p = startStoreProcess(t, "serve", s.url)
	c := p.lsp(t, tok, nil)
	if m := c.call("context/assemble", map[string]any{"query": "invoice", "repos": stars}); m.Error == nil || !strings.Contains(m.Error.Message, "at most 32") {
		t.Errorf("LSP repos: 100 000 times \"*\": %+v, want an error naming the maximum", m.Error)
	}
	before = p.usage(t)
	for _, set := range combos {
		if m := c.call("context/assemble", map[string]any{"query": "the invoice and the login", "repos": set, "budget": map[string]any{"maxTokens": 200}}); m.Error != nil {
			t.Fatalf("LSP repos %v: %s\n%s", set, m.Error.Message, p.log.String())
		}
	}
	check("serve --listen --store", p, before, idleRate(10*time.Second))
}

// While the store is down a client without a valid token learns only
// that the store is unavailable — not its address or user — and token
// refusals are cheap: a malformed token costs no statement, one the store
// refused is remembered for 10 s, and the log says a refusal a second at
// most (with a count of those it left out), on both faces.
func TestStoreTokenRefusals(t *testing.T) {
	s := newReplicaStore(t, "refusals", map[string]map[string]string{"org/auth": storeRepos["org/auth"]})
	tok := s.token(t, "assistant", "org/auth")
	p := startStoreProcess(t, "mcp", s.url)
	if text, isErr := call(t, p.mcpClient(t, tok), "assemble_context", map[string]any{"query": "login password"}); isErr || !strings.Contains(text, "func Login") {
		t.Fatalf("with the token: %s", text)
	}
	post := func(token string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", p.addr, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return resp.StatusCode, b.String()
	}
	wellFormed := func(i int) string { return fmt.Sprintf("ctxls_%043d", i) }

	// The store up: 200 malformed and 200 repeated unknown tokens.
	queries := s.statements(t, "ctxls_tokens")
	logLines := strings.Count(p.log.String(), "refused")
	start := time.Now()
	for i := range 200 {
		for _, forged := range []string{"ctxls_forged", wellFormed(1)} {
			if code, body := post(forged); code != http.StatusForbidden || !strings.Contains(body, "unknown or revoked token") {
				t.Fatalf("forged token %d: %d %q", i, code, body)
			}
		}
	}
	took := time.Since(start)
	if n := s.statements(t, "ctxls_tokens") - queries; n > 2 {
		t.Errorf("400 forged tokens (one well-formed, repeated) ran %d statements on the tokens, want at most 2", n)
	}
	if n := strings.Count(p.log.String(), "refused") - logLines; n > int(took.Seconds())+3 {
		t.Errorf("400 refusals in %v wrote %d log lines, want about one a second", took.Round(time.Millisecond), n)
	}

	// The store down: an unknown token is told "unavailable", nothing
	// about the database; a known one keeps its grant.
	serve := startStoreProcess(t, "serve", s.url)
	s.srv.Stop()
	port := strconv.Itoa(s.srv.Port)
	leaks := func(msg string) bool {
		return strings.Contains(msg, port) || strings.Contains(msg, "127.0.0.1") || strings.Contains(msg, "user=") ||
			strings.Contains(msg, "ctxls@") || strings.Contains(msg, "database") || strings.Contains(msg, s.db)
	}
	for i := range 3 {
		code, body := post(wellFormed(100 + i))
		if code != http.StatusForbidden || !strings.Contains(body, "unavailable") || leaks(body) {
			t.Errorf("mcp, the store down, an unknown token: %d %q, want 403 saying only that the store is unavailable", code, body)
		}
	}
	c := dial(t, serve.addr)
	m := c.call("initialize", map[string]any{"processId": nil, "capabilities": map[string]any{}, "initializationOptions": map[string]any{"token": wellFormed(200)}})
	if m.Error == nil || !strings.Contains(m.Error.Message, "unavailable") || leaks(m.Error.Message) {
		t.Errorf("serve, the store down, an unknown token: %+v, want an error saying only that the store is unavailable", m.Error)
	}
	if text, isErr := call(t, p.mcpClient(t, tok), "assemble_context", map[string]any{"query": "login password"}); isErr || !strings.Contains(text, "func Login") {
		t.Errorf("a known token, the store down: %s", text)
	}
}

// mcp --http takes the 16 MiB diff the docs promise (the body limit of
// the MCP SDK's handler, 4 MiB, refused it before).
func TestMCPStoreLargeDiff(t *testing.T) {
	t.Parallel() // its own servers and directories: beside the package's other long tests
	s := newReplicaStore(t, "diff", map[string]map[string]string{"org/billing": storeRepos["org/billing"]})
	tok := s.token(t, "reviewer", "org/billing")
	p := startStoreProcess(t, "mcp", s.url)
	var diff strings.Builder
	diff.WriteString("diff --git a/invoice.go b/invoice.go\n--- a/invoice.go\n+++ b/invoice.go\n@@ -1,3 +1,200003 @@\n package billing\n \n")
	for i := 0; diff.Len() < 12<<20; i++ {
		fmt.Fprintf(&diff, "+// line %d of a large generated table of tax rates for invoices: %d\n", i, i*7)
	}
	res, err := p.mcpClient(t, tok).CallTool(context.Background(), &sdk.CallToolParams{Name: "assemble_context",
		Arguments: map[string]any{"query": "sales tax of an invoice", "diff": diff.String(), "budget": map[string]any{"maxTokens": 500}}})
	if err != nil {
		t.Fatalf("a 12 MiB diff: %v", err)
	}
	if text := toolText(res); res.IsError && strings.Contains(text, "too large") {
		t.Fatalf("a 12 MiB diff refused: %.300s", text)
	}
}

// A focus may name a file of a store's repository by its ctxls-store:
// URI (docs/protocol.md), whichever folder or repos the request reads;
// the parts of a union are ctxls-store:REPO/PATH.
func TestServeStoreFocusURI(t *testing.T) {
	s := newReplicaStore(t, "focus", storeRepos)
	tok := s.token(t, "editor", "org/billing", "org/auth")
	p := startStoreProcess(t, "serve", s.url)
	c := p.lsp(t, tok, []map[string]string{{"uri": "file:///home/dev/billing", "name": "org/billing"}})
	focus := func(uri string, line int) map[string]any {
		return map[string]any{"uri": uri, "position": map[string]any{"line": line, "character": 5}}
	}
	parts := func(m lspMsg) []string {
		var r struct {
			Parts []struct {
				URI string `json:"uri"`
			} `json:"parts"`
		}
		json.Unmarshal(m.Result, &r)
		var out []string
		for _, p := range r.Parts {
			out = append(out, p.URI)
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		params map[string]any
		want   string // a part's URI
	}{
		{"the folder's repository, no repo", map[string]any{"query": "tax", "focus": focus("ctxls-store:org/billing/invoice.go", 3)}, "file:///home/dev/billing/invoice.go"},
		{"repo", map[string]any{"query": "tax", "repo": "org/billing", "focus": focus("ctxls-store:org/billing/invoice.go", 3)}, "file:///home/dev/billing/invoice.go"},
		{"another repository, no repo", map[string]any{"query": "password", "focus": focus("ctxls-store:org/auth/login.go", 3)}, "ctxls-store:org/auth/login.go"},
		{"repos", map[string]any{"query": "password", "repos": []string{"org/billing", "org/auth"}, "focus": focus("ctxls-store:org/auth/login.go", 3)}, "ctxls-store:org/auth/login.go"},
	} {
		m := c.call("context/assemble", tc.params)
		if m.Error != nil {
			t.Errorf("%s: %s", tc.name, m.Error.Message)
			continue
		}
		if got := parts(m); !slices.Contains(got, tc.want) {
			t.Errorf("%s: parts %v, want %s among them", tc.name, got, tc.want)
		}
	}
	// A repository the token does not grant stays one that does not exist.
	m := c.call("context/assemble", map[string]any{"query": "rank", "focus": focus("ctxls-store:team/search/rank.py", 0)})
	if m.Error == nil || m.field() != "focus.uri" || strings.Contains(string(m.Result), "def rank") {
		t.Errorf("a focus in a repository the token does not grant: %+v %.200s", m.Error, m.Result)
	}
}

// A workspace folder naming a repository the token does not grant is
// not opened, and a request that finds no folder says why.
func TestServeStoreFolderNotGranted(t *testing.T) {
	s := newReplicaStore(t, "folders", storeRepos)
	tok := s.token(t, "editor", "org/billing")
	p := startStoreProcess(t, "serve", s.url)
	c := p.lsp(t, tok, []map[string]string{{"uri": "file:///home/dev/auth", "name": "org/auth"}})
	m := c.call("context/assemble", map[string]any{"query": "password"})
	if m.Error == nil || !strings.Contains(m.Error.Message, "org/auth") || !strings.Contains(m.Error.Message, "no such repository") || strings.Contains(string(m.Result), "func Login") {
		t.Errorf("a folder the token does not grant: %+v, want an error naming the folder and why", m.Error)
	}
}
