package mcp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAssembleNamesCopies: a file copied to another path is shown once;
// the part says where else its content is, in its structured output and
// in its header.
func TestAssembleNamesCopies(t *testing.T) {
	root := writeFixture(t)
	src, err := os.ReadFile(filepath.Join(root, "tax", "rates.go"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "fork", "tax"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "fork", "tax", "rates.go"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	cs := newSession(t, root)
	var out AssembleOutput
	text, isErr := call(t, cs, ToolAssemble, map[string]any{"query": "how is the tax computed", "budget": map[string]any{"maxTokens": 3000}}, &out)
	if isErr {
		t.Fatalf("assemble_context: %s", text)
	}
	named := 0
	for _, p := range out.Parts {
		other := map[string]string{"tax/rates.go": "fork/tax/rates.go", "fork/tax/rates.go": "tax/rates.go"}[p.Path]
		if other == "" || p.Symbol == "" {
			continue
		}
		if !slices.Equal(p.AlsoIn, []string{other}) {
			t.Errorf("part %s %s (%s): alsoIn = %v, want [%s]", p.ID, p.Path, p.Symbol, p.AlsoIn, other)
		}
		named++
	}
	if named == 0 {
		t.Fatalf("no part of rates.go:\n%s", text)
	}
	if !strings.Contains(text, "also in: ") {
		t.Errorf("the text does not name the copies:\n%s", text)
	}
	for _, fn := range []string{"func Compute(", "func RateFor("} {
		if n := strings.Count(text, fn); n > 1 {
			t.Errorf("%s is shown %d times", fn, n)
		}
	}
}
