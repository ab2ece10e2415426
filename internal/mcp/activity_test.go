package mcp

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestActivityAndHistory: a file changed on disk during the session is
// raised by the activity channel (not with activity: false); earlier turns
// passed as history are searched by the conversation channel.
func TestActivityAndHistory(t *testing.T) {
	root := writeFixture(t)
	cs := newSession(t, root)
	sources := func(args map[string]any) map[string][]string {
		t.Helper()
		args["budget"] = map[string]any{"maxTokens": 2000}
		var out AssembleOutput
		if text, isErr := call(t, cs, ToolAssemble, args, &out); isErr {
			t.Fatalf("assemble_context: %s", text)
		}
		m := map[string][]string{}
		for _, p := range out.Parts {
			m[p.Path] = append(m[p.Path], p.Sources...)
		}
		return m
	}
	// One call first: the root is indexed and watched, so the write below
	// is a change of this session (as TestWatchSeesChanges does).
	call(t, cs, ToolFindSymbol, map[string]any{"name": "Cart"}, nil)
	p := filepath.Join(root, "tax", "ship.go")
	if err := os.WriteFile(p, []byte("package tax\n\n// ShippingCost prices a parcel by its weight.\nfunc ShippingCost(grams int) int64 { return int64(grams) * 3 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	q := "how is the price of a parcel computed"
	if got := sources(map[string]any{"query": q}); !slices.Contains(got["tax/ship.go"], "activity") {
		t.Errorf("the file just written is not raised by the activity: %v", got)
	}
	if got := sources(map[string]any{"query": q, "activity": false}); slices.Contains(got["tax/ship.go"], "activity") {
		t.Error("activity: false: the activity still raises tax/ship.go")
	}
	got := sources(map[string]any{"query": "and where is it", "activity": false, "history": []string{"what does ShippingCost charge per gram"}})
	if !slices.Contains(got["tax/ship.go"], "conversation") {
		t.Errorf("the earlier turn's ShippingCost is not found by the conversation channel: %v", got)
	}
}
