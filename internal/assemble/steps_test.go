package assemble

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/ranges"
)

func rr(s, e int) []ranges.Range { return []ranges.Range{{Start: s, End: e}} }

// numbered makes a file whose line i is "line i".
func numbered(n int) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "line %d\n", i)
	}
	return sb.String()
}

func run(t *testing.T, req Request, cs []Candidate, files MapFiles) *Result {
	t.Helper()
	if req.Policy == (Policy{}) {
		req.Policy = DefaultPolicy()
	}
	res, err := Assemble(context.Background(), req, cs, files, approxCounter{})
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, req, files, res, approxCounter{})
	return res
}

func reasons(res *Result) map[string]string {
	m := map[string]string{}
	for _, o := range res.Omitted {
		m[o.Handle] = o.Reason
	}
	return m
}

func TestDedupTrackingHash(t *testing.T) {
	files := MapFiles{"a.go": numbered(20), "vendor/a.go": numbered(20)}
	cs := []Candidate{
		{Path: "a.go", Ranges: rr(2, 6), Score: 0.9, Sources: []string{"lexical"}, TrackingHash: "h1"},
		{Path: "vendor/a.go", Ranges: rr(2, 6), Score: 0.5, Sources: []string{"symbol"}, TrackingHash: "h1"},
	}
	res := run(t, Request{Budget: Budget{MaxTokens: 500}}, cs, files)
	if len(res.Parts) != 1 || res.Parts[0].Path != "a.go" {
		t.Fatalf("parts = %+v", res.Parts)
	}
	if !slices.Equal(res.Parts[0].Sources, []string{"lexical", "symbol"}) {
		t.Errorf("sources not merged: %v", res.Parts[0].Sources)
	}
	if got := reasons(res)["vendor/a.go#L2-6"]; got != "duplicate of p1" {
		t.Errorf("vendored copy reason = %q", got)
	}
	if res.Stats.DedupRemoved != 1 {
		t.Errorf("dedupRemoved = %d", res.Stats.DedupRemoved)
	}
}

func TestDedupSameRangesAndIDs(t *testing.T) {
	files := MapFiles{"a.go": numbered(20)}
	cs := []Candidate{
		{ID: "x", Path: "a.go", Ranges: rr(2, 6), Score: 0.4, Sources: []string{"lexical"}},
		{ID: "x", Path: "a.go", Ranges: rr(7, 9), Score: 0.8, Sources: []string{"focus"}},
		{Path: "a.go", Ranges: rr(2, 9), Score: 0.3, Sources: []string{"symbol"}},
	}
	res := run(t, Request{Budget: Budget{MaxTokens: 500}}, cs, files)
	if len(res.Parts) != 1 || !ranges.Equal(res.Parts[0].Ranges, rr(2, 9)) || res.Parts[0].Score != 0.8 {
		t.Fatalf("parts = %+v", res.Parts)
	}
	if !slices.Equal(res.Parts[0].Sources, []string{"focus", "lexical", "symbol"}) {
		t.Errorf("sources = %v", res.Parts[0].Sources)
	}
	if res.Stats.DedupRemoved != 2 {
		t.Errorf("dedupRemoved = %d, want 2 (one same-id merge, one same-ranges)", res.Stats.DedupRemoved)
	}
}

func TestDedupCoverage(t *testing.T) {
	files := MapFiles{"a.go": numbered(100)}
	cs := []Candidate{
		{Path: "a.go", Ranges: rr(10, 29), Score: 0.9}, // 20 lines
		{Path: "a.go", Ranges: rr(12, 31), Score: 0.5}, // 18/20 = 90% covered → folded, 30-31 added
		{Path: "a.go", Ranges: rr(25, 44), Score: 0.4}, // 7/20 covered after the fold → stripped
	}
	// StitchGap -1: no joining, so the stripped part stays a part of its own.
	res := run(t, Request{Budget: Budget{MaxTokens: 2000}, Strategy: ByScore, Policy: Policy{StitchGap: -1, CoverMerge: 0.8}}, cs, files)
	if len(res.Parts) != 2 {
		t.Fatalf("parts = %+v", res.Parts)
	}
	if !ranges.Equal(res.Parts[0].Ranges, rr(10, 31)) {
		t.Errorf("kept part %v, want 10-31 (the folded candidate's extra lines added)", res.Parts[0].Ranges)
	}
	if !ranges.Equal(res.Parts[1].Ranges, rr(32, 44)) {
		t.Errorf("overlapping part %v, want its overlap stripped: 32-44", res.Parts[1].Ranges)
	}
	if got := reasons(res)["a.go#L12-31"]; got != "duplicate of p1" {
		t.Errorf("covered candidate reason = %q", got)
	}
}

