package lsp

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/ctxls/ctxls/internal/history/historytest"
)

// TestGitHistory: in a folder that is a git checkout, the file that
// changed with the diff's file in past commits is a history candidate of
// context/assemble; the setting gitHistory: false leaves it out.
func TestGitHistory(t *testing.T) {
	root := historytest.Repo(t)
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
		raw := mustResult[json.RawMessage](t, c.call(methodContextAssemble, map[string]any{"diff": historytest.Diff, "explain": true}))
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
