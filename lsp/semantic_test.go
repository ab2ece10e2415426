package lsp

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/ctxls/ctxls/history/historytest"
)

// TestEmbeddings: the setting embeddings: "workspace" brings the semantic
// channel's candidates to context/assemble (once the folder's vectors are
// computed in the background); "off" takes them away.
func TestEmbeddings(t *testing.T) {
	root := historytest.Write(t, historytest.Files())
	c := startServer(t, serverOptions(t, nil))
	c.initialize(map[string]any{"rootUri": pathToURI(root), "processId": os.Getpid(),
		"initializationOptions": map[string]any{"embeddings": "workspace"}})
	bySemantic := func() int {
		t.Helper()
		var r struct {
			Explain []struct {
				Channels map[string]float64 `json:"channels"`
			} `json:"explain"`
		}
		raw := mustResult[json.RawMessage](t, c.call(methodContextAssemble, map[string]any{"query": "serve a request with a response", "explain": true}))
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range r.Explain {
			if e.Channels["semantic"] > 0 {
				n++
			}
		}
		return n
	}
	// The first request waits a little for the vectors; on a slow machine
	// a later one has them.
	deadline := time.Now().Add(20 * time.Second)
	for bySemantic() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no semantic candidate with embeddings: workspace")
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.notify(methodDidChangeConfiguration, map[string]any{"settings": map[string]any{"ctxls": map[string]any{"embeddings": "off"}}})
	if n := bySemantic(); n != 0 {
		t.Errorf("embeddings: off: %d semantic candidates", n)
	}
}
