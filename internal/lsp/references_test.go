package lsp

import (
	"strings"
	"testing"
)

// module is a Go module whose two types both have a Write method.
var refsModule = map[string]string{
	"go.mod":     "module example.com/m\n\ngo 1.22\n",
	"w/w.go":     "package w\n\ntype A struct{}\n\nfunc (A) Write() {}\n\ntype B struct{}\n\nfunc (B) Write() {}\n",
	"use/use.go": "package use\n\nimport \"example.com/m/w\"\n\nfunc F(a w.A, b w.B) {\n\ta.Write()\n\tb.Write()\n}\n",
}

// context/references answers for a symbol and for a focus, by types;
// bad input names its field.
func TestContextReferences(t *testing.T) {
	e := newEnv(t, serverOptions(t, nil), refsModule, nil)
	r := mustResult[ReferencesResult](t, e.call(methodContextReferences, map[string]any{"symbol": "B.Write"}))
	if len(r.References) != 1 || r.References[0].Line != 7 || r.References[0].Kind != "call" || r.References[0].URI != e.uri("use/use.go") || !r.Exact {
		t.Fatalf("B.Write: %+v", r)
	}
	// The focus on a.Write (0-based line 5, character 3).
	r = mustResult[ReferencesResult](t, e.call(methodContextReferences, map[string]any{"focus": map[string]any{"uri": e.uri("use/use.go"), "position": map[string]any{"line": 5, "character": 3}}}))
	if r.Target.Name != "A.Write" || len(r.References) != 1 || r.References[0].Line != 6 {
		t.Fatalf("focus: %+v", r)
	}
	if err := mustError(t, e.call(methodContextReferences, map[string]any{"symbol": "Write"}), CodeInvalidParams); !strings.Contains(err.Message, "ambiguous") || !strings.Contains(err.Message, "A.Write") {
		t.Errorf("ambiguous: %s", err.Message)
	}
	if err := mustError(t, e.call(methodContextReferences, map[string]any{"focus": map[string]any{"uri": e.uri("use/use.go"), "position": map[string]any{"line": 40, "character": 0}}}), CodeInvalidParams); !strings.Contains(err.Message, "past the end") {
		t.Errorf("past the end: %s", err.Message)
	}
	// What a change to A.Write reaches: its caller, and the type its line names.
	diff := "--- a/w/w.go\n+++ b/w/w.go\n@@ -5 +5 @@\n-func (A) Write() {}\n+func (A) Write() {}\n"
	x := mustResult[ImpactResult](t, e.call(methodContextImpact, map[string]any{"diff": diff}))
	if len(x.Reached) != 3 || x.Reached[0].Symbol != "A.Write" || x.Reached[1].Symbol != "use.F" || x.Reached[1].Hop != 1 || x.Reached[2].Symbol != "w.A" {
		t.Fatalf("impact: %+v", x.Reached)
	}
	if err := mustError(t, e.call(methodContextImpact, map[string]any{}), CodeInvalidParams); !strings.Contains(err.Message, "diff") {
		t.Errorf("no diff: %s", err.Message)
	}
}