// A part stripped to its remainder must not overlap; with grouping, parts of
// one file that touch are joined into one part.
func TestJoinAdjacentParts(t *testing.T) {
	files := MapFiles{"a.go": numbered(100), "b.go": numbered(10)}
	cs := []Candidate{
		{Path: "a.go", Ranges: rr(10, 20), Score: 0.9, Sources: []string{"lexical"}},
		{Path: "b.go", Ranges: rr(1, 3), Score: 0.8},
		{Path: "a.go", Ranges: rr(22, 30), Score: 0.7, Sources: []string{"symbol"}}, // gap of one line
	}
	res := run(t, Request{Budget: Budget{MaxTokens: 2000}}, cs, files)
	if len(res.Parts) != 2 || !ranges.Equal(res.Parts[0].Ranges, rr(10, 30)) {
		t.Fatalf("parts = %+v", res.Parts)
	}
	if !slices.Equal(res.Parts[0].Sources, []string{"lexical", "symbol"}) || len(res.Parts[0].Handles) != 2 {
		t.Errorf("joined part = %+v", res.Parts[0])
	}
	if res.Parts[1].Path != "b.go" {
		t.Errorf("second part %s", res.Parts[1].Path)
	}
}

func TestPerPartCapTrimsAroundHits(t *testing.T) {
	files := MapFiles{"a.go": numbered(200)}
	c := Candidate{Path: "a.go", Ranges: rr(10, 150), Score: 1, Signature: ranges.Range{Start: 10, End: 10}, Hits: []int{80}, Symbol: "Big"}
	res := run(t, Request{Budget: Budget{MaxTokens: 5000, PerPartMaxTokens: 120}, Policy: Policy{StitchGap: 3, HitContext: 4, CoverMerge: 0.8}}, []Candidate{c}, files)
	if len(res.Parts) != 1 {
		t.Fatalf("parts = %+v omitted %+v", res.Parts, res.Omitted)
	}
	p := res.Parts[0]
	if p.Level != LevelTrimmed || !p.Truncated || res.Stats.TruncatedParts != 1 {
		t.Fatalf("level %s truncated %v", p.Level, p.Truncated)
	}
	if !ranges.ContainsLine(p.Ranges, 10) || !ranges.ContainsLine(p.Ranges, 80) || !ranges.ContainsLine(p.Ranges, 150) {
		t.Errorf("trimmed ranges %v miss the signature, the hit or the last line", p.Ranges)
	}
	if !strings.Contains(p.Text, "[... 65 lines elided ...]") {
		t.Errorf("no elision marker with the count in:\n%s", p.Text)
	}
	if p.Tokens > 120 {
		t.Errorf("part has %d tokens > per-part cap", p.Tokens)
	}
	if got := reasons(res)["a.go#L10-150"]; got != "reduced: p1 shows part of it" {
		t.Errorf("omitted reason = %q", got)
	}
}

func TestPerPartCapFallsBackToSkeleton(t *testing.T) {
	files := MapFiles{"a.go": numbered(200)}
	c := Candidate{Path: "a.go", Ranges: rr(8, 150), Score: 1, Doc: ranges.Range{Start: 8, End: 9},
		Signature: ranges.Range{Start: 10, End: 10}, Hits: []int{40, 60, 80, 100, 120, 140}}
	res := run(t, Request{Budget: Budget{MaxTokens: 5000, PerPartMaxTokens: 28}, Policy: Policy{StitchGap: 3, HitContext: 4, CoverMerge: 0.8}}, []Candidate{c}, files)
	if len(res.Parts) != 1 || res.Parts[0].Level != LevelSkeleton || !ranges.Equal(res.Parts[0].Ranges, rr(8, 10)) {
		t.Fatalf("parts = %+v", res.Parts)
	}
}

