package lsp

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/history/historytest"
	"github.com/ctxls/ctxls/internal/semantic/semantictest"
)

// semanticServer starts a server on historytest's files with the given
// initialization options; count asks context/assemble a question and
// counts its semantic candidates; ready waits until there are some (the
// first request waits a little for the vectors; on a slow machine a later
// one has them).
func semanticServer(t *testing.T, init map[string]any) (c *fakeClient, count func() int, ready func(what string)) {
	root := historytest.Write(t, historytest.Files())
	c = startServer(t, serverOptions(t, nil))
	c.initialize(map[string]any{"rootUri": pathToURI(root), "processId": os.Getpid(), "initializationOptions": init})
	count = func() int {
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
	ready = func(what string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for count() == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("no semantic candidate %s", what)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return c, count, ready
}

// TestEmbeddings: the setting embeddings: "workspace" brings the semantic
// channel's candidates to context/assemble (once the folder's vectors are
// computed in the background); "off" takes them away.
func TestEmbeddings(t *testing.T) {
	c, count, ready := semanticServer(t, map[string]any{"embeddings": "workspace"})
	ready("with embeddings: workspace")
	c.notify(methodDidChangeConfiguration, map[string]any{"settings": map[string]any{"ctxls": map[string]any{"embeddings": "off"}}})
	if n := count(); n != 0 {
		t.Errorf("embeddings: off: %d semantic candidates", n)
	}
}

// TestEmbeddingsEndpoint: the settings embeddings "endpoint" and
// embeddingsEndpoint {url, model} take the vectors from the service; a
// mode endpoint without a valid service is reported as a bad setting.
func TestEmbeddingsEndpoint(t *testing.T) {
	svc := semantictest.Start(t)
	_, _, ready := semanticServer(t, map[string]any{"embeddings": "endpoint", "embeddingsEndpoint": map[string]any{"url": svc.URL, "model": "hashed"}})
	ready("from the service's vectors")
	if len(svc.Sent()) < 2 {
		t.Errorf("the service was sent %d texts", len(svc.Sent()))
	}
	if _, problems := defaultSettings().apply([]byte(`{"embeddingsEndpoint": {"url": "ftp://x", "model": "m"}}`), nil); len(problems) == 0 {
		t.Error("a bad embeddingsEndpoint was accepted")
	}
}
