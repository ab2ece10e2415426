package assemble

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/ranges"
	"github.com/ctxls/ctxls/internal/tokens"
)

// testCounters are the counters every invariant is checked with. The
// tiktoken encodings are added when the tokens registry is available.
func testCounters(t testing.TB) []tokens.Counter {
	cs := []tokens.Counter{approxCounter{}, fieldsCounter{}}
	return append(cs, tiktokenCounters(t)...)
}

// checkInvariants asserts what must hold for every assembly.
func checkInvariants(t testing.TB, req Request, files MapFiles, res *Result, counter tokens.Counter) {
	t.Helper()
	if got := counter.Count(res.Rendered); got > req.Budget.MaxTokens {
		t.Fatalf("rendered text has %d tokens > budget %d", got, req.Budget.MaxTokens)
	} else if got != res.Stats.TotalTokens {
		t.Fatalf("stats.totalTokens %d != tokens of rendered %d", res.Stats.TotalTokens, got)
	}
	used := map[string][]ranges.Range{}
	for _, p := range res.Parts {
		text, ok := files[p.Path]
		if !ok {
			t.Fatalf("part %s of a file that does not exist: %s", p.ID, p.Path)
		}
		f := newFileText(p.Path, text)
		if len(p.Ranges) == 0 || !ranges.IsNormalized(p.Ranges) || p.Ranges[len(p.Ranges)-1].End > f.lines {
			t.Fatalf("part %s ranges %v not normalized within %d lines", p.ID, p.Ranges, f.lines)
		}
		if ov := ranges.Intersect(used[p.Path], p.Ranges); len(ov) > 0 {
			t.Fatalf("part %s overlaps an earlier part of %s at %v", p.ID, p.Path, ov)
		}
		used[p.Path] = ranges.Union(used[p.Path], p.Ranges)
		var want strings.Builder
		for _, r := range p.Ranges {
			want.WriteString(f.slice(r.Start, r.End))
		}
		var got strings.Builder
		for _, line := range strings.SplitAfter(p.Text, "\n") {
			if !IsElisionMarker(strings.TrimSuffix(line, "\n")) {
				got.WriteString(line)
			}
		}
		if got.String() != want.String() {
			t.Fatalf("part %s text is not the file's lines %v:\n got %q\nwant %q", p.ID, p.Ranges, got.String(), want.String())
		}
		if !strings.Contains(res.Rendered, p.Path) {
			t.Fatalf("part %s path missing from rendered text", p.ID)
		}
		if p.Truncated != (p.Level != LevelFull) {
			t.Fatalf("part %s truncated=%v level=%s", p.ID, p.Truncated, p.Level)
		}
		if b := req.Budget.PerPartMaxTokens; b > 0 && p.Tokens > b && counter.Name() != "approx" {
			t.Fatalf("part %s has %d tokens > per-part cap %d", p.ID, p.Tokens, b)
		}
	}
	if len(res.Parts) > 0 {
		checkRenderedSyntax(t, req.Format, res)
	}
}

// checkRenderedSyntax parses the rendered text as its format says.
func checkRenderedSyntax(t testing.TB, f Format, res *Result) {
	t.Helper()
	switch f {
	case JSON:
		var doc struct {
			Parts []struct {
				ID   int    `json:"id"`
				Path string `json:"path"`
				Text string `json:"text"`
			} `json:"parts"`
		}
		if err := json.Unmarshal([]byte(res.Rendered), &doc); err != nil {
			t.Fatalf("rendered JSON does not parse: %v\n%s", err, res.Rendered)
		}
		if len(doc.Parts) != len(res.Parts) {
			t.Fatalf("rendered JSON has %d parts, result %d", len(doc.Parts), len(res.Parts))
		}
		for i, p := range doc.Parts {
			if p.ID != i+1 || p.Text != res.Parts[i].Text || p.Path != res.Parts[i].Path {
				t.Fatalf("rendered JSON part %d = %+v, result part %+v", i, p, res.Parts[i])
			}
		}
	case XML:
		dec := xml.NewDecoder(strings.NewReader(res.Rendered))
		n := 0
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("rendered XML does not parse: %v\n%s", err, res.Rendered)
			}
			if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "part" {
				n++
			}
		}
		if n != len(res.Parts) {
			t.Fatalf("rendered XML has %d parts, result %d", n, len(res.Parts))
		}
	case Markdown:
		for i := range res.Parts {
			if !strings.Contains(res.Rendered, fmt.Sprintf("### [%d] ", i+1)) {
				t.Fatalf("markdown lacks header [%d]", i+1)
			}
		}
	}
}

func resultJSON(t testing.TB, res *Result) string {
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestInvariantsRandom runs random inputs through every format, strategy and
// counter, with and without the optional policies, and checks the budget,
// the texts, overlap and determinism under shuffled input.
func TestInvariantsRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	counters := testCounters(t)
	iters := 400
	if testing.Short() {
		iters = 60
	}
	for i := 0; i < iters; i++ {
		files, cs := genCase(r)
		req := Request{
			Budget:   Budget{MaxTokens: 1 + r.IntN(900)},
			Format:   []Format{Markdown, XML, JSON}[r.IntN(3)],
			Strategy: []Strategy{Grouped, Interleaved, ByScore}[r.IntN(3)],
			Policy:   DefaultPolicy(),
		}
		if r.IntN(3) == 0 {
			req.Budget.PerFileMaxTokens = 20 + r.IntN(300)
		}
		if r.IntN(3) == 0 {
			req.Budget.PerPartMaxTokens = 15 + r.IntN(200)
		}
		if r.IntN(4) == 0 {
			req.Budget.Reserves = map[string]int{"focus": r.IntN(req.Budget.MaxTokens + 1)}
		}
		req.Policy.Levels = r.IntN(2) == 0
		req.Policy.Outlines = r.IntN(2) == 0
		if r.IntN(5) == 0 {
			req.Policy.StitchGap = -1
		}
		counter := counters[r.IntN(len(counters))]
		res, err := Assemble(context.Background(), req, cs, files, counter)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		checkInvariants(t, req, files, res, counter)
		want := resultJSON(t, res)
		for k := 0; k < 2; k++ {
			shuffled := append([]Candidate(nil), cs...)
			r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			res2, err := Assemble(context.Background(), req, shuffled, files, counter)
			if err != nil {
				t.Fatal(err)
			}
			if got := resultJSON(t, res2); got != want {
				t.Fatalf("case %d (%s/%s/%s): shuffled input changed the result:\n%s\n---\n%s", i, req.Format, req.Strategy, counter.Name(), want, got)
			}
		}
	}
}
