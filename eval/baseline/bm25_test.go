package baseline

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestTokenize(t *testing.T) {
	for in, want := range map[string]string{
		"parseHTTPHeader(x)":        "parsehttpheader parse http header",
		"snake_case_name = 1":       "snake_case_name snake case name",
		"HTTPServer.ListenAndServe": "httpserver http server listenandserve listen and serve",
		"a b":                       "",
		"utf8Decode2":               "utf8decode2 utf decode",
		"Ünïcode_Wörter":            "ünïcode_wörter ünïcode wörter",
		"__init__":                  "__init__",
		"x2y":                       "x2y",
	} {
		if got := strings.Join(Tokenize(in), " "); got != want {
			t.Errorf("Tokenize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSplitIdent(t *testing.T) {
	for in, want := range map[string][]string{
		"getHTTPResponseCode": {"get", "HTTP", "Response", "Code"},
		"JSONFormatter":       {"JSON", "Formatter"},
		"_private_name":       {"private", "name"},
		"ABC":                 {"ABC"},
		"v2Routes":            {"v", "2", "Routes"},
	} {
		if got := splitIdent(in); !slices.Equal(got, want) {
			t.Errorf("splitIdent(%q) = %q, want %q", in, got, want)
		}
	}
}

func lines(prefix string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s %d\n", prefix, i)
	}
	return b.String()
}

func TestSearchRanking(t *testing.T) {
	files := map[string]string{
		// retry.go: the term "retry" twice in its first window.
		"retry.go": "func retryRequest() {\n\t// retry the request\n}\n" + lines("filler", 100),
		// client.go: "retry" once, in its second window (lines 61-120).
		"client.go": lines("noise", 70) + "c.maxRetry = 3 // retry\n",
		// other.go: no query term.
		"other.go": lines("unrelated code", 30),
		// long.go: "retry" once in a long window (lower score by length).
		"long.go": "retry " + strings.Repeat("word ", 500) + "\n",
	}
	x := Build(files, Options{})
	if got := x.Windows(); got != 2+2+1+1 {
		t.Errorf("windows = %d, want 6", got)
	}
	hits := x.Search("How does the request retry work?", 0)
	var got []string
	for _, h := range hits {
		got = append(got, fmt.Sprintf("%s:%d-%d", h.Path, h.Start, h.End))
	}
	want := []string{"retry.go:1-60", "client.go:61-71", "long.go:1-1"}
	if !slices.Equal(got, want) {
		t.Errorf("ranking = %v, want %v", got, want)
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Errorf("not sorted by score: %v", hits)
		}
	}

	cands := x.Candidates("retry request")
	if len(cands) != 3 || cands[0].Path != "retry.go" || !slices.Equal(cands[0].Hits, []int{1, 2}) ||
		cands[0].Ranges[0].Start != 1 || cands[0].Ranges[0].End != 60 || cands[0].Score != x.Search("retry request", 1)[0].Score {
		t.Errorf("candidates = %+v", cands[0])
	}
	if !slices.Equal(cands[1].Hits, []int{71}) {
		t.Errorf("client.go hits = %v", cands[1].Hits)
	}
}

func TestBM25Values(t *testing.T) {
	// Two one-window documents; the IDF of a term in one of them is
	// ln(1 + (2-1+0.5)/(1+0.5)) = ln 2, and with equal lengths the tf part
	// is tf·2.2/(tf+1.2).
	x := Build(map[string]string{"a": "alpha beta\n", "b": "gamma delta\n"}, Options{})
	h := x.Search("alpha", 0)
	if len(h) != 1 || h[0].Path != "a" {
		t.Fatalf("hits = %v", h)
	}
	want := 0.6931471805599453 * 2.2 / 2.2
	if d := h[0].Score - want; d > 1e-12 || d < -1e-12 {
		t.Errorf("score = %v, want %v", h[0].Score, want)
	}
}
