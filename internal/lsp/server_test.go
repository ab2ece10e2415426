package lsp

import (
	"strings"
	"testing"
)

func TestInitializeIndexAssemble(t *testing.T) {
	e := newEnv(t, serverOptions(t, nil), nil, nil)
	r := e.assemble(map[string]any{"query": "how are ranges stitched", "budget": map[string]any{"maxTokens": 2000}})
	if !r.hasText("func Stitch") {
		t.Fatalf("no part with Stitch: %v", r.paths())
	}
	for _, p := range r.Parts {
		if want := e.uri(p.Path); p.URI != want {
			t.Errorf("part %s: uri %q, want %q", p.Path, p.URI, want)
		}
	}
	if !r.Stats.IndexComplete || r.Stats.IndexState == "" || r.Timing == nil {
		t.Errorf("stats %+v timing %v", r.Stats, r.Timing)
	}
	if r.Stats.TotalTokens > 2000 || !strings.Contains(r.Rendered, "Stitch") {
		t.Errorf("rendered %d tokens: %.200s", r.Stats.TotalTokens, r.Rendered)
	}
}
