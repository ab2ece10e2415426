package mine

import (
	"testing"

	"github.com/ctxls/ctxls/eval"
	"github.com/ctxls/ctxls/internal/history/historytest"
	"github.com/ctxls/ctxls/internal/ranges"
)

// TestReviewGold: a guard added to a function that three packages call:
// the gold is the three call sites and the declarations the changed lines
// use — not builtins, locals, parameters or other modules' names.
func TestReviewGold(t *testing.T) {
	files := map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"ranges/ranges.go": `package ranges

import "github.com/other/lib"

// Range is a line range.
type Range struct {
	Start, End int
}

const maxRanges = 1000

// Normalize sorts and merges rs.
func Normalize(rs []Range) []Range {
	if len(rs) > maxRanges || lib.Off() {
		return nil
	}
	n := len(rs)
	_ = n
	return rs
}
`,
		"a/a.go":      "package a\n\nimport \"example.com/m/ranges\"\n\nfunc A() { ranges.Normalize(nil) }\n",
		"b/b.go":      "package b\n\nimport \"example.com/m/ranges\"\n\nfunc B() []ranges.Range {\n\treturn ranges.Normalize(nil)\n}\n",
		"c/c.go":      "package c\n\nimport r \"example.com/m/ranges\"\n\nvar C = r.Normalize\n",
		"c/c_test.go": "package c\n\nimport \"example.com/m/ranges\"\n\nfunc T() { ranges.Normalize(nil) }\n",
	}
	root := historytest.Write(t, files)
	// The guard: lines 14-16 of ranges.go are the change.
	gold, err := ReviewGold(root, map[string][]ranges.Range{"ranges/ranges.go": {{Start: 14, End: 16}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []eval.GoldFile{
		{Path: "a/a.go", Lines: []ranges.Range{{Start: 5, End: 5}}},
		{Path: "b/b.go", Lines: []ranges.Range{{Start: 6, End: 6}}},
		{Path: "c/c.go", Lines: []ranges.Range{{Start: 5, End: 5}}},
		{Path: "ranges/ranges.go", Lines: []ranges.Range{{Start: 10, End: 10}}}, // maxRanges
	}
	if len(gold) != len(want) {
		t.Fatalf("gold = %+v, want %+v", gold, want)
	}
	for i := range want {
		if gold[i].Path != want[i].Path || !ranges.Equal(gold[i].Lines, want[i].Lines) {
			t.Errorf("gold[%d] = %+v, want %+v", i, gold[i], want[i])
		}
	}
	if _, err := ReviewGold(t.TempDir(), nil); err == nil {
		t.Errorf("a directory without go.mod gave gold")
	}
}
