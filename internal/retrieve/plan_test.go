package retrieve

import (
	"context"
	"errors"
	"strings"
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
	if p.req.Mode != ModeReview || p.req.Encoding != DefaultEncoding || len(p.diff) != 1 || p.weights[ChanDiff] != DefaultWeights()[ChanDiff] {
		t.Fatalf("plan: mode %q, encoding %q, %d diff files, diff weight %v", p.req.Mode, p.req.Encoding, len(p.diff), p.weights[ChanDiff])
	}
	// The plan's parsed diff is what runs: its text is not read again.
	p.req.Diff = "not a diff"
	got, err := e.AssemblePlan(context.Background(), snap, p)
	if err != nil {
		t.Fatal(err)
	}
	if got.Rendered != want.Rendered || got.Rendered == "" {
		t.Errorf("AssemblePlan:\n%s\nAssemble:\n%s", got.Rendered, want.Rendered)
	}
	// The plan's request is normalised; a copy changed by its reader does
	// not change the plan.
	v := p.Request()
	if v.Mode != ModeReview || v.Encoding != DefaultEncoding || v.Strategy == "" {
		t.Errorf("the plan's request %+v", v)
	}
}

// The checks run once, in Engine.Plan: AssemblePlan refuses a Plan that
// Engine.Plan did not make, and the assembler a request that
// assemble.Request.Check did not check — so no face can skip the check,
// and nothing after it checks again.
func TestOnlyAPlanRuns(t *testing.T) {
	snap := indexFiles(t, map[string]string{"a.go": "package a\n\nfunc A() {}\n"})
	e := NewEngine(tokens.NewRegistry())
	if _, err := e.AssemblePlan(context.Background(), snap, &Plan{req: Request{Query: "A", Budget: assemble.Budget{MaxTokens: 100}}}); err == nil {
		t.Error("a Plan not made by Engine.Plan ran")
	}
	if _, err := e.AssemblePlan(context.Background(), snap, nil); err == nil {
		t.Error("a nil Plan ran")
	}
	if _, err := e.ExpandPlan(context.Background(), snap, &ExpandPlan{}); err == nil {
		t.Error("an ExpandPlan not made by Engine.PlanExpand ran")
	}
	if _, err := assemble.AssembleChecked(context.Background(), assemble.Checked{}, nil, nil, nil); err == nil {
		t.Error("the assembler ran a request that was not checked")
	}
	p, err := e.Plan(Request{Query: "A", Budget: assemble.Budget{MaxTokens: 100}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.AssemblePlan(context.Background(), snap, p); err != nil {
		t.Errorf("a plan of Engine.Plan: %v", err)
	}
}

// The focus is checked in one place, the plan, on the snapshot the
// request reads: a path:line focus past its file's end, an editor's focus
// past the end of its buffer (as sent) or of the indexed file, and a file
// the complete index does not hold are refused naming the field; an
// editor's UTF-16 character becomes a byte column.
func TestFocusCheckedInThePlan(t *testing.T) {
	snap := indexFiles(t, map[string]string{"a.go": "package a\n\n// é😀\nfunc A() {}\n"})
	e := NewEngine(tokens.NewRegistry())
	run := func(f *Focus) (*Focus, error) {
		p, err := e.Plan(Request{Focus: f, Budget: assemble.Budget{MaxTokens: 200}})
		if err != nil {
			return nil, err
		}
		got, _, err := p.focusIn(snap)
		return got, err
	}
	field := func(err error) string {
		var pe *assemble.ParamError
		if errors.As(err, &pe) {
			return pe.Field
		}
		return ""
	}
	if _, err := run(&Focus{Path: "a.go", Line: 5}); field(err) != "focus" || !strings.Contains(err.Error(), "(4 lines)") {
		t.Errorf("path:line past the end: %v", err)
	}
	if _, err := run(&Focus{Path: "b.go", Line: 1}); field(err) != "focus" || !strings.Contains(err.Error(), "not indexed") {
		t.Errorf("a file not indexed: %v", err)
	}
	ed := &EditorPosition{Line: 2, Character: 6, URI: "file:///w/a.go"}
	got, err := run(&Focus{Path: "a.go", Line: 3, Col: 6, Editor: ed})
	if err != nil || got.Line != 3 || got.Col != 10 || got.Editor != nil {
		t.Errorf("an editor's focus in the indexed file: %+v, %v; want line 3, byte column 10", got, err)
	}
	ed = &EditorPosition{Line: 4, Character: 0, URI: "file:///w/a.go", Buffer: "package a\n", Open: true}
	if _, err := run(&Focus{Path: "a.go", Line: 5, Col: 1, Editor: ed}); field(err) != "focus.position.line" || !strings.Contains(err.Error(), "0-based") {
		t.Errorf("an editor's focus past the end of its buffer: %v", err)
	}
	ed = &EditorPosition{Line: 0, Character: 0, URI: "file:///w/b.go"}
	if _, err := run(&Focus{Path: "b.go", Line: 1, Col: 1, Editor: ed}); field(err) != "focus.uri" {
		t.Errorf("an editor's focus in a file not indexed: %v", err)
	}
}