func TestPerFileCap(t *testing.T) {
	files := MapFiles{"a.go": numbered(100), "b.go": numbered(100)}
	cs := []Candidate{
		{Path: "a.go", Ranges: rr(1, 10), Score: 0.9},
		{Path: "a.go", Ranges: rr(40, 50), Score: 0.8},
		{Path: "b.go", Ranges: rr(1, 10), Score: 0.7},
	}
	res := run(t, Request{Budget: Budget{MaxTokens: 5000, PerFileMaxTokens: 50}, Policy: Policy{StitchGap: 3, CoverMerge: 0.8}}, cs, files)
	if len(res.Parts) != 2 || res.Parts[0].Path != "a.go" || res.Parts[1].Path != "b.go" {
		t.Fatalf("parts = %+v\nomitted %+v", res.Parts, res.Omitted)
	}
	if got := reasons(res)["a.go#L40-50"]; got != ReasonOverPerFile {
		t.Errorf("reason = %q", got)
	}
}

// Without detail levels a part that does not fit is skipped and packing goes
// on with smaller ones; with them it enters reduced.
func TestLevelsUnderTightBudget(t *testing.T) {
	files := MapFiles{"a.go": numbered(300), "b.go": numbered(10)}
	cs := []Candidate{
		{Path: "a.go", Ranges: rr(1, 300), Score: 0.9, Signature: ranges.Range{Start: 1, End: 1}, Hits: []int{150}},
		{Path: "b.go", Ranges: rr(1, 5), Score: 0.5},
	}
	off := run(t, Request{Budget: Budget{MaxTokens: 150}, Policy: Policy{StitchGap: 3, CoverMerge: 0.8}}, cs, files)
	if len(off.Parts) != 1 || off.Parts[0].Path != "b.go" {
		t.Fatalf("levels off: parts = %+v", off.Parts)
	}
	on := run(t, Request{Budget: Budget{MaxTokens: 150}, Policy: DefaultPolicy()}, cs, files)
	if len(on.Parts) != 2 || on.Parts[0].Path != "a.go" || on.Parts[0].Level == LevelFull {
		t.Fatalf("levels on: parts = %+v", on.Parts)
	}
}

func TestReserves(t *testing.T) {
	files := MapFiles{"a.go": numbered(100), "focus.go": numbered(100)}
	cs := []Candidate{
		{Path: "a.go", Ranges: rr(1, 30), Score: 0.9},
		{Path: "focus.go", Ranges: rr(1, 20), Score: 0.2, Reserve: "focus"},
	}
	req := Request{Budget: Budget{MaxTokens: 100}, Policy: Policy{StitchGap: 3, CoverMerge: 0.8}}
	if res := run(t, req, cs, files); len(res.Parts) != 1 || res.Parts[0].Path != "a.go" {
		t.Fatalf("without a reserve: parts = %+v", res.Parts)
	}
	req.Budget.Reserves = map[string]int{"focus": 60}
	res := run(t, req, cs, files)
	if len(res.Parts) != 1 || res.Parts[0].Path != "focus.go" {
		t.Fatalf("with a reserve: parts = %+v", res.Parts)
	}
}

// TestReservedHitsWithoutLongSignature: a reserved part (the cursor's)
// whose declaration is too long to fit beside its hit lines shows the hit
// lines alone rather than the declaration line alone.
func TestReservedHitsWithoutLongSignature(t *testing.T) {
	files := MapFiles{"focus.go": numbered(100)}
	cs := []Candidate{{Path: "focus.go", Ranges: rr(1, 60), Score: 1, Reserve: "cursor",
		Signature: ranges.Range{Start: 1, End: 40}, Hits: []int{55, 56, 57}}}
	req := Request{Budget: Budget{MaxTokens: 60, Reserves: map[string]int{"cursor": 60}}, Policy: DefaultPolicy()}
	res := run(t, req, cs, files)
	if len(res.Parts) != 1 || !ranges.ContainsLine(res.Parts[0].Ranges, 56) {
		t.Fatalf("the cursor's lines are not shown: parts = %+v", res.Parts)
	}
}

func TestOutlines(t *testing.T) {
	files := MapFiles{"a.go": numbered(300)}
	cs := []Candidate{
		{Path: "a.go", Ranges: rr(1, 40), Score: 0.9},
		{Path: "a.go", Ranges: rr(100, 200), Score: 0.5, Signature: ranges.Range{Start: 100, End: 100}},
		{Path: "a.go", Ranges: rr(210, 290), Score: 0.4, Signature: ranges.Range{Start: 210, End: 210}},
	}
	req := Request{Budget: Budget{MaxTokens: 200}, Policy: Policy{StitchGap: 3, CoverMerge: 0.8, Outlines: true}}
	res := run(t, req, cs, files)
	if len(res.Parts) != 2 || res.Parts[1].Level != LevelOutline || !slices.Equal(res.Parts[1].Ranges, []ranges.Range{{Start: 100, End: 100}, {Start: 210, End: 210}}) {
		t.Fatalf("parts = %+v", res.Parts)
	}
}

