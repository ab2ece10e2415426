package retrieve

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/tokens"
)

// TestRequestsDeterministic: the same request on the same snapshot renders
// the same bytes every time — here where a cursor's map of a file has
// more found definitions than lines (it keeps the best: an order that
// once came from ranging over a map), and for a question and a diff.
func TestRequestsDeterministic(t *testing.T) {
	var lib strings.Builder
	lib.WriteString("package lib\n\n// Router routes.\ntype Router struct{ n int }\n\n")
	for i := range 24 {
		fmt.Fprintf(&lib, "// Step%d does step %d of the work.\nfunc (r *Router) Step%d(x int) int {\n\treturn r.n + x*%d\n}\n\n", i, i, i, i)
	}
	var use strings.Builder
	use.WriteString("package lib\n\nfunc run(r *Router) int {\n\tn := 0\n")
	for i := range 20 {
		fmt.Fprintf(&use, "\tn += r.Step%d(%d)\n", i, i)
	}
	use.WriteString("\t\n\treturn n\n}\n")
	cursor := strings.Count(use.String(), "\n") - 2 // the blank line before return
	files := map[string]string{"go.mod": "module example.com/m\n", "lib/lib.go": lib.String(), "lib/use.go": use.String()}
	snap := indexFiles(t, files)
	e := NewEngine(tokens.NewRegistry())
	diff := "diff --git a/lib/lib.go b/lib/lib.go\n--- a/lib/lib.go\n+++ b/lib/lib.go\n@@ -8,3 +8,3 @@\n func (r *Router) Step0(x int) int {\n-\treturn r.n + x*0\n+\treturn r.n + x*2\n }\n"
	for _, req := range []Request{
		{Focus: &Focus{Path: "lib/use.go", Line: cursor}, Budget: assemble.Budget{MaxTokens: 300}},
		{Focus: &Focus{Path: "lib/use.go", Line: cursor}, Budget: assemble.Budget{MaxTokens: 2000}},
		{Query: "which step does the router run for x", Budget: assemble.Budget{MaxTokens: 300}},
		{Diff: diff, Budget: assemble.Budget{MaxTokens: 500}},
	} {
		var first string
		for i := range 30 {
			res, err := e.Assemble(context.Background(), snap, req)
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first = res.Rendered
				continue
			}
			if res.Rendered != first {
				t.Fatalf("request %+v: run %d renders differently:\n%s\n--- first:\n%s", req, i+1, res.Rendered, first)
			}
		}
	}
}
