package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// facesWorkspace copies the language server's test workspace (a small Go
// module: cart, pricing, textutil) into a new root.
func facesWorkspace(t *testing.T) string {
	t.Helper()
	src, err := filepath.Abs("../../internal/lsp/testdata/workspace")
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestSameContextThroughEveryFace: one request — a question, a cursor, a
// diff — on one tree renders the same context through `ctxls assemble`,
// `ctxls serve` and `ctxls mcp` (the faces only decode and shape; the
// workspace layer and the engine are one).
func TestSameContextThroughEveryFace(t *testing.T) {
	root := facesWorkspace(t)
	const budget = "1200"
	diff := "diff --git a/pricing/tax.go b/pricing/tax.go\n--- a/pricing/tax.go\n+++ b/pricing/tax.go\n@@ -21,3 +21,4 @@\n func Tax(region string, cents int64) int64 {\n+\t// half up, as the till does\n \treturn (cents*RateFor(region) + 5000) / 10000\n }\n"
	cases := []struct {
		name  string
		cli   []string
		lsp   map[string]any
		mcp   map[string]any
		diffs bool
	}{
		{name: "question",
			cli: []string{"--query", "how is the cart total computed with tax"},
			lsp: map[string]any{"query": "how is the cart total computed with tax"},
			mcp: map[string]any{"query": "how is the cart total computed with tax"}},
		{name: "cursor",
			cli: []string{"--focus", "cart/cart.go:44:1"},
			lsp: map[string]any{"focus": map[string]any{"uri": fileURI(filepath.Join(root, "cart", "cart.go")), "position": map[string]any{"line": 43, "character": 0}}},
			mcp: map[string]any{"focus": "cart/cart.go:44:1"}},
		{name: "diff", diffs: true,
			lsp: map[string]any{"diff": diff},
			mcp: map[string]any{"diff": diff}},
	}

	// The CLI, one process per request, with the index it keeps.
	cliCache := t.TempDir()
	diffFile := filepath.Join(t.TempDir(), "change.diff")
	if err := os.WriteFile(diffFile, []byte(diff), 0o644); err != nil {
		t.Fatal(err)
	}
	cliOut := map[string]string{}
	for _, c := range cases {
		args := append([]string{"assemble", "--root", root, "--cache-dir", cliCache, "--budget", budget, "--embeddings", "off"}, c.cli...)
		if c.diffs {
			args = append(args, "--diff-file", diffFile)
		}
		code, out, errOut := secretFacesRun(t, args...)
		if code != 0 || out == "" {
			t.Fatalf("%s: ctxls assemble: status %d, %d bytes\n%s", c.name, code, len(out), errOut)
		}
		cliOut[c.name] = out
	}

	// ctxls serve, on a socket.
	f := newFace(t)
	addr, _, _ := startServe(t, []string{"--token-file", f.tokenFile, "--root", root, "--cache-dir", t.TempDir(), "--listen", ":0", "--embeddings", "off"})
	lc := dial(t, addr)
	if m := lc.call("initialize", initParams(fileURI(root), map[string]any{"token": f.token})); m.Error != nil {
		t.Fatalf("initialize: %s", m.Error.Message)
	}
	lc.notify("initialized", map[string]any{})

	// ctxls mcp, on stdio.
	cmd := exec.Command(os.Args[0], "mcp", "--root", root, "--cache-dir", t.TempDir(), "--embeddings", "off")
	cmd.Env = append(os.Environ(), runAsMain+"=1")
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	for _, c := range cases {
		lp := map[string]any{"budget": map[string]any{"maxTokens": 1200}}
		for k, v := range c.lsp {
			lp[k] = v
		}
		if got := lc.assemble(lp); got != cliOut[c.name] {
			t.Errorf("%s: ctxls serve and ctxls assemble differ:\n--- serve\n%s\n--- assemble\n%s", c.name, got, cliOut[c.name])
		}
		mp := map[string]any{"budget": map[string]any{"maxTokens": 1200}}
		for k, v := range c.mcp {
			mp[k] = v
		}
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "assemble_context", Arguments: mp})
		if err != nil || res.IsError || len(res.Content) == 0 {
			t.Fatalf("%s: assemble_context: %v %s", c.name, err, toolText(res))
		}
		// The first block is the context; a second lists what was left out.
		text := res.Content[0].(*sdk.TextContent).Text
		if text != cliOut[c.name] {
			t.Errorf("%s: ctxls mcp and ctxls assemble differ:\n--- mcp\n%s\n--- assemble\n%s", c.name, text, cliOut[c.name])
		}
		if !strings.Contains(text, "```") {
			t.Errorf("%s: no code in the context:\n%s", c.name, text)
		}
	}
}
