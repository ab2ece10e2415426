package retrieve

import (
	"slices"
	"testing"
)

func TestAnalyze(t *testing.T) {
	cases := []struct {
		in                   string
		idents, words, paths []string
	}{
		{"how are ranges stitched", nil, []string{"ranges", "stitched"}, nil},
		{"fix parseHTTPRequest when the body is empty", []string{"parseHTTPRequest"}, []string{"body", "empty"}, nil},
		{"call ranges.Stitch from assemble/pack.go", []string{"ranges.Stitch", "Stitch", "pack"}, []string{"ranges", "call", "assemble"}, []string{"assemble/pack.go"}},
		{"parse_http_request returns EOF", []string{"parse_http_request", "EOF"}, []string{"returns"}, nil},
		{"The Walker skips .gitignore'd files", []string{"Walker"}, []string{"skips", "gitignore", "files"}, nil},
	}
	for _, c := range cases {
		q := Analyze(c.in)
		if !sameSet(q.Identifiers, c.idents) || !sameSet(q.Words, c.words) || !sameSet(q.Paths, c.paths) {
			t.Errorf("Analyze(%q) = idents %q words %q paths %q\nwant idents %q words %q paths %q", c.in, q.Identifiers, q.Words, q.Paths, c.idents, c.words, c.paths)
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
