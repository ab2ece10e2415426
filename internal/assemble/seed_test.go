package assemble

import (
	"context"
	"slices"
	"testing"

	"github.com/ctxls/ctxls/internal/ranges"
)

// seedRenderer renders a part as "[DOC: path]" then the text, the format
// of the reference packing and grouping examples below. With
// fieldsCounter its header costs exactly 10 tokens, the per-document
// overhead those examples assume.
type seedRenderer struct{}

func (seedRenderer) preamble() string { return "" }
func (seedRenderer) trailer() string  { return "" }
func (seedRenderer) header(b *block) string {
	return "[DOC: " + b.path + "] m m m m m m m m\n"
}
func (seedRenderer) body(b *block) string { return b.text }

func one(path string, score float64) Candidate {
	return Candidate{Path: path, Ranges: []ranges.Range{{Start: 1, End: 1}}, Score: score}
}

// TestSeedPackingVector is the reference packing example: budget 150,
// A 50/0.9, B 100/0.85, C 30/0.8, D 80/0.75, score strategy → A, C, 80
// tokens of content, not truncated. Its arithmetic ("B wouldn't fit after
// A") holds only with a per-document marker of 10 tokens; with a free
// marker A+B would be exactly 150 and fit. So each part here costs its
// text plus a 10-token "[DOC: …]" header.
func TestSeedPackingVector(t *testing.T) {
	files := MapFiles{"A": words(50, "a"), "B": words(100, "b"), "C": words(30, "c"), "D": words(80, "d")}
	cs := []Candidate{one("A", 0.9), one("B", 0.85), one("C", 0.8), one("D", 0.75)}
	req := Request{Budget: Budget{MaxTokens: 150}, Strategy: ByScore, Policy: Policy{StitchGap: 3, CoverMerge: 0.8}}
	res, err := assembleWith(context.Background(), req, cs, files, fieldsCounter{}, seedRenderer{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	content := 0
	for _, p := range res.Parts {
		got = append(got, p.Path)
		content += p.Tokens - 10
		if p.Truncated {
			t.Errorf("part %s truncated", p.Path)
		}
	}
	if !slices.Equal(got, []string{"A", "C"}) {
		t.Fatalf("parts = %v, want [A C]", got)
	}
	if content != 80 || res.Stats.TotalTokens != 100 {
		t.Errorf("content tokens = %d (want 80), total with headers = %d (want 100)", content, res.Stats.TotalTokens)
	}
	if res.Stats.TruncatedParts != 0 || res.Stats.DroppedParts != 2 {
		t.Errorf("stats = %+v", res.Stats)
	}
	for _, o := range res.Omitted {
		if o.Reason != ReasonOverBudget {
			t.Errorf("omitted %s: reason %q, want %q", o.Path, o.Reason, ReasonOverBudget)
		}
	}
}

// TestSeedGroupingVector is the reference grouping example: a.md 0.9/0.85
// and b.md 0.88/0.82 render as a.md chunks 1, 2 then b.md chunks 1, 2.
func TestSeedGroupingVector(t *testing.T) {
	files := MapFiles{
		"a.md": "Chunk 1 of a\nfiller\nfiller\nfiller\nfiller\nfiller\nChunk 2 of a\n",
		"b.md": "Chunk 1 of b\nfiller\nfiller\nfiller\nfiller\nfiller\nChunk 2 of b\n",
	}
	at := func(path string, line int, score float64) Candidate {
		return Candidate{Path: path, Ranges: []ranges.Range{{Start: line, End: line}}, Score: score}
	}
	cs := []Candidate{at("a.md", 1, 0.9), at("b.md", 1, 0.88), at("a.md", 7, 0.85), at("b.md", 7, 0.82)}
	for _, f := range []Format{Markdown, XML, JSON} {
		res, err := Assemble(context.Background(), Request{Budget: Budget{MaxTokens: 1000}, Format: f, Policy: DefaultPolicy()}, cs, files, approxCounter{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range res.Parts {
			got = append(got, p.Text)
		}
		want := []string{"Chunk 1 of a\n", "Chunk 2 of a\n", "Chunk 1 of b\n", "Chunk 2 of b\n"}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: parts = %q, want %q", f, got, want)
		}
		for i, p := range res.Parts {
			if want := "p" + string(rune('1'+i)); p.ID != want {
				t.Errorf("%s: part %d id %s, want %s", f, i, p.ID, want)
			}
		}
	}
}
