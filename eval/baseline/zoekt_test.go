package baseline

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestZoektFields: a path match and a symbol definition each outweigh a
// single mention in the text, and a test file is ranked down.
func TestZoektFields(t *testing.T) {
	files := []ZoektFile{
		// The query's words in the path.
		{Path: "pkg/backoff/retry.go", Text: "package backoff\n\nfunc wait() {}\n", Symbols: []string{"wait"}},
		// Defines the symbol the query names.
		{Path: "pkg/client.go", Text: "package pkg\n\nfunc ComputeDelay() {}\n", Symbols: []string{"ComputeDelay"}},
		// Mentions both once in a comment, defines nothing of them.
		{Path: "pkg/other.go", Text: "package pkg\n\n// retry backoff compute delay\nfunc other() {}\n", Symbols: []string{"other"}},
		// The same as other.go, but a test.
		{Path: "pkg/other_test.go", Text: "package pkg\n\n// retry backoff compute delay\nfunc testOther() {}\n", LowPriority: true},
		{Path: "README.md", Text: "Nothing here.\n"},
	}
	z := BuildZoekt(files, ZoektOptions{})
	var got []string
	for _, h := range z.SearchFiles("retry backoff", 0) {
		got = append(got, h.Path)
	}
	if want := []string{"pkg/backoff/retry.go", "pkg/other.go", "pkg/other_test.go"}; !slices.Equal(got, want) {
		t.Errorf("retry backoff: %v, want %v", got, want)
	}
	got = got[:0]
	for _, h := range z.SearchFiles("compute delay", 0) {
		got = append(got, h.Path)
	}
	if want := []string{"pkg/client.go", "pkg/other.go", "pkg/other_test.go"}; !slices.Equal(got, want) {
		t.Errorf("compute delay: %v, want %v", got, want)
	}
	// Same order and scores whatever the input order.
	rev := slices.Clone(files)
	slices.Reverse(rev)
	if a, b := z.SearchFiles("compute delay retry", 0), BuildZoekt(rev, ZoektOptions{}).SearchFiles("compute delay retry", 0); !slices.Equal(a, b) {
		t.Errorf("input order changes the ranking: %v vs %v", a, b)
	}
	if h := z.SearchFiles("compute delay", 1); len(h) != 1 {
		t.Errorf("k = 1: %v", h)
	}
}

// TestZoektBM25FValue checks one score by hand: two files, the term in the
// content of one (tf 1, lengths equal to the average, so no length
// factor): idf · tf·(k1+1)/(tf+k1) with idf = ln 2.
func TestZoektBM25FValue(t *testing.T) {
	z := BuildZoekt([]ZoektFile{{Path: "a", Text: "alpha beta\n"}, {Path: "b", Text: "gamma delta\n"}}, ZoektOptions{})
	h := z.SearchFiles("alpha", 0)
	if len(h) != 1 || h[0].Path != "a" {
		t.Fatalf("hits = %v", h)
	}
	if want := 0.6931471805599453 * 2.2 / 2.2; h[0].Score < want-1e-12 || h[0].Score > want+1e-12 {
		t.Errorf("score = %v, want %v", h[0].Score, want)
	}
}

// TestZoektWindows: windows are centred on the densest hits, a file gives
// at most WindowsPerFile of them, each further one scoring Decay times
// the one before, and hit lines are the lines holding a query term.
func TestZoektWindows(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 300; i++ {
		switch i {
		case 100, 104:
			b.WriteString("parse the token stream\n")
		case 250:
			b.WriteString("token\n")
		default:
			fmt.Fprintf(&b, "filler line %d\n", i)
		}
	}
	z := BuildZoekt([]ZoektFile{
		{Path: "lexer.go", Text: b.String()},
		{Path: "pkg/token/doc.go", Text: "Package token.\n"},
		{Path: "other.go", Text: "nothing\n"},
	}, ZoektOptions{WindowLines: 20, WindowsPerFile: 2})
	cs := z.Candidates("parse token")
	var got []string
	for _, c := range cs {
		got = append(got, fmt.Sprintf("%s:%d-%d %v", c.Path, c.Ranges[0].Start, c.Ranges[0].End, c.Hits))
	}
	// lexer.go ranks first (both terms, twice), its best window is
	// centred on lines 100-104, its second on line 250; doc.go matches by
	// path and content and gives its one line.
	want := []string{"lexer.go:92-111 [100 104]", "lexer.go:240-259 [250]", "pkg/token/doc.go:1-1 [1]"}
	if h := z.SearchFiles("parse token", 0); len(h) != 2 || h[0].Path != "lexer.go" {
		want = nil // the ranking itself is checked below
		t.Errorf("files = %v", h)
	}
	if want != nil && !slices.Equal(got, want) {
		t.Errorf("candidates = %q, want %q", got, want)
	}
	if len(cs) >= 2 && cs[1].Score != cs[0].Score*0.5 {
		t.Errorf("second window score %v, want half of %v", cs[1].Score, cs[0].Score)
	}
	// A file matched by its path alone gives its first lines.
	z = BuildZoekt([]ZoektFile{{Path: "token/scan.go", Text: "a\nb\nc\n"}, {Path: "x.go", Text: "y\n"}}, ZoektOptions{})
	if cs := z.Candidates("token"); len(cs) != 1 || cs[0].Ranges[0].Start != 1 || cs[0].Ranges[0].End != 3 || len(cs[0].Hits) != 0 {
		t.Errorf("path-only match: %+v", cs)
	}
}
