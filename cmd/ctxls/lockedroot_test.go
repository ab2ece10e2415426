package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/index"
)

// TestAssembleWhileAnotherHoldsTheIndex: with another ctxls holding the
// root's index (a server on the same root), `ctxls assemble` answers from
// a private index within a few seconds, saying so in one warning — it
// waited 10 s and failed with "index directory is locked" before.
func TestAssembleWhileAnotherHoldsTheIndex(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "ledger.go"), []byte("package ledger\n\n// Settle settles the ledger.\nfunc Settle() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(t.TempDir(), "idx")
	holder, err := index.Open(context.Background(), root, index.Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if err := holder.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cmd := exec.Command(os.Args[0], "assemble", "--root", root, "--cache-dir", cache, "--query", "settle the ledger", "--budget", "500")
	cmd.Env = append(os.Environ(), runAsMain+"=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ctxls assemble: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(string(out), "func Settle") {
		t.Errorf("the answer lacks Settle:\n%s", out)
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("took %v", d)
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "another ctxls keeps this root's index") {
		t.Errorf("stderr, want one warning:\n%s", stderr.String())
	}
}
