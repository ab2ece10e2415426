package assemble

import (
	"testing"
)

// TestOmittedBestFirst: the omitted list is best first — the candidates
// the budget left out, which a reader may expand, before those withheld
// (not asked for) however high the withheld ones score, each group in
// the order of its scores.
func TestOmittedBestFirst(t *testing.T) {
	files := MapFiles{"a.go": numbered(200), "b.go": numbered(200), "c.go": numbered(200), "w.yml": numbered(50)}
	cs := []Candidate{
		{Path: "a.go", Ranges: rr(1, 5), Score: 0.9},
		{Path: "b.go", Ranges: rr(1, 150), Score: 0.6},
		{Path: "c.go", Ranges: rr(1, 150), Score: 0.5},
		{Path: "w.yml", Ranges: rr(1, 10), Score: 0.8, Withheld: "not reached", Tokens: 40},
		{Path: "a.go", Ranges: rr(100, 110), Score: 0.95, Withheld: "not reached", Tokens: 40},
	}
	res := run(t, Request{Budget: Budget{MaxTokens: 200}, Policy: Policy{StitchGap: -1}}, cs, files)
	var got []string
	for _, o := range res.Omitted {
		got = append(got, o.Handle+" "+o.Reason)
	}
	want := []string{"b.go#L1-150", "c.go#L1-150", "a.go#L100-110", "w.yml#L1-10"}
	if len(got) != len(want) {
		t.Fatalf("omitted = %q, want the handles %q", got, want)
	}
	for i, h := range want {
		if res.Omitted[i].Handle != h {
			t.Errorf("omitted = %q, want the handles %q in that order", got, want)
			break
		}
	}
}
