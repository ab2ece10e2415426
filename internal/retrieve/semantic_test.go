package retrieve

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/semantic"
	"github.com/ctxls/ctxls/internal/tokens"
)

// TestSemanticChannel: the semantic channel brings the code a question's
// words sit beside in comments elsewhere, though the code has none of
// them; its hits obey exclude globs; weight 0 turns it off.
func TestSemanticChannel(t *testing.T) {
	files := map[string]string{}
	for i := range 12 {
		files[fmt.Sprintf("cache/c%d.go", i)] = fmt.Sprintf("package cache\n\n// evict%d drops stale entries under memory pressure.\nfunc evict%d(lruList []int, capacityLimit int) []int {\n\treturn lruList[:capacityLimit]\n}\n", i, i)
		files[fmt.Sprintf("web/w%d.go", i)] = fmt.Sprintf("package web\n\n// route%d matches request headers to handlers.\nfunc route%d(httpHeader string, routeTable map[string]int) int {\n\treturn routeTable[httpHeader]\n}\n", i, i)
	}
	files["store/trim.go"] = "package store\n\nfunc trimList(lruList []int, capacityLimit int) []int {\n\tfor len(lruList) > capacityLimit {\n\t\tlruList = lruList[1:]\n\t}\n\treturn lruList\n}\n"
	snap := indexFiles(t, files)
	store, _, err := semantic.Build(context.Background(), snap, semantic.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Query: "stale entries under memory pressure", Budget: assemble.Budget{MaxTokens: 4000}, Semantic: store}
	bySemantic := func(resp *Response) map[string]bool {
		out := map[string]bool{}
		for _, e := range resp.Explain {
			if e.Channels[ChanSemantic] > 0 {
				out[e.Path] = true
			}
		}
		return out
	}
	resp, _ := assembleWith(t, snap, req)
	if got := bySemantic(resp); !got["store/trim.go"] {
		t.Errorf("store/trim.go (no word of the question) is not a semantic candidate: %v", got)
	}
	ex := req
	ex.Exclude = []string{"store/**"}
	resp, _ = assembleWith(t, snap, ex)
	for p := range bySemantic(resp) {
		if strings.HasPrefix(p, "store/") {
			t.Errorf("excluded %s came from the semantic channel", p)
		}
	}
	off := req
	off.Weights = map[string]float64{ChanSemantic: 0}
	if resp, _ = assembleWith(t, snap, off); len(bySemantic(resp)) != 0 {
		t.Errorf("weight 0: semantic candidates %v", bySemantic(resp))
	}
	e := NewEngine(tokens.NewRegistry())
	diff := Request{Diff: "--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-a\n+b\n"}
	diffOn := diff
	diffOn.Weights = map[string]float64{ChanSemantic: 0.5}
	cursor := Request{Focus: &Focus{Path: "store/trim.go", Line: 3}}
	for _, c := range []struct {
		name string
		req  Request
		want bool
	}{{"question", req, true}, {"weight 0", off, false}, {"diff (off by default)", diff, false}, {"diff, weight given", diffOn, true}, {"cursor alone", cursor, false}} {
		if got := e.WantsSemantic(&c.req); got != c.want {
			t.Errorf("%s: WantsSemantic %v, want %v", c.name, got, c.want)
		}
	}
}
