package mcp

import (
	"strings"
	"testing"
)

func TestFindReferencesTool(t *testing.T) {
	cs := newSession(t, writeFixture(t))
	var out FindReferencesOutput
	text, isErr := call(t, cs, ToolReferences, map[string]any{"symbol": "Cart.Add"}, &out)
	if isErr {
		t.Fatal(text)
	}
	if out.Total != 2 || len(out.References) != 2 || !out.Exact || out.Target.Kind != "method" {
		t.Fatalf("%+v", out)
	}
	if r := out.References[0]; r.Path != "cmd/shop/main.go" || r.Line != 12 || r.Kind != "call" || r.Symbol != "main.main" || r.Handle == "" {
		t.Errorf("first reference %+v", r)
	}
	if !strings.Contains(text, "cmd/shop/main.go:12:4 call in main.main") {
		t.Errorf("text:\n%s", text)
	}
	// A position: the c.Checkout call.
	if text, isErr := call(t, cs, ToolReferences, map[string]any{"path": "cmd/shop/main.go", "line": 14, "column": 19}, &out); isErr || out.Target.Name != "Cart.Checkout" {
		t.Errorf("position: %s %+v", text, out.Target)
	}
	// Within the budget: the rest omitted, with handles.
	text, _ = call(t, cs, ToolReferences, map[string]any{"symbol": "Cart.Add", "budget": map[string]any{"maxTokens": 40}}, &out)
	if len(out.References) != 1 || out.OmittedTotal != 1 || len(out.Omitted) != 1 || out.Omitted[0].Handle == "" || out.Tokens > 40 {
		t.Errorf("budget 40: %+v\n%s", out, text)
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"symbol": "NoSuchThing"}, "invalid argument symbol: no definition of NoSuchThing"},
		{map[string]any{}, "invalid argument symbol: give a symbol"},
		{map[string]any{"path": "cart/cart.go", "line": 500}, "invalid argument path/line/column: cart/cart.go:500: past the end of the file"},
		{map[string]any{"symbol": "Add", "path": "cart/cart.go", "line": 1}, "not both"},
	} {
		if msg, isErr := call(t, cs, ToolReferences, tc.args, nil); !isErr || !strings.Contains(msg, tc.want) {
			t.Errorf("%v: %v %q, want %q", tc.args, isErr, msg, tc.want)
		}
	}
}

func TestImpactTool(t *testing.T) {
	cs := newSession(t, writeFixture(t))
	diff := "--- a/cart/cart.go\n+++ b/cart/cart.go\n@@ -40,3 +40,3 @@\n func (c *Cart) Subtotal() int64 {\n-\tvar sum int64\n+\tvar sum int64 // cents\n \tfor _, it := range c.Items {\n"
	var out ImpactOutput
	text, isErr := call(t, cs, ToolImpact, map[string]any{"diff": diff, "depth": 2}, &out)
	if isErr {
		t.Fatal(text)
	}
	var got []string
	for _, r := range out.Reached {
		got = append(got, r.Symbol)
	}
	if strings.Join(got, " ") != "Cart.Subtotal Cart.Checkout main.main" || out.Reached[2].Hop != 2 || !out.Exact {
		t.Errorf("reached %+v", out.Reached)
	}
	if msg, isErr := call(t, cs, ToolImpact, map[string]any{"diff": diff, "depth": 7}, nil); !isErr || !strings.Contains(msg, "depth") {
		t.Errorf("depth 7: %v %s", isErr, msg)
	}
	if msg, isErr := call(t, cs, ToolImpact, map[string]any{}, nil); !isErr || !strings.Contains(msg, "invalid argument diff") {
		t.Errorf("no diff: %v %s", isErr, msg)
	}
}
