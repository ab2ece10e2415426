package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/ctxls/ctxls/internal/pgstore/pgtest"
)

// Three near-identical repositories (forks: the same ledger code, one with
// a longer file comment so its copy sits at other lines, each with a file of
// its own) asked as one union (--repo '*'): each unit they share is shown
// once, its part naming the other repositories' copies in its header and in
// alsoIn, and every repository's own file is still there.
func TestStoreUnionSharedContentOnce(t *testing.T) {
	t.Parallel()
	srv := pgtest.Start(t)
	url := srv.NewDatabase(t, "dedup")
	shared := `// ReconcileLedger matches the ledger's entries against the bank statement.
func ReconcileLedger(entries []Entry, statement []Line) []Mismatch {
	var out []Mismatch
	for i, e := range entries {
		if i >= len(statement) || statement[i].Amount != e.Amount {
			out = append(out, Mismatch{Entry: e})
		}
	}
	return out
}

// SettleLedger closes the ledger's period once it reconciles.
func SettleLedger(entries []Entry) error {
	if len(entries) == 0 {
		return nil
	}
	return closePeriod(entries[len(entries)-1])
}
`
	for i, repo := range []string{"org/a", "org/b", "org/c"} {
		head := "package ledger\n\n"
		if i == 1 {
			head = "// Package ledger keeps the books of this fork.\n//\n// It is a copy of the upstream ledger.\npackage ledger\n\n"
		}
		own := "package ledger\n\n// Own" + strings.ToUpper(repo[4:]) + " is this repository's own ledger rule.\nfunc Own" + strings.ToUpper(repo[4:]) + "() string { return \"" + repo + " reconcile ledger\" }\n"
		root := filepath.Join(t.TempDir(), "tree")
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		publishRepo(t, url, repo, root, map[string]string{"ledger.go": head + shared, "own.go": own})
	}
	run := func() (string, []byte) {
		cmd := ctxlsCmd("assemble", "--store", url, "--cache-dir", t.TempDir(), "--repo", "*",
			"--query", "reconcile the ledger and settle it", "--budget", "4000", "--json", "--embeddings", "off", "--git-history=false")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("ctxls assemble: %v\n%s", err, stderr.String())
		}
		return stderr.String(), out
	}
	_, out := run()
	var res struct {
		Rendered string `json:"rendered"`
		Parts    []struct {
			Path   string   `json:"path"`
			Symbol string   `json:"symbol"`
			AlsoIn []string `json:"alsoIn"`
		} `json:"parts"`
		Omitted []struct {
			Handle string `json:"handle"`
			Reason string `json:"reason"`
		} `json:"omitted"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("ctxls assemble: %v\n%s", err, out)
	}
	// The result, alsoIn included, is what docs/result.schema.json says.
	sch, err := jsonschema.NewCompiler().Compile("../../docs/result.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("the result does not match docs/result.schema.json: %v", err)
	}
	for _, line := range []string{"func ReconcileLedger(", "func SettleLedger("} {
		if n := strings.Count(res.Rendered, line); n != 1 {
			t.Errorf("%q is shown %d times, want once:\n%s", line, n, res.Rendered)
		}
	}
	for _, own := range []string{"org/a/own.go", "org/b/own.go", "org/c/own.go"} {
		if !strings.Contains(res.Rendered, own) {
			t.Errorf("%s is missing:\n%s", own, res.Rendered)
		}
	}
	named := 0
	for _, p := range res.Parts {
		if !strings.HasSuffix(p.Path, "/ledger.go") || !strings.Contains(p.Symbol, "Ledger") {
			continue
		}
		var want []string
		for _, r := range []string{"org/a", "org/b", "org/c"} {
			if other := r + "/ledger.go"; other != p.Path {
				want = append(want, other)
			}
		}
		if !slices.Equal(p.AlsoIn, want) {
			t.Errorf("part %s (%s) alsoIn = %v, want %v", p.Path, p.Symbol, p.AlsoIn, want)
		}
		if !strings.Contains(res.Rendered, "also in: "+strings.Join(want, ", ")+"\n") {
			t.Errorf("the rendered header of %s does not name %v:\n%s", p.Path, want, res.Rendered)
		}
		named++
	}
	if named == 0 {
		t.Fatalf("no part shows the shared units:\n%s", res.Rendered)
	}
	// Everything but the timing is the same on a second run.
	untimed := func(b []byte) string {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "timing")
		s, _ := json.Marshal(m)
		return string(s)
	}
	if _, again := run(); untimed(again) != untimed(out) {
		t.Errorf("two runs differ:\n%s\n%s", out, again)
	}
}
