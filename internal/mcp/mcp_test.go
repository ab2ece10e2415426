package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/tools/txtar"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/retrieve"
	"github.com/ctxls/ctxls/internal/tokens"
)

// fixture is the shop workspace the CLI tests use too (Go, Python,
// Markdown).
const fixture = "../cli/testdata/shop.txtar"

// sharedTokens is one registry for the package's tests (building an
// encoding takes ≈ 100 ms).
var sharedTokens = tokens.NewRegistry()

// writeFixture unpacks the shop workspace into a new directory.
func writeFixture(t *testing.T) string {
	t.Helper()
	ar, err := txtar.ParseFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	for _, f := range ar.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// testOptions are options over in-memory indexes.
func testOptions(roots ...string) Options {
	return Options{
		Engine: retrieve.NewEngine(sharedTokens), Tokens: sharedTokens,
		IndexOptions: func(string) index.Options { return index.Options{InMemory: true} },
		Roots:        roots,
		IndexWait:    20 * time.Second,
	}
}

// connect starts srv and connects an in-memory client to it.
func connect(t testing.TB, srv *Server, copts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := srv.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, copts)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	})
	return cs
}

// newSession serves root and returns a connected client session.
func newSession(t testing.TB, root string) *sdk.ClientSession {
	t.Helper()
	srv, err := New(testOptions(root))
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	return connect(t, srv, nil)
}

// call calls a tool and decodes its structured content into out (when
// not nil). It returns the text content and whether the result is an
// error.
func call(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any, out any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var text []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text = append(text, tc.Text)
		}
	}
	if out != nil && !res.IsError {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: structured content: %v\n%s", tool, err, b)
		}
	}
	return strings.Join(text, "\n"), res.IsError
}

