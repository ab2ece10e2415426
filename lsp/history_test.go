package lsp

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGitHistory: in a folder that is a git checkout, the file that
// changed with the diff's file in past commits is a history candidate of
// context/assemble; the setting gitHistory: false leaves it out.
func TestGitHistory(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is needed (make test installs it): %v", err)
	}
	root := writeTree(t, map[string]string{
		"go.mod":          "module example.com/ws\n",
		"svc/handler.go":  "package svc\n\n// Dispatch serves a request.\nfunc Dispatch(req string) string {\n\treturn req\n}\n",
		"books/ledger.go": "package books\n\n// Post books an entry.\nfunc Post(entry int) int {\n\treturn entry * 2\n}\n",
	})
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.email=t@t", "-c", "user.name=t", "-c", "init.defaultBranch=main"}, args...)...)
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
	diff := "--- a/svc/handler.go\n+++ b/svc/handler.go\n@@ -5,1 +5,1 @@\n-\treturn req\n+\treturn req + \"!\"\n"
	c := startServer(t, serverOptions(t, nil))
	c.initialize(map[string]any{"rootUri": pathToURI(root), "processId": os.Getpid()})
	byHistory := func() bool {
		t.Helper()
		var r struct {
			Explain []struct {
				Path     string             `json:"path"`
				Channels map[string]float64 `json:"channels"`
			} `json:"explain"`
		}
		raw := mustResult[json.RawMessage](t, c.call(methodContextAssemble, map[string]any{"diff": diff, "explain": true}))
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		for _, e := range r.Explain {
			if e.Path == "books/ledger.go" && e.Channels["history"] > 0 {
				return true
			}
		}
		return false
	}
	if !byHistory() {
		t.Error("books/ledger.go, changed twice with svc/handler.go, is not a history candidate")
	}
	c.notify(methodDidChangeConfiguration, map[string]any{"settings": map[string]any{"ctxls": map[string]any{"gitHistory": false}}})
	if byHistory() {
		t.Error("gitHistory: false: books/ledger.go still comes from the history")
	}
}
