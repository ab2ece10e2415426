package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/pgstore"
)

// unionAnswer is what a union's answer is compared by: the context as
// rendered and the index state it names (content and vectors).
type unionAnswer struct{ rendered, state, note string }

// mcpUnionAnswer asks a replica for the context of args until two answers
// in a row are the same and its content state satisfies ok (a replica
// follows a new generation within seconds; its first answers may come
// from before).
func mcpUnionAnswer(t *testing.T, p *storeProcess, token string, args map[string]any, ok func(content string) bool) unionAnswer {
	t.Helper()
	cs := p.mcpClient(t, token)
	var last unionAnswer
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		a := assembleCall(t, cs, args)
		if a.isErr {
			t.Fatalf("union: %s\n%s", a.text, p.log.String())
		}
		state, _ := a.stats["indexState"].(string)
		note, _ := a.stats["note"].(string)
		cur := unionAnswer{a.text, state, note}
		if cur == last && ok(index.ContentState(state)) && a.complete() {
			return cur
		}
		last = cur
		if time.Now().After(deadline) {
			t.Fatalf("the replica's answers do not settle: %q\n%s", state, p.log.String())
		}
	}
}

// cliUnionAnswer is `ctxls assemble --store … --repo … --json` for the
// same request, in a cache directory of its own.
func cliUnionAnswer(t *testing.T, url, query string, budget int, repos ...string) unionAnswer {
	t.Helper()
	args := []string{"assemble", "--store", url, "--cache-dir", t.TempDir(), "--query", query, "--budget", itoa(budget), "--json"}
	for _, r := range repos {
		args = append(args, "--repo", r)
	}
	cmd := ctxlsCmd(args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ctxls assemble: %v\n%s", err, stderr.String())
	}
	var res struct {
		Rendered string `json:"rendered"`
		Stats    struct {
			IndexState string `json:"indexState"`
			Note       string `json:"note"`
		} `json:"stats"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("ctxls assemble: %v\n%s", err, out)
	}
	return unionAnswer{res.Rendered, res.Stats.IndexState, res.Stats.Note}
}

// unionHistoryNote is what the answer of a union says of history.
const unionHistoryNote = "history: a union of repositories reads no git history"

// Two replicas and the CLI answer a request across repositories with the
// same bytes, and name the same index state (content and vectors), before
// and after one of the repositories publishes a new generation: a union's
// vectors are each repository's own, computed from its content alone,
// whatever the replica saw before. The answers say that a union reads no
// git history.
func TestStoreUnionReplicasAgree(t *testing.T) {
	t.Parallel() // its own servers and directories: beside the package's other long tests
	repos := unionRepos(2, 12)
	s := newReplicaStore(t, "agree", repos)
	tok := s.token(t, "assistant", pgstore.AllRepos)
	a, b := startStoreProcess(t, "mcp", s.url), startStoreProcess(t, "mcp", s.url)
	const query = "which step of the invoice handles the login of a part"
	const budget = 600
	args := map[string]any{"query": query, "repos": []string{"org/r00", "org/r01"}, "budget": map[string]any{"maxTokens": budget}, "wait_seconds": 60}
	always := func(string) bool { return true }

	check := func(when string, ok func(string) bool) string {
		t.Helper()
		ra, rb := mcpUnionAnswer(t, a, tok, args, ok), mcpUnionAnswer(t, b, tok, args, ok)
		cli := cliUnionAnswer(t, s.url, query, budget, "org/r00", "org/r01")
		if !strings.Contains(ra.state, index.ModelSep) {
			t.Fatalf("%s: the union's answer names no vectors: %q", when, ra.state)
		}
		// A union reads no history, and says so.
		for _, note := range []string{ra.note, rb.note, cli.note} {
			if !strings.Contains(note, unionHistoryNote) {
				t.Fatalf("%s: the note %q does not say that a union reads no history", when, note)
			}
		}
		if ra.state != rb.state || ra.state != cli.state {
			t.Fatalf("%s: index states differ: replica %q, replica %q, CLI %q", when, ra.state, rb.state, cli.state)
		}
		if !strings.HasPrefix(ra.rendered, cli.rendered) || ra.rendered != rb.rendered {
			t.Fatalf("%s: the contexts differ:\nreplica:\n%s\nreplica:\n%s\nCLI:\n%s", when, ra.rendered, rb.rendered, cli.rendered)
		}
		return index.ContentState(ra.state)
	}
	before := check("before", always)

	// A new generation of org/r00: one file of twelve rewritten in words
	// the union knows already (org/r01's).
	next := maps.Clone(repos["org/r00"])
	next["invoice3.go"] = strings.ReplaceAll(repos["org/r01"]["login5.go"], "package r01", "package r00")
	root := filepath.Join(t.TempDir(), "tree")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	publishRepo(t, s.url, "org/r00", root, next)
	check("after a new generation", func(content string) bool { return content != before })
}