func TestListTools(t *testing.T) {
	cs := newSession(t, writeFixture(t))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s: readOnlyHint not set", tool.Name)
		}
		if tool.Description == "" || tool.OutputSchema == nil {
			t.Errorf("%s: no description or no output schema", tool.Name)
		}
		in, _ := json.Marshal(tool.InputSchema)
		var sc struct {
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(in, &sc); err != nil {
			t.Fatal(err)
		}
		for name, p := range sc.Properties {
			if p.Description == "" {
				t.Errorf("%s: argument %s has no description", tool.Name, name)
			}
		}
		// Portable schemas: no type lists (["null", "array"]) anywhere,
		// in the arguments or the results.
		out, _ := json.Marshal(tool.OutputSchema)
		for what, b := range map[string][]byte{"input": in, "output": out} {
			var v any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatal(err)
			}
			for _, p := range typeLists(v, what+"Schema") {
				t.Errorf("%s: %s has a type list", tool.Name, p)
			}
		}
		// The defaults an absent argument takes are in the schema.
		var defs struct {
			Properties map[string]struct {
				Default    any `json:"default"`
				Properties map[string]struct {
					Default any `json:"default"`
				} `json:"properties"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(in, &defs); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"encoding": "cl100k_base", "format": "markdown", "strategy": "grouped", "activity": true, "references": false}
		for name, p := range defs.Properties {
			if w, ok := want[name]; ok && p.Default != w {
				t.Errorf("%s: argument %s: default %v, want %v", tool.Name, name, p.Default, w)
			}
		}
		if b, ok := defs.Properties["budget"]; ok {
			wantMax := float64(DefaultMaxTokens)
			switch tool.Name {
			case ToolFindSymbol:
				wantMax = DefaultSymbolTokens
			case ToolReferences, ToolImpact:
				wantMax = DefaultReferencesTokens
			}
			if b.Properties["maxTokens"].Default != wantMax || b.Properties["perFile"].Default != 0.0 {
				t.Errorf("%s: budget defaults %v, %v", tool.Name, b.Properties["maxTokens"].Default, b.Properties["perFile"].Default)
			}
		}
	}
	slices.Sort(names)
	want := []string{ToolAssemble, ToolExpand, ToolFindSymbol, ToolIndexStatus, ToolReferences, ToolImpact}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
}

// typeLists returns the paths in a JSON schema (decoded) whose "type" is
// a list.
func typeLists(v any, path string) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x["type"].([]any); ok {
			out = append(out, path)
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			out = append(out, typeLists(x[k], path+"."+k)...)
		}
	case []any:
		for i, e := range x {
			out = append(out, typeLists(e, fmt.Sprintf("%s[%d]", path, i))...)
		}
	}
	return out
}

func TestAssembleQuery(t *testing.T) {
	root := writeFixture(t)
	cs := newSession(t, root)
	args := map[string]any{"query": "how is the sales tax of a region applied at checkout", "budget": map[string]any{"maxTokens": 400}}
	var out AssembleOutput
	text, isErr := call(t, cs, ToolAssemble, args, &out)
	if isErr {
		t.Fatalf("error: %s", text)
	}
	if out.Root != root || len(out.Parts) == 0 || !out.Stats.IndexComplete {
		t.Fatalf("root %s parts %d complete %v", out.Root, len(out.Parts), out.Stats.IndexComplete)
	}
	if out.Stats.TotalTokens > 400 || out.Stats.MaxTokens != 400 {
		t.Fatalf("stats %+v over the budget", out.Stats)
	}
	rendered := strings.SplitN(text, "\nLeft out (", 2)[0]
	if n := countTokens(t, firstContent(t, cs, args)); n > 400 {
		t.Fatalf("rendered context is %d tokens, over 400", n)
	}
	if !strings.Contains(rendered, "tax/rates.go") {
		t.Fatalf("the tax code is not in the context:\n%s", rendered)
	}
	// The left-out handles are named when the context leaves room for
	// them (TestAssembleTextWithinBudget).
	if strings.Contains(text, "\nLeft out (") {
		if len(out.Omitted) == 0 || !strings.Contains(text, out.Omitted[0].Handle) {
			t.Fatalf("omitted handles not named in the text:\n%s", text)
		}
	}
	// Deterministic: the same call gives the same text and parts.
	var again AssembleOutput
	text2, _ := call(t, cs, ToolAssemble, args, &again)
	if text2 != text || fmt.Sprint(again.Parts) != fmt.Sprint(out.Parts) {
		t.Fatal("a second identical call answered differently")
	}
}

// TestAssembleTextWithinBudget: everything assemble_context returns as
// text — the context and the note naming what was left out — is within the
// budget asked, for budgets from tight to roomy; the note appears when
// there is room for it.
func TestAssembleTextWithinBudget(t *testing.T) {
	root := writeFixture(t)
	cs := newSession(t, root)
	noted := false
	for _, budget := range []int{60, 120, 200, 300, 400, 600, 1000} {
		for _, q := range []string{"how is the sales tax of a region applied at checkout", "cart items totals"} {
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: ToolAssemble,
				Arguments: map[string]any{"query": q, "budget": map[string]any{"maxTokens": budget}}})
			if err != nil || res.IsError {
				t.Fatalf("%v %v", err, res)
			}
			total := 0
			for _, c := range res.Content {
				total += countTokens(t, c.(*sdk.TextContent).Text)
			}
			if total > budget {
				t.Errorf("budget %d, %q: %d tokens of text in %d blocks", budget, q, total, len(res.Content))
			}
			if len(res.Content) > 1 {
				noted = true
			}
		}
	}
	if !noted {
		t.Error("no call named its left-out candidates: the check above checked nothing")
	}
}

// countTokens counts text in cl100k_base.
func countTokens(t *testing.T, text string) int {
	t.Helper()
	c, err := sharedTokens.Get("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	return c.Count(text)
}

// firstContent returns the first text content of an assemble_context call:
// the rendered context itself.
func firstContent(t *testing.T, cs *sdk.ClientSession, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: ToolAssemble, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("%v %v", err, res)
	}
	return res.Content[0].(*sdk.TextContent).Text
}

func TestAssembleFocusAndDiffRev(t *testing.T) {
	root := writeFixture(t)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.email=t@t", "-c", "user.name=t"}, args...)...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-qm", "base")
	p := filepath.Join(root, "tax", "rates.go")
	b, _ := os.ReadFile(p)
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), `"OR": 0,`, `"OR": 0,
	"WA": 650,`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := newSession(t, root)

	var out AssembleOutput
	text, isErr := call(t, cs, ToolAssemble, map[string]any{"focus": "cmd/shop/main.go:14", "budget": map[string]any{"maxTokens": 600}}, &out)
	if isErr || len(out.Parts) == 0 || out.Parts[0].Path != "cmd/shop/main.go" {
		t.Fatalf("focus: error %v, parts %+v\n%s", isErr, out.Parts, text)
	}
	abs := filepath.Join(root, "cmd", "shop", "main.go") + ":14:3"
	if text2, isErr := call(t, cs, ToolAssemble, map[string]any{"focus": abs, "budget": map[string]any{"maxTokens": 600}}, nil); isErr || text2 != text {
		t.Fatalf("an absolute focus inside the root answered differently (error %v)", isErr)
	}

	text, isErr = call(t, cs, ToolAssemble, map[string]any{"diff_rev": "HEAD", "budget": map[string]any{"maxTokens": 800}}, &out)
	if isErr || !strings.Contains(text, `"WA": 650`) {
		t.Fatalf("diff_rev HEAD: error %v, the changed line is not shown:\n%s", isErr, text)
	}
	if msg, isErr := call(t, cs, ToolAssemble, map[string]any{"diff_rev": "no-such-branch"}, nil); !isErr || !strings.Contains(msg, "diff_rev") {
		t.Fatalf("a bad revision: %v %s", isErr, msg)
	}
}

func TestAssembleErrors(t *testing.T) {
	root := writeFixture(t)
	outside := t.TempDir()
	cs := newSession(t, root)
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"nothing", map[string]any{}, "query"},
		{"blank query", map[string]any{"query": "  "}, "query"},
		{"diff and diff_rev", map[string]any{"diff": "x", "diff_rev": "HEAD"}, "diff_rev"},
		{"focus without a line", map[string]any{"focus": "cart/cart.go"}, "focus"},
		{"focus line 0", map[string]any{"focus": "cart/cart.go:0"}, "focus"},
		{"focus past the end", map[string]any{"focus": "cart/cart.go:999"}, "past the end of cart/cart.go"},
		{"focus outside by ..", map[string]any{"focus": "../x.go:1"}, "outside the root"},
		{"focus outside, absolute", map[string]any{"focus": filepath.Join(outside, "x.go") + ":1"}, "outside the root"},
		{"focus not indexed", map[string]any{"focus": ".env:1"}, "not indexed"},
		{"unknown format", map[string]any{"query": "tax", "format": "html"}, "format"},
		{"unknown encoding", map[string]any{"query": "tax", "encoding": "gpt9"}, "encoding"},
		{"negative budget", map[string]any{"query": "tax", "budget": map[string]any{"maxTokens": -3}}, "maxTokens"},
		{"huge budget", map[string]any{"query": "tax", "budget": map[string]any{"maxTokens": 1e12}}, "maxTokens"},
		{"wrong type", map[string]any{"query": 42}, "query"},
		{"unknown argument", map[string]any{"query": "tax", "colour": "red"}, "colour"},
		{"bad glob", map[string]any{"query": "tax", "include": []string{"[abc"}}, "include"},
		{"unknown root", map[string]any{"query": "tax", "root": "/nowhere"}, "root"},
		{"option as revision", map[string]any{"diff_rev": "--output=/tmp/x"}, "diff_rev"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg, isErr := call(t, cs, ToolAssemble, tc.args, nil)
			if !isErr || !strings.Contains(msg, tc.want) {
				t.Fatalf("error %v %q, want an error naming %q", isErr, msg, tc.want)
			}
		})
	}
	// An unknown tool is a protocol error.
	if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "no_such_tool"}); err == nil {
		t.Fatal("an unknown tool did not fail")
	}
}

func TestExpand(t *testing.T) {
	root := writeFixture(t)
	cs := newSession(t, root)
	var out AssembleOutput
	_, isErr := call(t, cs, ToolAssemble, map[string]any{"query": "cart checkout total tax region", "budget": map[string]any{"maxTokens": 150}}, &out)
	if isErr || len(out.Omitted) == 0 {
		t.Fatalf("want omissions at a budget of 150: %+v", out)
	}
	var h OmittedInfo
	for _, o := range out.Omitted {
		if o.Tokens > 0 {
			h = o
			break
		}
	}
	var ex ExpandOutput
	text, isErr := call(t, cs, ToolExpand, map[string]any{"handles": []string{h.Handle}, "index_state": out.Stats.IndexState}, &ex)
	if isErr || !ex.FromHeldState || len(ex.Parts) != 1 || ex.Parts[0].Path != h.Path || !strings.Contains(text, h.Path) {
		t.Fatalf("expand %s: error %v, %+v\n%s", h.Handle, isErr, ex, text)
	}
	text, isErr = call(t, cs, ToolExpand, map[string]any{"path": "tax/rates.go", "lines": "13-16"}, &ex)
	if isErr || !strings.Contains(text, "func RateFor") || ex.FromHeldState {
		t.Fatalf("expand by path: error %v\n%s", isErr, text)
	}
	_, isErr = call(t, cs, ToolExpand, map[string]any{"handles": []string{h.Handle}, "index_state": "0123"}, &ex)
	if isErr || ex.FromHeldState || !strings.Contains(ex.Stats.Note, "no longer held") {
		t.Fatalf("expand from a state not held: %+v", ex)
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "handles"},
		{map[string]any{"handles": []string{"nohash"}}, "handles"},
		{map[string]any{"handles": []string{"../secret.go#L1-3"}}, "outside the root"},
		{map[string]any{"path": "tax/rates.go"}, "lines"},
		{map[string]any{"path": "tax/rates.go", "lines": "x-y"}, "lines"},
		{map[string]any{"path": "/etc/passwd", "lines": "1-3"}, "outside the root"},
		{map[string]any{"handles": []string{h.Handle}, "path": "tax/rates.go", "lines": "1"}, "path"},
	} {
		if msg, isErr := call(t, cs, ToolExpand, tc.args, nil); !isErr || !strings.Contains(msg, tc.want) {
			t.Errorf("expand %v: error %v %q, want one naming %q", tc.args, isErr, msg, tc.want)
		}
	}
}

func TestFindSymbol(t *testing.T) {
	root := writeFixture(t)
	cs := newSession(t, root)
	var out FindSymbolOutput
	text, isErr := call(t, cs, ToolFindSymbol, map[string]any{"name": "RateFor", "references": true}, &out)
	if isErr || len(out.Definitions) != 1 {
		t.Fatalf("RateFor: error %v %+v\n%s", isErr, out, text)
	}
	d := out.Definitions[0]
	if d.Path != "tax/rates.go" || d.StartLine != 12 || !strings.HasPrefix(d.Signature, "func RateFor(region string) int64") ||
		!strings.Contains(d.Doc, "returns the tax rate") || d.Handle != "tax/rates.go#L12-16" {
		t.Fatalf("definition %+v", d)
	}
	if len(out.References) == 0 || out.References[0].Symbol != "tax.Compute" {
		t.Fatalf("references %+v", out.References)
	}
	// A qualified name narrows to the right unit.
	if _, isErr := call(t, cs, ToolFindSymbol, map[string]any{"name": "Cart.Add"}, &out); isErr || len(out.Definitions) == 0 || out.Definitions[0].Symbol != "Add" {
		t.Fatalf("Cart.Add: %+v", out)
	}
	// Python too.
	if _, isErr := call(t, cs, ToolFindSymbol, map[string]any{"name": "total_revenue"}, &out); isErr || len(out.Definitions) != 1 || out.Definitions[0].Path != "scripts/report.py" {
		t.Fatalf("total_revenue: %+v", out)
	}
	text, isErr = call(t, cs, ToolFindSymbol, map[string]any{"name": "NoSuchThing"}, &out)
	if isErr || len(out.Definitions) != 0 || !strings.Contains(text, "No definition of NoSuchThing") {
		t.Fatalf("missing name: %v %s", isErr, text)
	}
	// The budget holds: a tiny one lists less and says so.
	text, _ = call(t, cs, ToolFindSymbol, map[string]any{"name": "RateFor", "references": true, "budget": map[string]any{"maxTokens": 20}}, &out)
	if out.Tokens > 20 || !out.Truncated {
		t.Fatalf("budget 20: %d tokens, truncated %v\n%s", out.Tokens, out.Truncated, text)
	}
	if n := countTokens(t, text); n > 20 {
		t.Fatalf("listing is %d tokens", n)
	}
	if msg, isErr := call(t, cs, ToolFindSymbol, map[string]any{"name": "two words"}, nil); !isErr || !strings.Contains(msg, "name") {
		t.Fatalf("bad name: %v %s", isErr, msg)
	}
}

func TestIndexStatus(t *testing.T) {
	root := writeFixture(t)
	cs := newSession(t, root)
	call(t, cs, ToolFindSymbol, map[string]any{"name": "Cart"}, nil) // waits for the build
	var out IndexStatusOutput
	if _, isErr := call(t, cs, ToolIndexStatus, map[string]any{}, &out); isErr || len(out.Roots) != 1 {
		t.Fatalf("%+v", out)
	}
	st := out.Roots[0]
	if st.Root != root || st.State != "ready" || !st.Complete || st.Files < 5 || st.Chunks < 10 || len(st.StateRoot) != 64 || !st.Watching {
		t.Fatalf("status %+v", st)
	}
	if st.Skipped["secret"] == 0 && len(st.Skipped) == 0 {
		t.Fatalf("the .env file is not reported as skipped: %+v", st.Skipped)
	}
}

// TestWatchSeesChanges: a file written, changed or deleted on disk is seen
// by the very next call.
func TestWatchSeesChanges(t *testing.T) {
	root := writeFixture(t)
	cs := newSession(t, root)
	var out FindSymbolOutput
	call(t, cs, ToolFindSymbol, map[string]any{"name": "Cart"}, nil)
	p := filepath.Join(root, "ship", "ship.go")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(body string) {
		if err := os.WriteFile(p, []byte("package ship\n\n"+body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("// ShippingCost prices a parcel.\nfunc ShippingCost(grams int) int64 { return int64(grams) }\n")
	found := func(name string) bool {
		t.Helper()
		if _, isErr := call(t, cs, ToolFindSymbol, map[string]any{"name": name}, &out); isErr {
			t.Fatal("error")
		}
		return len(out.Definitions) == 1 && out.Definitions[0].Path == "ship/ship.go"
	}
	if !found("ShippingCost") {
		t.Fatal("a new file in a new directory was not seen by the next call")
	}
	write("func FreightCost(kg int) int64 { return int64(kg) }\n")
	if !found("FreightCost") || found("ShippingCost") {
		t.Fatal("a changed file was not seen by the next call")
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if found("FreightCost") {
		t.Fatal("a deleted file was still served")
	}
}

// TestNoWatchRefreshes: with watching off, each call refreshes first.
func TestNoWatchRefreshes(t *testing.T) {
	root := writeFixture(t)
	opts := testOptions(root)
	opts.NoWatch = true
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv, nil)
	var out FindSymbolOutput
	call(t, cs, ToolFindSymbol, map[string]any{"name": "Cart"}, nil)
	if err := os.WriteFile(filepath.Join(root, "tax", "duty.go"), []byte("package tax\n\nfunc Duty() int { return 1 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if call(t, cs, ToolFindSymbol, map[string]any{"name": "Duty"}, &out); len(out.Definitions) != 1 {
		t.Fatalf("an unwatched root did not refresh before the call: %+v", out)
	}
}

// TestClientRoots: without --root, the client's roots are served.
func TestClientRoots(t *testing.T) {
	a, b := writeFixture(t), t.TempDir()
	if err := os.WriteFile(filepath.Join(b, "lib.py"), []byte("def only_in_b():\n    return 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, _ = filepath.EvalSymlinks(b)
	opts := testOptions()
	opts.ClientRoots = true
	opts.WorkDir = t.TempDir()
	opts.Logf = t.Logf
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := srv.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	//lint:ignore SA1019 the server serves the roots of clients of the protocol versions before 2026-07-28
	client.AddRoots(&sdk.Root{URI: "file://" + a, Name: "shop"}, &sdk.Root{URI: "file://" + b})
	// Roots are offered by clients of the protocols before 2026-07-28
	// (which deprecates them).
	cs, err := client.Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait(); srv.Close() }()
	var st2 IndexStatusOutput
	call(t, cs, ToolIndexStatus, nil, &st2)
	if len(st2.Roots) != 2 || st2.Roots[0].Root != a || st2.Roots[1].Root != b {
		t.Fatalf("roots %+v, want %s and %s", st2.Roots, a, b)
	}
	var out FindSymbolOutput
	if call(t, cs, ToolFindSymbol, map[string]any{"name": "only_in_b", "root": filepath.Base(b)}, &out); len(out.Definitions) != 1 || out.Root != b {
		t.Fatalf("root by name: %+v", out)
	}
	if call(t, cs, ToolFindSymbol, map[string]any{"name": "RateFor"}, &out); len(out.Definitions) != 1 || out.Root != a {
		t.Fatalf("default root: %+v", out)
	}
}

// slowLister delays the listing of a build, so that calls meet an index
// still being built.
// slowLister holds the listing until release is closed.
type slowLister struct {
	index.WalkLister
	release <-chan struct{}
}

func (l *slowLister) List(ctx context.Context, root string) ([]index.Entry, []index.Skipped, error) {
	select {
	case <-l.release:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	return l.WalkLister.List(ctx, root)
}

// TestPartialIndexAndProgress: a call waits at most IndexWait for the build,
// sends progress notifications meanwhile, then answers from the partial
// index with indexComplete false. The listing is held until the test ends,
// so that a slow machine cannot finish the build before the call answers.
func TestPartialIndexAndProgress(t *testing.T) {
	root := writeFixture(t)
	opts := testOptions(root)
	opts.IndexWait = 1200 * time.Millisecond
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	opts.IndexOptions = func(string) index.Options {
		return index.Options{InMemory: true, Lister: &slowLister{release: release}}
	}
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	var mu sync.Mutex
	var progress []float64
	cs := connect(t, srv, &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
		mu.Lock()
		progress = append(progress, r.Params.Progress)
		mu.Unlock()
	}})
	params := &sdk.CallToolParams{Name: ToolAssemble, Arguments: map[string]any{"query": "tax"}}
	params.SetProgressToken("p1")
	start := time.Now()
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	if d := time.Since(start); d > opts.IndexWait+10*time.Second {
		t.Fatalf("the call blocked %v on indexing", d)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out AssembleOutput
	json.Unmarshal(b, &out)
	if out.Stats.IndexComplete {
		t.Fatal("indexComplete is true while the build is running")
	}
	// The text the model reads says so, first.
	if text := res.Content[0].(*sdk.TextContent).Text; !strings.HasPrefix(text, "Note: the index of "+root+" is still being built") {
		t.Errorf("a partial answer's text does not say so:\n%s", text)
	}
	// Notifications are handled apart from the answer: give the last a
	// moment to arrive.
	n := 0
	for wait := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		n = len(progress)
		mu.Unlock()
		if n >= 2 || time.Now().After(wait) {
			break
		}
	}
	if n < 2 {
		t.Fatalf("%d progress notifications while waiting, want ≥ 2", n)
	}
	var st IndexStatusOutput
	call(t, cs, ToolIndexStatus, nil, &st)
	if st.Roots[0].State != "building" || st.Roots[0].Complete {
		t.Fatalf("status during the build: %+v", st.Roots[0])
	}
}

// TestDocsNameEveryArgument: docs/mcp.md names every argument of every
// tool (as `name`), so that the prose does not drift from the schemas.
func TestDocsNameEveryArgument(t *testing.T) {
	doc, err := os.ReadFile("../../docs/mcp.md")
	if err != nil {
		t.Fatal(err)
	}
	cs := newSession(t, writeFixture(t))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if !strings.Contains(string(doc), "### `"+tool.Name+"`") {
			t.Errorf("docs/mcp.md has no section for %s", tool.Name)
		}
		props, _ := tool.InputSchema.(map[string]any)["properties"].(map[string]any)
		for name := range props {
			if !strings.Contains(string(doc), "`"+name+"`") {
				t.Errorf("docs/mcp.md does not name %s's argument %s", tool.Name, name)
			}
		}
	}
}

// TestNoInputCrashes: random arguments of random types to every tool get a
// result (an error or not), never a crash or a hang, and the server keeps
// answering.
func TestNoInputCrashes(t *testing.T) {
	root := writeFixture(t)
	cs := newSession(t, root)
	rnd := rand.New(rand.NewPCG(1, 2))
	values := []any{nil, true, 0, -1, 1e300, "", "x", "cart/cart.go:3", "../../etc/passwd:1", "\xff\xfe", strings.Repeat("a", 70000),
		"tax/rates.go#L1-999999", "HEAD", "review", "**/*.go", "[", []any{}, []any{"a", 1}, map[string]any{}, map[string]any{"maxTokens": -5},
		map[string]any{"maxTokens": 3, "perFile": 1e9}, "main...HEAD", "0-0", "99999999-1"}
	keys := []string{"query", "focus", "diff", "diff_rev", "budget", "encoding", "format", "strategy", "mode", "include", "exclude",
		"root", "handles", "path", "lines", "index_state", "name", "references"}
	tools := []string{ToolAssemble, ToolExpand, ToolFindSymbol, ToolIndexStatus}
	for i := 0; i < 300; i++ {
		args := map[string]any{}
		for n := rnd.IntN(4); n >= 0; n-- {
			args[keys[rnd.IntN(len(keys))]] = values[rnd.IntN(len(values))]
		}
		tool := tools[rnd.IntN(len(tools))]
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		cancel()
		if err != nil {
			t.Fatalf("%s %v: %v", tool, args, err)
		}
	}
	var out FindSymbolOutput
	if _, isErr := call(t, cs, ToolFindSymbol, map[string]any{"name": "RateFor"}, &out); isErr || len(out.Definitions) != 1 {
		t.Fatal("the server stopped answering after bad input")
	}
}

// TestAssembleEmptySaysWhy: a context with nothing in it says why, in the
// text the model reads and in stats.note — a folder with no file, and a
// question that nothing in the index matches — never a bare "(nothing to
// show)".
func TestAssembleEmptySaysWhy(t *testing.T) {
	cases := []struct {
		name, root, want string
		include          []string
	}{
		{"no match", writeFixture(t), "no candidate: nothing in the index (", []string{"**/*.nothing"}},
		{"empty folder", t.TempDir(), "the index holds no file", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := tc.root
			if real, err := filepath.EvalSymlinks(root); err == nil {
				root = real
			}
			cs := newSession(t, root)
			args := map[string]any{"query": "zqxjv wvkpq", "budget": map[string]any{"maxTokens": 300}}
			if tc.include != nil {
				args["include"] = tc.include
			}
			var out AssembleOutput
			text, isErr := call(t, cs, ToolAssemble, args, &out)
			if isErr {
				t.Fatalf("error: %s", text)
			}
			if len(out.Parts) != 0 {
				t.Fatalf("%d parts for words nothing holds", len(out.Parts))
			}
			if !strings.Contains(out.Stats.Note, tc.want) {
				t.Fatalf("stats.note %q, want it to say %q", out.Stats.Note, tc.want)
			}
			if !strings.HasPrefix(text, "(nothing to show: "+out.Stats.Note) {
				t.Fatalf("text %q does not give the reason", text)
			}
		})
	}
}
