package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/internal/pgstore"
)

// assembled is what the tests below read of an assemble_context answer.
type assembled struct {
	text    string
	isErr   bool
	paths   []string
	stats   map[string]any
	display string
}

// assembleCall calls assemble_context with args and decodes its answer.
func assembleCall(t *testing.T, cs *sdk.ClientSession, args map[string]any) assembled {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "assemble_context", Arguments: args})
	if err != nil {
		t.Fatalf("assemble_context: %v", err)
	}
	var a assembled
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			a.text += tc.Text
		}
	}
	a.isErr = res.IsError
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		var out struct {
			Root  string           `json:"root"`
			Parts []map[string]any `json:"parts"`
			Stats map[string]any   `json:"stats"`
		}
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		a.display, a.stats = out.Root, out.Stats
		for _, p := range out.Parts {
			s, _ := p["path"].(string)
			a.paths = append(a.paths, s)
		}
	}
	return a
}

// complete reports whether the answer says its index was complete.
func (a assembled) complete() bool { return a.stats["indexComplete"] == true }

// With the store stopped, a replica's answers are right and complete or
// say what they could not read: a repository it has open answers (from
// its generation), complete; one it never opened is the store's failure,
// named as such (the store, host, port and database; never the URL, user
// or password), not a refusal of the token; repos ["*"], or no repository
// named with a token for several, is that error too, never an answer from
// the one repository the replica had open marked complete. Once the
// store is back, everything answers again.
func TestMCPStoreDownAnswers(t *testing.T) {
	t.Parallel() // its own servers and directories: beside the package's other long tests
	s := newReplicaStore(t, "down", storeRepos)
	tok := s.token(t, "assistant", pgstore.AllRepos)
	p := startStoreProcess(t, "mcp", s.url)
	cs := p.mcpClient(t, tok)
	if a := assembleCall(t, cs, map[string]any{"query": "sales tax of an invoice", "repo": "org/billing"}); a.isErr || !strings.Contains(a.text, "func Invoice") {
		t.Fatalf("org/billing with the store up: %s", a.text)
	}
	bill := p.mcpClient(t, s.token(t, "billing", "org/billing"))
	if a := assembleCall(t, bill, map[string]any{"query": "refund", "repo": "org/billing"}); a.isErr {
		t.Fatalf("the billing token with the store up: %s", a.text)
	}
	s.srv.Shutdown()

	// The repository open here answers, complete.
	if a := assembleCall(t, cs, map[string]any{"query": "refund a cancelled invoice", "repo": "org/billing"}); a.isErr || !strings.Contains(a.text, "func Refund") || !a.complete() {
		t.Fatalf("the open repository with the store down: %v %v %s", a.isErr, a.stats, a.text)
	}
	storeDown := func(what string, a assembled) {
		t.Helper()
		if !a.isErr || strings.Contains(a.text, "func ") {
			t.Fatalf("%s with the store down answered: %v %s", what, a.stats, a.text)
		}
		want := "the index store 127.0.0.1:" + itoa(s.srv.Port) + "/down cannot be read now (try again shortly)"
		if !strings.Contains(a.text, want) || strings.Contains(a.text, "not a repository this token may read") ||
			strings.Contains(a.text, "postgres://") || strings.Contains(a.text, "user=") {
			t.Fatalf("%s with the store down: %q; want %q, no refusal, no URL or user", what, a.text, want)
		}
	}
	storeDown("a repository never opened", assembleCall(t, cs, map[string]any{"query": "login password", "repo": "org/auth"}))
	storeDown(`repos ["*"]`, assembleCall(t, cs, map[string]any{"query": "how does login check the password", "repos": []string{"*"}}))
	storeDown("no repository named", assembleCall(t, cs, map[string]any{"query": "how does login check the password"}))
	storeDown("a union with a repository never opened", assembleCall(t, cs, map[string]any{"query": "login and invoice", "repos": []string{"org/billing", "org/auth"}}))
	// A repository the token does not grant is still refused as such.
	if a := assembleCall(t, bill, map[string]any{"query": "login", "repo": "org/auth"}); !a.isErr || !strings.Contains(a.text, "not a repository this token may read") {
		t.Fatalf("an ungranted repository with the store down: %s", a.text)
	}

	s.srv.Start()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		a := assembleCall(t, cs, map[string]any{"query": "how does login check the password", "repos": []string{"*"}})
		if !a.isErr && strings.Contains(a.text, "func Login") && a.complete() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf(`repos ["*"] after the store came back: %s`, a.text)
		}
	}
}

