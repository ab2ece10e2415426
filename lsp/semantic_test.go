package lsp

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/ctxls/ctxls/history/historytest"
	"github.com/ctxls/ctxls/semantic/semantictest"
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

// TestEmbeddingsEndpoint: the settings embeddings "endpoint" and
// embeddingsEndpoint {url, model} take the vectors from the service; a
// mode endpoint without a valid service is reported as a bad setting.
func TestEmbeddingsEndpoint(t *testing.T) {
	root := historytest.Write(t, historytest.Files())
	svc := semantictest.Start(t)
	c := startServer(t, serverOptions(t, nil))
	c.initialize(map[string]any{"rootUri": pathToURI(root), "processId": os.Getpid(),
		"initializationOptions": map[string]any{"embeddings": "endpoint", "embeddingsEndpoint": map[string]any{"url": svc.URL, "model": "hashed"}}})
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
	deadline := time.Now().Add(20 * time.Second)
	for bySemantic() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no semantic candidate from the service's vectors")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(svc.Sent()) < 2 {
		t.Errorf("the service was sent %d texts", len(svc.Sent()))
	}
	if _, problems := defaultSettings().apply([]byte(`{"embeddingsEndpoint": {"url": "ftp://x", "model": "m"}}`), nil); len(problems) == 0 {
		t.Error("a bad embeddingsEndpoint was accepted")
	}
}
