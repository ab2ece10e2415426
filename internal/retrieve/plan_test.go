package retrieve

import (
	"context"
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/tokens"
)

// A request is checked once: Plan checks and normalises it, parses its
// diff and resolves its weights, and AssemblePlan runs what the plan
// holds without checking or parsing it again — the same context as
// Assemble of the request.
func TestPlanRunsAsChecked(t *testing.T) {
	snap := indexFiles(t, map[string]string{
		"go.mod": "module example.com/m\n",
		"cfg/load.go": "package cfg\n\n// ParseConfig parses the config file.\nfunc ParseConfig(text string) map[string]string {\n\treturn map[string]string{\"text\": text}\n}\n\n" +
			"// Load reads and parses a config.\nfunc Load(p string) map[string]string {\n\treturn ParseConfig(p)\n}\n",
	})
	diff := "diff --git a/cfg/load.go b/cfg/load.go\n--- a/cfg/load.go\n+++ b/cfg/load.go\n@@ -4,3 +4,3 @@\n func ParseConfig(text string) map[string]string {\n-\treturn map[string]string{\"text\": text}\n+\treturn map[string]string{\"config\": text}\n }\n"
	e := NewEngine(tokens.NewRegistry())
	req := Request{Diff: diff, Mode: "review", Format: "markdown", Budget: assemble.Budget{MaxTokens: 1000}}
	want, err := e.Assemble(context.Background(), snap, req)
	if err != nil {
		t.Fatal(err)
	}
	p, err := e.Plan(req)
	if err != nil {
		t.Fatal(err)
	}
	if p.Mode != ModeReview || p.Encoding != DefaultEncoding || len(p.diff) != 1 || p.weights[ChanDiff] != DefaultWeights()[ChanDiff] {
		t.Fatalf("plan: mode %q, encoding %q, %d diff files, diff weight %v", p.Mode, p.Encoding, len(p.diff), p.weights[ChanDiff])
	}
	// The plan's parsed diff is what runs: its text is not read again.
	p.Diff = "not a diff"
	got, err := e.AssemblePlan(context.Background(), snap, p)
	if err != nil {
		t.Fatal(err)
	}
	if got.Rendered != want.Rendered || got.Rendered == "" {
		t.Errorf("AssemblePlan:\n%s\nAssemble:\n%s", got.Rendered, want.Rendered)
	}
	// Validate leaves the request normalised, as the plan holds it.
	v := req
	if err := e.Validate(&v); err != nil || v.Mode != ModeReview || v.Encoding != DefaultEncoding || v.Strategy == "" {
		t.Errorf("Validate: %v, request %+v", err, v)
	}
}
