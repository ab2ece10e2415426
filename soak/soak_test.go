package soak

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ctxlsBin is the ctxls binary the tests run, built once by TestMain.
var ctxlsBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ctxls-soak-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctxlsBin = filepath.Join(dir, "ctxls")
	cmd := exec.Command("go", "build", "-o", ctxlsBin, "github.com/ctxls/ctxls/cmd/ctxls")
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build ctxls: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestSoakShort is the short soak of `make test`: 3 LSP sessions × 8 s
// on ≈ 70 files of Go's src after an idle session, then 2 MCP clients ×
// 4 s (with -short, as `make race` runs it: 2 sessions × 4 s). Every
// promise must hold, and the workload must have exercised what it checks.
func TestSoakShort(t *testing.T) {
	cfg := Config{
		Binary: ctxlsBin, WorkDir: t.TempDir(), Packages: ShortPackages,
		Sessions: 3, Duration: 8 * time.Second, IdleDuration: 3 * time.Second,
		MCPClients: 2, MCPDuration: 4 * time.Second, FolderGap: 2 * time.Second,
		Timeout: 30 * time.Second, Logf: t.Logf,
	}
	if testing.Short() {
		cfg.Sessions, cfg.Duration, cfg.IdleDuration, cfg.MCPDuration = 2, 4*time.Second, 2*time.Second, 2*time.Second
	}
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	rep.WriteText(&sb)
	t.Logf("report:\n%s", sb.String())
	if !rep.Pass {
		t.Errorf("promises broken under load:\n%s", strings.Join(rep.Problems, "\n"))
	}
	l := rep.Load
	for what, n := range map[string]int{
		"checked answers":          l.Checks.Answers,
		"buffer parts":             l.Checks.BufferParts,
		"disk parts":               l.Checks.DiskParts,
		"cancelled requests":       l.Methods[mAssemble].Cancelled,
		"context/expand requests":  l.Methods[mExpand].Requests,
		"didChange notifications":  l.Notifications["textDocument/didChange"],
		"workspace folder changes": l.Notifications["workspace/didChangeWorkspaceFolders"],
		"idle answers":             rep.Idle.Checks.Answers,
		"MCP answers":              rep.MCP.Checks.Answers,
		"MCP files seen fresh":     rep.MCP.Fresh,
		"RSS samples":              len(rep.RSS),
		"goroutine count":          rep.Goroutines.End,
	} {
		if n == 0 {
			t.Errorf("the workload did not exercise it: %s = 0", what)
		}
	}
	if _, err := os.Stat(rep.Logs[0]); err != nil {
		t.Errorf("the server log: %v", err)
	}
}
