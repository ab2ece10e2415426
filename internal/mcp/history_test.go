package mcp

import (
	"testing"

	"github.com/ctxls/ctxls/internal/history/historytest"
)

// TestGitHistory: in a root that is a git checkout, assemble_context
// shows the file that changed with the diff's file in past commits, which
// shares no word with the diff while twenty other files do; a server
// started with NoGitHistory (ctxls mcp --git-history=false) does not.
func TestGitHistory(t *testing.T) {
	root := historytest.Repo(t)
	shown := func(opts Options) bool {
		t.Helper()
		srv, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		srv.Start()
		cs := connect(t, srv, nil)
		var out AssembleOutput
		text, isErr := call(t, cs, ToolAssemble, map[string]any{"diff": historytest.Diff, "budget": map[string]any{"maxTokens": 1000}}, &out)
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
