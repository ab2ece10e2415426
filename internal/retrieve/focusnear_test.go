package retrieve

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/tokens"
)

// TestFocusNearestFirst: under a tight budget, the definition of the
// identifier used just above the cursor is shown (its signature at
// least) before those of identifiers used far from it; a cursor on a line
// no unit encloses is shown too.
func TestFocusNearestFirst(t *testing.T) {
	var lib, app strings.Builder
	lib.WriteString("package shop\n\n")
	for i := range 12 {
		fmt.Fprintf(&lib, "// FarHelper%d computes a part of the total price of a cart, with taxes and discounts applied.\nfunc FarHelper%d(x int) int {\n", i, i)
		for j := range 8 {
			fmt.Fprintf(&lib, "\tx = x*%d + %d // step %d of the computation\n", j+2, j, j)
		}
		lib.WriteString("\treturn x\n}\n\n")
	}
	near := "package shop\n\n// NearestHelper rounds a price to cents.\nfunc NearestHelper(x int) int {\n" + strings.Repeat("\tx = x/100*100 + x%100 // rounding\n", 10) + "\treturn x\n}\n"
	app.WriteString("package shop\n\nfunc Checkout(n int) int {\n")
	for i := range 12 {
		fmt.Fprintf(&app, "\tn += FarHelper%d(n)\n", i)
	}
	app.WriteString("\tn = NearestHelper(n)\n\n\treturn n\n}\n\n\nvar total = 0\n")
	lines := strings.Split(app.String(), "\n")
	cursor, blank := 0, 0
	for i, l := range lines {
		if strings.Contains(l, "NearestHelper(n)") {
			cursor = i + 2 // the empty line below it
		}
		if l == "" && i > 0 && lines[i-1] == "}" {
			blank = i + 1
		}
	}
	ctx := context.Background()
	snap := indexFiles(t, map[string]string{"far.go": lib.String(), "near.go": near, "app.go": app.String()})
	e := NewEngine(tokens.NewRegistry())
	res, err := e.Assemble(ctx, snap, Request{Focus: &Focus{Path: "app.go", Line: cursor}, Budget: assemble.Budget{MaxTokens: 600}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Rendered, "func NearestHelper(x int) int") {
		t.Errorf("the definition used just above the cursor is not shown:\n%s", res.Rendered)
	}
	res, err = e.Assemble(ctx, snap, Request{Focus: &Focus{Path: "app.go", Line: blank}, Budget: assemble.Budget{MaxTokens: 300}})
	if err != nil {
		t.Fatal(err)
	}
	shown := false
	for _, p := range res.Parts {
		for _, r := range p.Ranges {
			shown = shown || p.Path == "app.go" && r.Start <= blank && blank <= r.End
		}
	}
	if !shown {
		t.Errorf("the cursor's line %d (no unit encloses it) is not shown:\n%s", blank, res.Rendered)
	}
}
