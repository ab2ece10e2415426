package retrieve

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/index/chunk"
)

// TestFileDepthLifts checks the step's arithmetic: a file's other units
// become best × ρ^(1/(1 + d·p)); its best, and a file the model gives no
// share, keep their scores; the order within a file stays.
func TestFileDepthLifts(t *testing.T) {
	r := &run{e: &Engine{opts: Options{FileModelOptions: FileModelOptions{FileDepth: 3}}}, scores: map[index.ChunkID]*scored{}}
	add := func(id index.ChunkID, path string, score float64) *scored {
		s := &scored{id: id, c: chunk.Chunk{Path: path}, score: score}
		r.scores[id] = s
		return s
	}
	aBest, a2, a3 := add("a1", "a.go", 1), add("a2", "a.go", 0.5), add("a3", "a.go", 0.25)
	bBest, b2 := add("b1", "b.go", 0.8), add("b2", "b.go", 0.4)
	c2 := add("c2", "c.go", 0.1) // not ranked: no share
	// Utilities ln 9 and 0: softmax shares 0.9 and 0.1.
	order := []*fileRank{{path: "a.go", best: 1, util: math.Log(9)}, {path: "b.go", best: 0.8}}
	r.fileDepth(order, order, 3)
	ka, kb := 1/(1+3*0.9), 1/(1+3*0.1)
	for _, c := range []struct {
		s    *scored
		want float64
	}{
		{aBest, 1}, {a2, math.Pow(0.5, ka)}, {a3, math.Pow(0.25, ka)},
		{bBest, 0.8}, {b2, 0.8 * math.Pow(0.5, kb)}, {c2, 0.1},
	} {
		if math.Abs(c.s.score-c.want) > 1e-12 {
			t.Errorf("%s: %v, want %v", c.s.id, c.s.score, c.want)
		}
	}
	if !(a2.score > a3.score && a2.score > bBest.score) || b2.score >= bBest.score {
		t.Errorf("order: a2 %v, a3 %v, b %v, b2 %v", a2.score, a3.score, bBest.score, b2.score)
	}
}

// TestFileDepthFromBudget: the step runs for a question with room (a
// budget of at least FileDepthFrom) and explains itself; under a tight
// budget nothing moves.
func TestFileDepthFromBudget(t *testing.T) {
	files := fileRankWorkspace()
	files["client/retry.go"] = "package client\n\n// retry sends a request that failed with a timeout again, after the retry backoff.\nfunc retry(req *Request) error {\n\treturn nil\n}\n\n" +
		"// jitter spreads pauses.\nfunc jitter(n int) int {\n\treturn n / 2\n}\n\n" +
		"// reset forgets the attempts.\nfunc reset(c *Client) {\n\tc.limit = 0\n}\n"
	snap := indexFiles(t, files)
	req := Request{Query: "the retry backoff of a request that failed with a timeout, the client's attempts limit"}
	on := DefaultOptions()
	on.FileDepth = 3
	for _, budget := range []int{2000, 8000} {
		req.Budget = assemble.Budget{MaxTokens: budget}
		res, _ := assembleOpts(t, snap, on, req)
		lifted := 0
		for _, e := range res.Explain {
			for _, p := range e.Priors {
				f, ok := strings.CutPrefix(p, "depth by the file model's confidence ×")
				if !ok {
					continue
				}
				if x, err := strconv.ParseFloat(f, 64); err != nil || x < 1 {
					t.Errorf("budget %d: %s: %q, want a factor ≥ 1", budget, e.Handle, p)
				} else if x > 1 {
					lifted++
				}
			}
		}
		if want := budget >= on.FileDepthFrom; (lifted > 0) != want {
			t.Errorf("budget %d: %d units lifted, want some: %v", budget, lifted, want)
		}
	}
}

// TestFileHeader: with room, the header (package clause and imports) of
// the file model's first file joins the context and says why; not under a
// tight budget, not when it would cost more than its share of the budget,
// not when the step is off.
func TestFileHeader(t *testing.T) {
	files := fileRankWorkspace()
	files["client/transport.go"] = "package client\n\nimport (\n\t\"errors\"\n\t\"time\"\n)\n\n" +
		"// retry sends a request that failed with a timeout again, after the retry backoff.\nfunc retry(req *Request) error {\n\ttime.Sleep(pause(1))\n\treturn errors.New(\"timeout\")\n}\n"
	files["client/client.go"] = "package client\n\nimport (\n\t\"net/http\"\n\t\"sync\"\n)\n\n" + strings.TrimPrefix(files["client/client.go"], "package client\n\n")
	snap := indexFiles(t, files)
	req := Request{Query: "retry a request that failed with a timeout: errors after the retry"}
	on := DefaultOptions()
	on.FileDepth, on.FileHeaderShare, on.FileHeaderMaxShare = 3, 0.6, 0.1
	tiny, off := on, on
	tiny.FileHeaderMaxShare = 1e-6
	off.FileHeaderShare = 0
	for _, c := range []struct {
		name   string
		opts   Options
		budget int
		want   bool
	}{
		{"on", on, 8000, true}, {"tight budget", on, 2000, false}, {"header over its share", tiny, 8000, false}, {"off", off, 8000, false},
	} {
		req.Budget = assemble.Budget{MaxTokens: c.budget}
		res, _ := assembleOpts(t, snap, c.opts, req)
		if len(res.Result.Parts) == 0 {
			t.Fatalf("%s: no parts", c.name)
		}
		first := res.Result.Parts[0].Path
		explained := false
		for _, e := range res.Explain {
			if slices.Contains(e.Priors, "the imports of the file model's first file") {
				if e.Path != first || !strings.Contains(e.Handle, "#L1") {
					t.Errorf("%s: %s explained as the first file's header (the first file: %s)", c.name, e.Handle, first)
				}
				explained = true
			}
		}
		shown := res.Result.Parts[0].Ranges[0].Start == 1
		if explained != c.want || shown != c.want {
			t.Errorf("%s: header explained %v, shown %v; want %v", c.name, explained, shown, c.want)
		}
	}
}
