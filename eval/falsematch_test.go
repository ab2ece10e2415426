package eval

import (
	"testing"

	"github.com/ctxls/ctxls/internal/retrieve"
)

func TestFalseMatches(t *testing.T) {
	c := &Case{Diff: `diff --git a/ranges/ranges.go b/ranges/ranges.go
--- a/ranges/ranges.go
+++ b/ranges/ranges.go
@@ -11,3 +11,6 @@ func Normalize(rs []Range, n int) []Range {
+	// guard: nothing to do for none
+	if len(rs) == 0 || b.count() > limit {
+		return nil
+	}
`}
	expl := []retrieve.Explanation{
		{Part: "p1", Path: "access/guard.go", Symbol: "access.Guard", Channels: map[string]float64{"graph": 1}},           // a comment's word
		{Part: "p2", Path: "semantic/bags.go", Symbol: "fileBags.len", Channels: map[string]float64{"diff": 1}},           // a bare builtin
		{Part: "p3", Path: "index/codec.go", Symbol: "tablesReader.count", Channels: map[string]float64{"symbol": 1}},     // written b.count()
		{Part: "p4", Path: "access/guard.go", Symbol: "guard.originsAllowed", Channels: map[string]float64{"lexical": 1}}, // words may match
		{Part: "p5", Path: "limits/limits.go", Symbol: "limits.limit", Channels: map[string]float64{"diff": 1}},           // code writes limit
		{Path: "x/len.go", Symbol: "x.len", Channels: map[string]float64{"diff": 1}},                                      // not shown
		{Part: "p6", Path: "lib/util.py", Symbol: "Bag.len", Channels: map[string]float64{"graph": 1}},                    // Python's len is a builtin too
	}
	if got := FalseMatches(c, expl); got != 3 {
		t.Errorf("FalseMatches = %d, want 3 (Guard from a comment, fileBags.len and Bag.len from a bare len)", got)
	}
	if got := FalseMatches(&Case{Query: "why is len slow"}, expl[:1]); got != 0 {
		t.Errorf("a question's words are no comment: %d", got)
	}
	cursor := &Case{Focus: &CursorFocus{Path: "lib/util.py", Line: 3}}
	if got := FalseMatches(cursor, expl[6:]); got != 0 {
		t.Errorf("a unit of the cursor's own file counted: %d", got)
	}
	if got := FalseMatches(cursor, expl[1:2]); got != 1 {
		t.Errorf("a bare builtin's method elsewhere, for a cursor: %d, want 1", got)
	}
}
