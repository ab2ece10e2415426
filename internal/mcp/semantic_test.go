package mcp

import (
	"slices"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/history/historytest"
	"github.com/ctxls/ctxls/internal/semantic"
	"github.com/ctxls/ctxls/internal/semantic/semantictest"
)

// TestEmbeddings: with Embeddings "workspace" the semantic channel is
// among a part's sources (once the root's vectors are computed in the
// background); with "off" it never is.
func TestEmbeddings(t *testing.T) {
	root := historytest.Write(t, historytest.Files())
	svc := semantictest.Start(t)
	semanticParts := func(mode string) func() int {
		opts := testOptions(root)
		opts.Embeddings = mode
		opts.EmbeddingsEndpoint = &semantic.EndpointConfig{URL: svc.URL, Model: "hashed"}
		srv, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		srv.Start()
		cs := connect(t, srv, nil)
		return func() int {
			t.Helper()
			var out AssembleOutput
			text, isErr := call(t, cs, ToolAssemble, map[string]any{"query": "serve a request with a response", "budget": map[string]any{"maxTokens": 1500}}, &out)
			if isErr {
				t.Fatalf("assemble_context: %s", text)
			}
			n := 0
			for _, p := range out.Parts {
				if slices.Contains(p.Sources, "semantic") {
					n++
				}
			}
			return n
		}
	}
	on := semanticParts(semantic.ModeWorkspace)
	deadline := time.Now().Add(20 * time.Second)
	for on() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no part from the semantic channel with embeddings: workspace")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := semanticParts(semantic.ModeOff)(); n != 0 {
		t.Errorf("embeddings off: %d parts from the semantic channel", n)
	}
	ep := semanticParts(semantic.ModeEndpoint)
	for ep() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no part from the semantic channel with the service's vectors")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(svc.Sent()) == 0 {
		t.Error("the service was sent nothing")
	}
}
