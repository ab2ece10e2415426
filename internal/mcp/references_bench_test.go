package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// manyCallers writes a module whose function Target is called from
// files files of per calls each: a listing of files*per sites, the size
// of what find_references returns for a much used function of Go's
// standard library.
func manyCallers(tb testing.TB, files, per int) string {
	tb.Helper()
	dir := tb.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	write("go.mod", "module example.com/many\n\ngo 1.22\n")
	write("target/target.go", "package target\n\n// Target is called everywhere.\nfunc Target(n int) int { return n + 1 }\n")
	for f := range files {
		var b strings.Builder
		fmt.Fprintf(&b, "package user%02d\n\nimport \"example.com/many/target\"\n\n", f)
		for i := range per {
			fmt.Fprintf(&b, "// Use%d calls Target.\nfunc Use%d() int {\n\treturn target.Target(%d)\n}\n\n", i, i, i)
		}
		write(fmt.Sprintf("user%02d/user.go", f), b.String())
	}
	return dir
}

// BenchmarkFindReferencesMCP is one warm find_references call over MCP
// (an in-memory transport) listing 1 500 sites within a budget that holds
// them all: the round trip around refs.Find — the listing and its token
// count, the structured output, its validation and JSON.
func BenchmarkFindReferencesMCP(b *testing.B) {
	cs := newSession(b, manyCallers(b, 30, 50))
	params := &sdk.CallToolParams{Name: ToolReferences, Arguments: map[string]any{
		"symbol": "target.Target", "budget": map[string]any{"maxTokens": 10000000}}}
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		b.Fatalf("%v %+v", err, res)
	}
	if n := res.StructuredContent.(map[string]any)["total"]; n != float64(1500) {
		b.Fatalf("total %v, want 1500", n)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := cs.CallTool(context.Background(), params); err != nil {
			b.Fatal(err)
		}
	}
}

// The listing tools encode their structured result themselves (see
// listingTool): what they return conforms to the output schema they
// declare, in full, cut to a budget and empty.
func TestListingToolsConform(t *testing.T) {
	cs := newSession(t, writeFixture(t))
	ctx := context.Background()
	schemas := map[string]*jsonschema.Resolved{}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		b, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var sc jsonschema.Schema
		if err := json.Unmarshal(b, &sc); err != nil {
			t.Fatal(err)
		}
		if schemas[tool.Name], err = sc.Resolve(nil); err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
	}
	diff := "--- a/cart/cart.go\n+++ b/cart/cart.go\n@@ -40,3 +40,3 @@\n func (c *Cart) Subtotal() int64 {\n-\tvar sum int64\n+\tvar sum int64 // cents\n \tfor _, it := range c.Items {\n"
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{ToolReferences, map[string]any{"symbol": "Cart.Add"}},
		{ToolReferences, map[string]any{"symbol": "Cart.Add", "budget": map[string]any{"maxTokens": 40}}},
		{ToolReferences, map[string]any{"symbol": "Cart.Add", "budget": map[string]any{"maxTokens": 1}}},
		{ToolImpact, map[string]any{"diff": diff, "depth": 2}},
		{ToolImpact, map[string]any{"diff": diff, "budget": map[string]any{"maxTokens": 1}}},
	} {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil || res.IsError {
			t.Fatalf("%s %v: %v %+v", tc.tool, tc.args, err, res)
		}
		if res.StructuredContent == nil || len(res.Content) != 1 {
			t.Fatalf("%s %v: structured %v, content %d", tc.tool, tc.args, res.StructuredContent, len(res.Content))
		}
		if err := schemas[tc.tool].Validate(res.StructuredContent); err != nil {
			t.Errorf("%s %v: %v", tc.tool, tc.args, err)
		}
	}
	// Bad arguments are still refused by the input schema.
	if msg, isErr := call(t, cs, ToolReferences, map[string]any{"symbol": "Cart.Add", "line": "one"}, nil); !isErr || !strings.Contains(msg, "line") {
		t.Errorf("a string line: %v %q", isErr, msg)
	}
}
