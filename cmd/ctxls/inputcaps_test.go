package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// inputcapsRun runs the real binary with stdin and a deadline; it returns
// the exit status, stderr, and whether the deadline passed.
func inputcapsRun(t *testing.T, stdin io.Reader, args ...string) (int, string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), runAsMain+"=1")
	cmd.Stdin = stdin
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return -1, stderr.String(), true
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stderr.String(), false
}

// endless is a reader that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// TestInputCaps: an endless --query-file or --diff-file stream is refused
// with one line naming the flag and the limit, after reading no more than
// the limit (it ran out of memory before); the MCP tool and the language
// server refuse an oversized query the same way.
func TestInputCaps(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\nfunc A() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	big := filepath.Join(t.TempDir(), "question.txt")
	if err := os.WriteFile(big, []byte(strings.Repeat("how are ranges stitched ", 300<<10/24)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args  []string
		stdin io.Reader
		want  string
	}{
		{[]string{"--query-file", "/dev/zero"}, nil, "--query-file: /dev/zero is longer than the 256 KiB"},
		{[]string{"--query-file", "-"}, endless{}, "--query-file: - is longer than the 256 KiB"},
		{[]string{"--diff-file", "-"}, endless{}, "--diff-file: - is longer than the 16 MiB"},
		{[]string{"--query-file", big}, nil, "--query-file: " + big + " is longer than the 256 KiB"},
	} {
		args := append([]string{"assemble", "--root", root, "--cache-dir", cache}, c.args...)
		code, stderr, hung := inputcapsRun(t, c.stdin, args...)
		name := strings.Join(c.args, " ")
		if len(name) > 60 {
			name = name[:60] + "…"
		}
		if hung {
			t.Fatalf("%s: did not end", name)
		}
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != 2 || len(lines) != 1 || !strings.Contains(lines[0], c.want) {
			t.Errorf("%s: status %d, stderr:\n%s\nwant status 2 and one line with %q", name, code, stderr, c.want)
		}
	}

	cmd := exec.Command(os.Args[0], "mcp", "--root", root, "--cache-dir", t.TempDir(), "--no-watch")
	cmd.Env = append(os.Environ(), runAsMain+"=1")
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "assemble_context",
		Arguments: map[string]any{"query": strings.Repeat("q", 300<<10)}})
	if err != nil {
		t.Fatal(err)
	}
	if text := toolText(res); !res.IsError || !strings.Contains(text, "query") || !strings.Contains(text, "256 KiB") {
		t.Errorf("MCP: an oversized query answered (error %v): %.200s", res.IsError, text)
	}

	f := newFace(t)
	addr, _, _ := f.start(t, "--listen", ":0")
	c := dial(t, addr)
	if m := c.call("initialize", initParams(fileURI(f.root), map[string]any{"token": f.token})); m.Error != nil {
		t.Fatalf("initialize: %s", m.Error.Message)
	}
	c.notify("initialized", map[string]any{})
	m := c.call("context/assemble", map[string]any{"query": strings.Repeat("q", 300<<10)})
	if m.Error == nil || m.Error.Code != -32602 || !strings.Contains(m.Error.Message, "256 KiB") {
		t.Errorf("LSP: an oversized query: %+v, want InvalidParams naming the limit", m.Error)
	}
}
