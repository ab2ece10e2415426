package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestBroadRootRefused: `ctxls mcp` started in the home directory with no
// root refuses to index it — each call answers with an error saying why,
// at once, instead of indexing every file of the user; `ctxls mcp --root`
// of "/" or the home directory exits 2 at start; `ctxls assemble --root /`
// is bad usage.
func TestBroadRootRefused(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "notes.go"), []byte("package notes\n\nfunc Notes() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir  string
		args []string
		want string
	}{
		{home, nil, "home directory"},
	} {
		cmd := exec.Command(os.Args[0], append([]string{"mcp", "--cache-dir", t.TempDir(), "--no-watch"}, c.args...)...)
		cmd.Dir = c.dir
		cmd.Env = append(os.Environ(), runAsMain+"=1", "HOME="+home)
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "assemble_context", Arguments: map[string]any{"query": "notes"}})
		cancel()
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if text := toolText(res); !res.IsError || !strings.Contains(text, c.want) {
			t.Errorf("mcp %v in %s: error %v, text %q; want an error naming the %s", c.args, c.dir, res.IsError, text, c.want)
		}
		cs.Close()
	}
	// Named on the command line, such a root is refused at start.
	for _, root := range []string{"/", home} {
		cmd := exec.Command(os.Args[0], "mcp", "--root", root, "--cache-dir", t.TempDir())
		cmd.Env = append(os.Environ(), runAsMain+"=1", "HOME="+home)
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || strings.Count(strings.TrimSpace(string(out)), "\n") != 0 {
			t.Errorf("mcp --root %s: %v, output %q; want status 2 and one line", root, err, out)
		}
	}
	code, stderr, hung := inputcapsRun(t, nil, "assemble", "--root", "/", "--query", "x", "--cache-dir", t.TempDir())
	if hung || code != 2 || !strings.Contains(stderr, "root of the file system") {
		t.Errorf("assemble --root /: status %d, stderr %q", code, stderr)
	}
}
