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

// longChangeFixture is a package whose long function Build (lines 4-65)
// a diff changes at one line (40), and a file that calls it.
func longChangeFixture() (map[string]string, string) {
	var body strings.Builder
	for i := range 60 {
		fmt.Fprintf(&body, "\tx += step(%d)\n", i)
	}
	files := map[string]string{
		"go.mod":   "module example.com/p\n\ngo 1.22\n",
		"build.go": "package p\n\n// Build adds the steps.\nfunc Build() int {\n\tx := 0\n" + body.String() + "\treturn x\n}\n\nfunc step(i int) int { return i }\n",
		"use.go":   "package p\n\n// Use builds once.\nfunc Use() int {\n\treturn Build()\n}\n",
	}
	diff := "diff --git a/build.go b/build.go\n--- a/build.go\n+++ b/build.go\n@@ -39,3 +39,3 @@ func Build() int {\n \tx += step(33)\n-\tx += step(34)\n+\tx += step(34) * 2\n \tx += step(35)\n"
	return files, diff
}

// TestRelatedChangedSignpost: in the related mode the diff's own changed
// unit is a signpost up front — its signature and its changed lines —
// since the asker has the change; the budget goes to what changes with
// it. The review mode shows the changed unit whole. Under
// Options.DiffSignpostFrom the unit is a candidate like any other.
func TestRelatedChangedSignpost(t *testing.T) {
	files, diff := longChangeFixture()
	snap := indexFiles(t, files)
	e := NewEngine(tokens.NewRegistry())
	for _, budget := range []int{2000, 8000} {
		resp, err := e.Assemble(context.Background(), snap, Request{Diff: diff, Budget: assemble.Budget{MaxTokens: budget}})
		if err != nil {
			t.Fatal(err)
		}
		shown := map[string][]ranges.Range{}
		for _, p := range resp.Parts {
			shown[p.Path] = ranges.Union(shown[p.Path], p.Ranges)
		}
		// From Options.DiffChangedFrom it leads; below, it is ranked like
		// any other candidate.
		p := resp.Parts[0]
		if budget >= DefaultOptions().DiffChangedFrom && (p.Path != "build.go" || !ranges.ContainsLine(p.Ranges, 4) || !ranges.ContainsLine(p.Ranges, 40)) {
			t.Errorf("%d: the first part is not Build's signpost (its signature, line 4, and its changed line 40): %s %v", budget, p.Path, p.Ranges)
		}
		if budget >= DefaultOptions().DiffSignpostFrom && (!ranges.ContainsLine(shown["build.go"], 4) || !ranges.ContainsLine(shown["build.go"], 40)) {
			t.Errorf("%d: Build's signpost is not shown: %v", budget, shown["build.go"])
		}
		if n := ranges.Total(ranges.Intersect(shown["build.go"], []ranges.Range{{Start: 4, End: 67}})); budget >= DefaultOptions().DiffSignpostFrom && n > 20 {
			t.Errorf("%d: %d lines of Build are shown in the related mode, want its signature and the lines around its changed line: %v", budget, n, shown["build.go"])
		}
		if !ranges.ContainsLine(shown["use.go"], 5) {
			t.Errorf("%d: Build's caller is not shown: %v", budget, shown)
		}
	}
	review, err := e.Assemble(context.Background(), snap, Request{Diff: diff, Mode: ModeReview, Budget: assemble.Budget{MaxTokens: 8000}})
	if err != nil {
		t.Fatal(err)
	}
	if p := review.Parts[0]; p.Path != "build.go" || ranges.Total(ranges.Intersect(p.Ranges, []ranges.Range{{Start: 4, End: 67}})) != 64 {
		t.Errorf("under review Build is not shown whole first: %s %v", p.Path, p.Ranges)
	}
}

// TestDiffQueryWithoutComments: with Options.DiffQueryComments off, a
// word the diff writes only in a comment ("guard", over a guard added to
// Normalize) brings no file ahead of the code the change reaches:
// access/guard.go, which only that word matches, comes after Normalize's
// three callers. (On by default: the eval's related mode lost line
// recall without the comments' words.)
func TestDiffQueryWithoutComments(t *testing.T) {
	snap := indexFiles(t, reviewFixture())
	opts := DefaultOptions()
	opts.DiffQueryComments = false
	e := NewEngineWith(tokens.NewRegistry(), opts)
	resp, err := e.Assemble(context.Background(), snap, Request{Diff: guardDiff, Budget: assemble.Budget{MaxTokens: 8000}})
	if err != nil {
		t.Fatal(err)
	}
	guard, callers := -1, 0
	var order []string
	for i, p := range resp.Parts {
		order = append(order, fmt.Sprintf("%s %s %v", p.Path, p.Symbol, p.Ranges))
		switch p.Path {
		case "access/guard.go":
			if guard < 0 {
				guard = i
			}
		case "assemble/pack.go", "render/render.go", "expand/expand.go":
			if guard < 0 {
				callers++
			}
		}
	}
	if callers < 3 {
		t.Errorf("access/guard.go (the comment word guard) comes before Normalize's callers:\n%s", strings.Join(order, "\n"))
	}
	if commentLine("\t*p = 1") || commentLine("#include <x.h>") || !commentLine("\t// guard") || !commentLine("# note") {
		t.Error("commentLine")
	}
}
