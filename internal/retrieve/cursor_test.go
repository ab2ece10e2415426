package retrieve

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/tokens"
)

// TestCursorFirst: with a focus alone, the lines around the cursor are in
// the context at every budget down to 300 tokens — also when the cursor is
// in a long test function that uses many definitions (its file ranked down
// as a test, its unit longer than the budget).
func TestCursorFirst(t *testing.T) {
	var lib, test strings.Builder
	lib.WriteString("package shop\n\n")
	for i := range 30 {
		fmt.Fprintf(&lib, "// Helper%d computes part %d of the total price of a cart, with taxes and discounts applied.\nfunc Helper%d(x int) int {\n\treturn x*%d + %d\n}\n\n", i, i, i, i+1, i)
	}
	test.WriteString("package shop\n\nimport \"testing\"\n\nfunc TestEverything(t *testing.T) {\n")
	for i := range 30 {
		fmt.Fprintf(&test, "\tif got := Helper%d(%d); got != %d {\n\t\tt.Errorf(\"Helper%d = %%d\", got)\n\t}\n", i, i, i*(i+1)+i, i)
	}
	test.WriteString("\tcursorMarker := 1\n\t_ = cursorMarker\n}\n")
	cursor := strings.Count(test.String()[:strings.Index(test.String(), "cursorMarker := 1")], "\n") + 1
	ctx := context.Background()
	snap := indexFiles(t, map[string]string{"shop.go": lib.String(), "shop_test.go": test.String()})
	e := NewEngine(tokens.NewRegistry())
	for _, budget := range []int{300, 600, 2000, 8000} {
		res, err := e.Assemble(ctx, snap, Request{Focus: &Focus{Path: "shop_test.go", Line: cursor},
			Budget: assemble.Budget{MaxTokens: budget}})
		if err != nil {
			t.Fatal(err)
		}
		shown := false
		for _, p := range res.Parts {
			if p.Path == "shop_test.go" && strings.Contains(p.Text, "cursorMarker := 1") {
				shown = true
			}
		}
		if !shown || res.Stats.TotalTokens > budget {
			t.Errorf("budget %d: the cursor's line is not shown (%d tokens used):\n%s", budget, res.Stats.TotalTokens, res.Rendered)
		}
	}
}
