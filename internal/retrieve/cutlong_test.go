package retrieve

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/ranges"
	"github.com/ctxls/ctxls/internal/tokens"
)

// TestCutLongUnit: for a question, with Options.CutShare set, a unit
// far over that share of the budget shows its declaration and the lines that
// matched the question with a few lines around them, not the whole
// unit; a short unit is still shown whole.
func TestCutLongUnit(t *testing.T) {
	var body strings.Builder
	for i := range 120 {
		fmt.Fprintf(&body, "\tc.Settings[%q] = %d\n", fmt.Sprintf("option%03d", i), i)
		if i == 90 {
			body.WriteString("\tc.Backoff = exponentialBackoff(c.Retries)\n") // line 5 + 91 = 96
		}
	}
	files := map[string]string{
		"go.mod":     "module example.com/cfg\n\ngo 1.22\n",
		"config.go":  "package cfg\n\n// Defaults fills c with the default settings.\nfunc Defaults(c *Config) {\n" + body.String() + "}\n",
		"types.go":   "package cfg\n\n// Config holds the settings.\ntype Config struct {\n\tSettings map[string]int\n\tRetries  int\n\tBackoff  int\n}\n",
		"backoff.go": "package cfg\n\n// exponentialBackoff is the wait before retry n.\nfunc exponentialBackoff(n int) int {\n\treturn 1 << n\n}\n",
	}
	snap := indexFiles(t, files)
	opts := DefaultOptions()
	opts.CutShare = 0.25
	resp, err := NewEngineWith(tokens.NewRegistry(), opts).Assemble(context.Background(), snap, Request{Query: "where is the exponential backoff computed", Budget: assemble.Budget{MaxTokens: 2000}})
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string][]ranges.Range{}
	for _, p := range resp.Parts {
		shown[p.Path] = ranges.Union(shown[p.Path], p.Ranges)
	}
	cfg := shown["config.go"]
	if !ranges.ContainsLine(cfg, 4) || !ranges.ContainsLine(cfg, 96) {
		t.Errorf("Defaults is not shown at its declaration (line 4) and its matched line 96: %v", cfg)
	}
	if n := ranges.Total(cfg); n > 20 {
		t.Errorf("%d lines of Defaults are shown, want its declaration and the lines around its match: %v", n, cfg)
	}
	if n := ranges.Total(ranges.Intersect(shown["backoff.go"], []ranges.Range{{Start: 3, End: 6}})); n != 4 {
		t.Errorf("exponentialBackoff, short, is not shown whole: %v", shown["backoff.go"])
	}
}
