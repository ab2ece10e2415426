package retrieve

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/tokens"
)

// TestFocusMapAndImports: under a tight budget, a constructor the lines
// above the cursor never name is shown as a declaration line of the map of
// the file they use; and of two definitions of a name, the one in the
// package the file imports comes first.
func TestFocusMapAndImports(t *testing.T) {
	files := map[string]string{"go.mod": "module example.com/m\n"}
	var router strings.Builder
	router.WriteString("package router\n\n// NewRouter returns an empty router.\nfunc NewRouter() *Router {\n\treturn &Router{}\n}\n\n// Router routes requests.\ntype Router struct {\n\troutes []string\n}\n\n")
	for i := range 10 {
		fmt.Fprintf(&router, "// Method%d registers route %d.\nfunc (r *Router) Method%d(path string) *Router {\n", i, i, i)
		for j := range 12 {
			fmt.Fprintf(&router, "\tr.routes = append(r.routes, path+\"/%d\") // step %d\n", j, j)
		}
		router.WriteString("\treturn r\n}\n\n")
	}
	files["router/router.go"] = router.String()
	files["other/other.go"] = "package other\n\n// Thing is another type.\ntype Thing struct{}\n\n// Method3 is a same-named method elsewhere.\nfunc (t *Thing) Method3(path string) *Thing {\n\treturn t\n}\n"
	var app strings.Builder
	app.WriteString("package app\n\nimport \"example.com/m/router\"\n\nfunc Setup(r *router.Router) {\n")
	for i := range 6 {
		fmt.Fprintf(&app, "\tr.Method3(\"/a%d\")\n", i)
	}
	app.WriteString("\n}\n")
	files["app/app.go"] = app.String()
	cursor := strings.Count(app.String(), "\n") - 1 // the empty line before }
	ctx := context.Background()
	snap := indexFiles(t, files)
	e := NewEngine(tokens.NewRegistry())
	res, err := e.Assemble(ctx, snap, Request{Focus: &Focus{Path: "app/app.go", Line: cursor}, Budget: assemble.Budget{MaxTokens: 600}, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Rendered, "func NewRouter() *Router") {
		t.Errorf("the constructor of the type in use is not in the map:\n%s", res.Rendered)
	}
	if res.Stats.TotalTokens > 600 {
		t.Errorf("over budget: %d", res.Stats.TotalTokens)
	}
	mapped := false
	for _, ex := range res.Explain {
		mapped = mapped || ex.Path == "router/router.go" && strings.HasPrefix(ex.Focus, "map of the file's declarations")
	}
	if !mapped {
		t.Errorf("explain does not say router.go's map is there: %+v", res.Explain)
	}
	ri, oi := strings.Index(res.Rendered, "func (r *Router) Method3"), strings.Index(res.Rendered, "func (t *Thing) Method3")
	if ri < 0 || (oi >= 0 && oi < ri) {
		t.Errorf("the imported package's Method3 is not first (router at %d, other at %d):\n%s", ri, oi, res.Rendered)
	}
}

// TestTypedPrefixNarrows: with "r.Han" typed at the cursor, the method it
// starts is shown under a budget that has no room for the type's other
// twenty methods; and what counts as a typed prefix with and without a
// column.
func TestTypedPrefixNarrows(t *testing.T) {
	var lib strings.Builder
	lib.WriteString("package lib\n\n// Router routes.\ntype Router struct{ n int }\n\n")
	for i := range 20 {
		fmt.Fprintf(&lib, "// Method%d does step %d of the work.\nfunc (r *Router) Method%d(x int) int {\n\treturn r.n + x*%d\n}\n\n", i, i, i, i)
	}
	lib.WriteString("// HandleEverything handles every request at once.\nfunc (r *Router) HandleEverything() {}\n")
	typed := "package lib\n\nfunc use(r *Router) int {\n\tn := r.Method1(1) + r.Method2(2) + r.Method3(3)\n\tr.Han\n\treturn n\n}\n"
	ctx := context.Background()
	snap := indexFiles(t, map[string]string{"lib.go": lib.String(), "use.go": typed})
	e := NewEngine(tokens.NewRegistry())
	res, err := e.Assemble(ctx, snap, Request{Focus: &Focus{Path: "use.go", Line: 5, Col: 7}, Budget: assemble.Budget{MaxTokens: 300}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Rendered, "func (r *Router) HandleEverything()") {
		t.Errorf("the method the typed prefix starts is not shown:\n%s", res.Rendered)
	}
	if got := typedPrefix(typed, &Focus{Path: "use.go", Line: 5}); got != "Han" {
		t.Errorf("typedPrefix without a column = %q, want Han", got)
	}
	if got := typedPrefix(typed, &Focus{Path: "use.go", Line: 5, Col: 3}); got != "r" {
		t.Errorf("typedPrefix at column 3 = %q, want r", got)
	}
	if got := typedPrefix(typed, &Focus{Path: "use.go", Line: 6}); got != "" {
		t.Errorf("typedPrefix of a whole line \"return n\" = %q, want none", got)
	}
}
