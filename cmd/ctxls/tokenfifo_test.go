//go:build unix

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTokenFileFIFO: a named pipe as the token file (--token-file or
// $CTXLS_TOKEN_FILE) is refused at once with one line and status 2, by
// both network faces — opening it used to wait for a writer for ever.
func TestTokenFileFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "token")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for _, c := range []struct {
		args []string
		env  string
	}{
		{args: []string{"serve", "--listen", "127.0.0.1:0", "--token-file", fifo, "--root", root}},
		{args: []string{"mcp", "--http", "127.0.0.1:0", "--token-file", fifo, "--root", root}},
		{args: []string{"serve", "--listen", "127.0.0.1:0", "--root", root}, env: fifo},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cmd := exec.CommandContext(ctx, os.Args[0], c.args...)
		cmd.Env = append(os.Environ(), runAsMain+"=1", "CTXLS_TOKEN_FILE="+c.env, "XDG_RUNTIME_DIR="+t.TempDir())
		out, err := cmd.CombinedOutput()
		hung := ctx.Err() != nil
		cancel()
		if hung {
			t.Fatalf("%v (CTXLS_TOKEN_FILE=%q) hung on a FIFO token file", c.args, c.env)
		}
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 2 {
			t.Errorf("%v: %v, want exit status 2\n%s", c.args, err, out)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) != 1 || !strings.Contains(lines[0], "named pipe") || !strings.Contains(lines[0], fifo) {
			t.Errorf("%v: want one line naming the file and why, got:\n%s", c.args, out)
		}
	}
}