// A union of repositories built while the store is down, its
// repositories checked out and indexed here before, is built from their
// own indexes: it needs nothing of the store, and its answers hold every
// repository's files and say they are complete. Before, each of its files
// asked the store for its chunks, and every one was left out until the
// store answered again.
func TestMCPStoreUnionBuiltStoreDown(t *testing.T) {
	t.Parallel() // its own servers and directories: beside the package's other long tests
	s := newReplicaStore(t, "union", storeRepos)
	tok := s.token(t, "assistant", pgstore.AllRepos)
	p := startStoreProcess(t, "mcp", s.url)
	cs := p.mcpClient(t, tok)
	for _, repo := range []string{"org/billing", "org/auth"} {
		if a := assembleCall(t, cs, map[string]any{"query": "invoice login", "repo": repo, "wait_seconds": 60}); a.isErr || !a.complete() {
			t.Fatalf("%s with the store up: %s", repo, a.text)
		}
	}
	s.srv.Shutdown()
	union := map[string]any{"query": "how does login check the password and the invoice add the sales tax", "repos": []string{"org/billing", "org/auth"}, "wait_seconds": 60}
	a := assembleCall(t, cs, union)
	if a.isErr || !a.complete() || strings.Contains(a.text, "incomplete: ") || !strings.Contains(a.text, "func Login") || !strings.Contains(a.text, "func Invoice") {
		t.Fatalf("a union built with the store down: %v %s\n%s", a.stats, a.text, p.log.String())
	}
	if strings.Contains(p.log.String(), "could not give") {
		t.Fatalf("the union asked the store for its files:\n%s", p.log.String())
	}
}

// `ctxls index --store` whose session the server ends while it makes its
// generation current (pg_terminate_backend, from a trigger) tries again,
// says so on stderr, and publishes.
func TestStorePublishRetries(t *testing.T) {
	t.Parallel() // its own servers and directories: beside the package's other long tests
	s := newReplicaStore(t, "publish", map[string]map[string]string{"org/auth": storeRepos["org/auth"]})
	ctx := context.Background()
	c, err := pgx.Connect(ctx, s.url)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE SEQUENCE kill_gen",
		`CREATE FUNCTION kill_once() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF nextval('kill_gen') = 1 THEN
				PERFORM pg_terminate_backend(pg_backend_pid());
				PERFORM pg_sleep(5);
			END IF;
			RETURN NULL;
		END $$`,
		"CREATE TRIGGER kill_gen BEFORE INSERT ON ctxls_generations FOR EACH STATEMENT EXECUTE FUNCTION kill_once()",
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	c.Close(ctx)
	root := filepath.Join(t.TempDir(), "tree")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "logout.go"), []byte("package auth\n\n// Logout ends a session.\nfunc Logout(s string) {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := ctxlsCmd("index", "--root", root, "--cache-dir", t.TempDir(), "--store", s.url, "--repo", "org/auth").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "make the generation current: terminating connection due to administrator command; trying again in 250ms (attempt 2)") ||
		!strings.Contains(string(out), "publish: org/auth") {
		t.Fatalf("publish with its session ended: %v\n%s", err, out)
	}
	infos, err := s.st.Repos(ctx, nil)
	if err != nil || len(infos) != 1 || infos[0].Generation != 2 {
		t.Fatalf("after the retried publish: %+v %v", infos, err)
	}
}
