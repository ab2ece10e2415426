package retrieve

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/ranges"
	"github.com/ctxls/ctxls/internal/tokens"
)

// TestCursorCompositeTypeDeclared: a cursor building a value of a type
// declared in another file of the same package (send(Order{...})) gets,
// at 2 000 tokens, that type's declaration line, though its file is long
// (sixty other types and their methods) and shown only in part. A guard:
// the builds before the related mode's signposts pass it too.
func TestCursorCompositeTypeDeclared(t *testing.T) {
	var types strings.Builder
	types.WriteString("package shop\n\n")
	declLine := 0
	for i := range 60 {
		if i == 17 {
			declLine = strings.Count(types.String(), "\n") + 2
			types.WriteString("// Order is a customer's order.\ntype Order struct {\n\tID       int\n\tCustomer string\n\tItems    []string\n\tTotal    int\n}\n\n")
		}
		fmt.Fprintf(&types, "// Record%d is one kind of record the shop keeps.\ntype Record%d struct {\n\tKey%d   string\n\tValue%d int\n\tNote%d  string\n}\n\n", i, i, i, i, i)
		fmt.Fprintf(&types, "// Check%d validates a Record%d, with the shop's rules for its key and value.\nfunc (r Record%d) Check%d() error {\n", i, i, i, i)
		for j := range 6 {
			fmt.Fprintf(&types, "\tif r.Value%d == %d {\n\t\treturn nil // rule %d\n\t}\n", i, j, j)
		}
		types.WriteString("\treturn nil\n}\n\n")
	}
	app := "package shop\n\n// Place places an order for a customer.\nfunc Place(id int, who string, items []string) {\n\tsum := len(items) * 10\n\tsend(Order{\n\t\tID:       id,\n\t\tCustomer: who,\n\t\t\n\t})\n}\n"
	snap := indexFiles(t, map[string]string{"go.mod": "module example.com/shop\n\ngo 1.22\n", "types.go": types.String(), "place.go": app})
	resp, err := NewEngine(tokens.NewRegistry()).Assemble(context.Background(), snap, Request{Focus: &Focus{Path: "place.go", Line: 9}, Budget: assemble.Budget{MaxTokens: 2000}})
	if err != nil {
		t.Fatal(err)
	}
	var shown []ranges.Range
	for _, p := range resp.Parts {
		if p.Path == "types.go" {
			shown = ranges.Union(shown, p.Ranges)
		}
	}
	if !ranges.ContainsLine(shown, declLine) {
		t.Errorf("types.go:%d (type Order struct) is not shown: %v\n%s", declLine, shown, resp.Rendered)
	}
}