func TestBadInput(t *testing.T) {
	files := MapFiles{"a.go": numbered(10), "empty.go": "", "bad.go": "ok\n\xff\xfe bytes\n"}
	ctx := context.Background()
	for _, b := range []Budget{{MaxTokens: 0}, {MaxTokens: -5}, {MaxTokens: MaxBudget + 1}, {MaxTokens: 10, PerFileMaxTokens: -1}, {MaxTokens: 10, PerPartMaxTokens: -1}, {MaxTokens: 10, Reserves: map[string]int{"x": 11}}} {
		_, err := Assemble(ctx, Request{Budget: b}, nil, files, approxCounter{})
		var pe *ParamError
		if !errors.As(err, &pe) || !strings.HasPrefix(pe.Field, "budget.") {
			t.Errorf("budget %+v: err = %v, want a ParamError on budget.*", b, err)
		}
	}
	if _, err := Assemble(ctx, Request{Budget: Budget{MaxTokens: 10}, Format: "html"}, nil, files, approxCounter{}); err == nil || !strings.Contains(err.Error(), "format") {
		t.Errorf("unknown format: %v", err)
	}
	if _, err := Assemble(ctx, Request{Budget: Budget{MaxTokens: 10}, Strategy: "random"}, nil, files, approxCounter{}); err == nil || !strings.Contains(err.Error(), "strategy") {
		t.Errorf("unknown strategy: %v", err)
	}
	cs := []Candidate{
		{Path: "a.go", Ranges: rr(20, 30), Score: 1},           // past EOF
		{Path: "a.go", Ranges: rr(5, 2), Score: 1},             // inverted
		{Path: "empty.go", Ranges: rr(1, 3), Score: 1},         // empty file
		{Path: "a.go", Ranges: rr(1, 2), Score: nan()},         // NaN
		{Path: "a.go", Ranges: rr(1, 2), Score: inf()},         // Inf
		{Path: "nope.go", Ranges: rr(1, 2), Score: 1},          // missing file
		{Path: "bad.go", Ranges: rr(1, 2), Score: 0.5},         // invalid UTF-8
		{ID: "d", Path: "a.go", Ranges: rr(8, 12), Score: 0.2}, // clamped to 8-10
		{ID: "d", Path: "a.go", Ranges: rr(8, 9), Score: 0.3},  // duplicate id
	}
	res := run(t, Request{Budget: Budget{MaxTokens: 400}}, cs, files)
	want := map[string]string{"a.go#L20-30": ReasonEmptyRange, "empty.go#L1-3": ReasonEmptyRange, "nope.go#L1-2": ReasonNoFile}
	got := reasons(res)
	for h, r := range want {
		if got[h] != r {
			t.Errorf("%s: reason %q, want %q (all: %v)", h, got[h], r, got)
		}
	}
	invalid := 0
	for _, o := range res.Omitted {
		if o.Reason == ReasonInvalidScore {
			invalid++
		}
	}
	if invalid != 2 || len(res.Parts) != 2 {
		t.Fatalf("invalid-score omissions %d, parts %+v", invalid, res.Parts)
	}
	if !strings.Contains(res.Parts[0].Text+res.Parts[1].Text, "\uFFFD") {
		t.Errorf("invalid UTF-8 not replaced: %+v", res.Parts)
	}
	// A budget smaller than any header: empty result, stats say why.
	tiny := run(t, Request{Budget: Budget{MaxTokens: 3}}, []Candidate{{Path: "a.go", Ranges: rr(1, 2), Score: 1}}, files)
	if len(tiny.Parts) != 0 || tiny.Rendered != "" || !strings.Contains(tiny.Stats.Note, "smaller than the smallest part") {
		t.Fatalf("tiny budget: %+v", tiny)
	}
	// Cancelled context.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Assemble(cctx, Request{Budget: Budget{MaxTokens: 100}}, cs, files, approxCounter{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

func TestHandlesRoundTrip(t *testing.T) {
	for _, h := range []string{"a.go#L1-5", "dir/x#y.go#L3,L7-9"} {
		p, rs, err := ParseHandle(h)
		if err != nil || Handle(p, rs) != h {
			t.Errorf("ParseHandle(%q) = %q %v %v", h, p, rs, err)
		}
	}
	if _, _, err := ParseHandle("a.go"); err == nil {
		t.Error("ParseHandle(a.go) accepted")
	}
}

// TestLeadingParts: a leading part renders first, and the rest of its
// file goes where its own best score puts it.
func TestLeadingParts(t *testing.T) {
	files := MapFiles{"a.go": numbered(100), "d.go": numbered(100)}
	cs := []Candidate{
		{Path: "a.go", Ranges: rr(1, 5), Score: 0.9},
		{Path: "d.go", Ranges: rr(50, 55), Score: 0.1, Reserve: "changed", Lead: true, Hits: []int{52}},
		{Path: "d.go", Ranges: rr(80, 82), Score: 0.2},
	}
	req := Request{Budget: Budget{MaxTokens: 400, Reserves: map[string]int{"changed": 100}}, Policy: DefaultPolicy()}
	var got []string
	for _, p := range run(t, req, cs, files).Parts {
		got = append(got, fmt.Sprintf("%s:%d", p.Path, p.Ranges[0].Start))
	}
	if want := []string{"d.go:50", "a.go:1", "d.go:80"}; !slices.Equal(got, want) {
		t.Errorf("render order = %v, want %v", got, want)
	}
}

// TestReservedPartKeepsHits: a reserved part that cannot show a hit line
// is not reduced to its declaration (a changed unit's signature alone says
// nothing about the change).
func TestReservedPartKeepsHits(t *testing.T) {
	files := MapFiles{"d.go": numbered(200)}
	cs := []Candidate{{Path: "d.go", Ranges: rr(1, 150), Score: 1, Reserve: "changed",
		Signature: ranges.Range{Start: 1, End: 1}, Hits: []int{100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110}}}
	req := Request{Budget: Budget{MaxTokens: 30, Reserves: map[string]int{"changed": 30}}, Policy: DefaultPolicy()}
	for _, p := range run(t, req, cs, files).Parts {
		if !slices.ContainsFunc(cs[0].Hits, func(h int) bool { return ranges.ContainsLine(p.Ranges, h) }) {
			t.Errorf("a reserved part without its hit lines: %+v", p)
		}
	}
}

// TestWithheld: a withheld candidate is never packed, however well it
// scores and however much room is left; it is listed as omitted with the
// producer's reason and its handle.
func TestWithheld(t *testing.T) {
	files := MapFiles{"a.go": numbered(100), "b.go": numbered(100)}
	cs := []Candidate{
		{Path: "a.go", Ranges: rr(1, 5), Score: 0.2},
		{Path: "b.go", Ranges: rr(10, 20), Score: 0.9, Withheld: "not asked for", Tokens: 42},
	}
	res := run(t, Request{Budget: Budget{MaxTokens: 4000}, Policy: DefaultPolicy()}, cs, files)
	if len(res.Parts) != 1 || res.Parts[0].Path != "a.go" {
		t.Errorf("parts = %+v, want a.go alone", res.Parts)
	}
	i := slices.IndexFunc(res.Omitted, func(o Omitted) bool { return o.Path == "b.go" })
	if i < 0 {
		t.Fatalf("b.go is not omitted: %+v", res.Omitted)
	}
	if o := res.Omitted[i]; o.Reason != "not asked for" || o.Handle != "b.go#L10-20" || o.Tokens != 42 {
		t.Errorf("omitted = %+v", o)
	}
	// The same ID withheld and not: the candidate is packed, not omitted.
	cs = append(cs, Candidate{ID: "u", Path: "b.go", Ranges: rr(30, 32), Score: 0.5, Withheld: "not asked for"},
		Candidate{ID: "u", Path: "b.go", Ranges: rr(30, 32), Score: 0.4})
	res = run(t, Request{Budget: Budget{MaxTokens: 4000}, Policy: DefaultPolicy()}, cs, files)
	if !slices.ContainsFunc(res.Parts, func(p Part) bool { return p.Path == "b.go" && p.Ranges[0].Start == 30 }) ||
		slices.ContainsFunc(res.Omitted, func(o Omitted) bool { return o.Handle == "b.go#L30-32" }) {
		t.Errorf("a candidate withheld under one ID and offered under it again: parts %+v, omitted %+v", res.Parts, res.Omitted)
	}
}
