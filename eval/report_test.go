package eval

import (
	"strings"
	"testing"
)

// TestWritePeersNoise: the table against the best peer reports noise at
// every budget, beside the peer with the least.
func TestWritePeersNoise(t *testing.T) {
	sums := []Summary{
		{Task: TaskQuery, System: "ctxls", Budget: 2000, FileRecall: 0.9, Noise: 0.7},
		{Task: TaskQuery, System: "bm25", Budget: 2000, FileRecall: 0.5, Noise: 0.8},
		{Task: TaskQuery, System: PeerZoekt, Budget: 2000, FileRecall: 0.6, Noise: 0.6},
		{Task: TaskQuery, System: "ctxls", Budget: 8000, Noise: 0.75},
		{Task: TaskQuery, System: "bm25", Budget: 8000, Noise: 0.9},
	}
	var b strings.Builder
	WritePeers(&b, sums, "ctxls", "bm25")
	out := b.String()
	for _, want := range []string{
		"| query | 2 000 | noise (lower is better) | 0.700 | zoekt | 0.600 | +0.100 |",
		"| query | 8 000 | noise (lower is better) | 0.750 | bm25 | 0.900 | -0.150 |",
		"| query | 2 000 | file recall | 0.900 | zoekt | 0.600 | +0.300 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no row %q in:\n%s", want, out)
		}
	}
}
