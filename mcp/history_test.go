package mcp

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGitHistory: in a root that is a git checkout, assemble_context
// shows the file that changed with the diff's file in past commits, which
// shares no word with the diff while twenty other files do; a server
// started with NoGitHistory (ctxls mcp --git-history=false) does not.
func TestGitHistory(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is needed (make test installs it): %v", err)
	}
	root := t.TempDir()
	files := map[string]string{
		"go.mod":          "module example.com/ws\n",
		"svc/handler.go":  "package svc\n\n// Dispatch serves a request.\nfunc Dispatch(req string) string {\n\treturn req\n}\n",
		"books/ledger.go": "package books\n\n// Post books an entry.\nfunc Post(entry int) int {\n\treturn entry * 2\n}\n",
	}
	for i := range 20 {
		var b strings.Builder
		fmt.Fprintf(&b, "package svc\n\n// Serve%d serves a request with a response.\nfunc Serve%d(req string) string {\n", i, i)
		for j := range 12 {
			fmt.Fprintf(&b, "\treq = req + \"response %d\" // serve the request\n", j)
		}
		b.WriteString("\treturn req\n}\n")
		files[fmt.Sprintf("svc/serve%02d.go", i)] = b.String()
	}
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
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
	git("commit", "-qm", "start")
	for _, msg := range []string{"one", "two"} {
		for _, p := range []string{"svc/handler.go", "books/ledger.go"} {
			f, err := os.OpenFile(filepath.Join(root, filepath.FromSlash(p)), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("// " + msg + "\n")
			f.Close()
		}
		git("commit", "-qam", msg)
	}
	diff := "--- a/svc/handler.go\n+++ b/svc/handler.go\n@@ -5,1 +5,1 @@\n-\treturn req\n+\treturn req + \" response\"\n"
	shown := func(opts Options) bool {
		t.Helper()
		srv, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		srv.Start()
		cs := connect(t, srv, nil)
		var out AssembleOutput
		text, isErr := call(t, cs, ToolAssemble, map[string]any{"diff": diff, "budget": map[string]any{"maxTokens": 1000}}, &out)
		if isErr {
			t.Fatalf("assemble_context: %s", text)
		}
		for _, p := range out.Parts {
			if p.Path == "books/ledger.go" {
				return true
			}
		}
		return false
	}
	if !shown(testOptions(root)) {
		t.Error("books/ledger.go, changed twice with svc/handler.go, is not shown")
	}
	off := testOptions(root)
	off.NoGitHistory = true
	if shown(off) {
		t.Error("NoGitHistory: books/ledger.go is shown all the same")
	}
}
