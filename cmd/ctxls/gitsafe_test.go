package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/internal/history/historytest"
)

// gitsafeMCP starts `ctxls mcp` (stdio) on root, the real binary, and
// connects the MCP Go SDK's client to it.
func gitsafeMCP(t *testing.T, root string) *sdk.ClientSession {
	t.Helper()
	cmd := exec.Command(os.Args[0], "mcp", "--root", root, "--cache-dir", t.TempDir(), "--no-watch")
	cmd.Env = append(os.Environ(), runAsMain+"=1")
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// toolText joins a tool result's text blocks.
func toolText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestDiffRunsNoRepositoryProgram: `ctxls assemble --diff` and the MCP
// tool's diff_rev, on a checkout whose .git/config names programs
// (fsmonitor, filter drivers, external diff, textconv, pager), answer with
// the change and run none of them — nor does the history channel, on by
// default.
func TestDiffRunsNoRepositoryProgram(t *testing.T) {
	root := historytest.Repo(t)
	ran := historytest.Arm(t, root)

	cmd := exec.Command(os.Args[0], "assemble", "--root", root, "--cache-dir", t.TempDir(),
		"--diff", "HEAD", "--budget", "2000", "--embeddings", "off")
	cmd.Env = append(os.Environ(), runAsMain+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("ctxls assemble --diff HEAD: %v\n%s", err, out)
	}
	// books/ledger.go changed in every commit with the handler: the
	// history channel (git log) found it.
	if !strings.Contains(string(out), "books/ledger.go") {
		t.Errorf("the context lacks the file changed with the handler:\n%s", out)
	}
	if got := ran(); len(got) > 0 {
		t.Fatalf("ctxls assemble --diff ran the repository's programs %v", got)
	}

	cs := gitsafeMCP(t, root)
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "assemble_context",
		Arguments: map[string]any{"diff_rev": "HEAD", "budget": map[string]any{"maxTokens": 2000}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || !strings.Contains(toolText(res), "books/ledger.go") {
		t.Errorf("assemble_context diff_rev HEAD (error %v):\n%s", res.IsError, toolText(res))
	}
	if got := ran(); len(got) > 0 {
		t.Fatalf("ctxls mcp's diff_rev ran the repository's programs %v", got)
	}
}
