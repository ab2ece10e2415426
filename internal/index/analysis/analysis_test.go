package analysis

import (
	"reflect"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/registry"
)

func terms(t *testing.T, text string) []string {
	t.Helper()
	var rv []string
	for _, tok := range (Analyzer{}).Analyze([]byte(text)) {
		rv = append(rv, string(tok.Term))
	}
	return rv
}

func TestAnalyzerSplitsIdentifiers(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"parseHTTPRequest", []string{"parsehttprequest", "parse", "http", "request"}},
		{"parse_http_request", []string{"parse_http_request", "parse", "http", "request"}},
		{"ParseHTTP2Request", []string{"parsehttp2request", "parse", "http2", "request"}},
		{"HTTPServer", []string{"httpserver", "http", "server"}},
		{"x86_64", []string{"x86_64", "x86", "64"}},
		{"__init__", []string{"__init__", "init"}},
		{"utf8Decode", []string{"utf8decode", "utf8", "decode"}},
		{"simple", []string{"simple"}},
		{"IOError", []string{"ioerror", "io", "error"}},
		// one-byte terms are dropped, the rest kept
		{"xPos := i + 42", []string{"xpos", "pos", "42"}},
		{"a.b-c/d 7", nil},
		// separators: anything that is not [A-Za-z0-9_]
		{"index/walk_test.go", []string{"index", "walk_test", "walk", "test", "go"}},
		{"naïve café", []string{"na", "ve", "caf"}},
	}
	for _, c := range cases {
		if got := terms(t, c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Analyze(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestAnalyzerOffsetsAndPositions(t *testing.T) {
	in := "  parseHTTP(req)"
	toks := (Analyzer{}).Analyze([]byte(in))
	want := []struct {
		term       string
		start, end int
	}{{"parsehttp", 2, 11}, {"parse", 2, 7}, {"http", 7, 11}, {"req", 12, 15}}
	if len(toks) != len(want) {
		t.Fatalf("got %d tokens, want %d", len(toks), len(want))
	}
	for i, w := range want {
		tk := toks[i]
		if string(tk.Term) != w.term || tk.Start != w.start || tk.End != w.end || tk.Position != i+1 {
			t.Errorf("token %d = %q [%d,%d) pos %d, want %q [%d,%d) pos %d",
				i, tk.Term, tk.Start, tk.End, tk.Position, w.term, w.start, w.end, i+1)
		}
		if !strings.EqualFold(in[tk.Start:tk.End], w.term) {
			t.Errorf("token %d offsets point at %q", i, in[tk.Start:tk.End])
		}
	}
}

// The fused Analyze and Frequencies agree with Tokenizer + PartsFilter.
func TestFusedAnalysisAgrees(t *testing.T) {
	inputs := []string{
		"func (s *Server) handleHTTPRequest(ctx context.Context) error { return s.next_handler.ServeHTTP(w, r, 42) }",
		"x86_64 __init__ ParseHTTP2Request IOError a b 7 12 naïve café _ __ A1b2C3",
		"",
		"   \n\t",
	}
	for _, in := range inputs {
		want := PartsFilter{}.Filter(Tokenizer{}.Tokenize([]byte(in)))
		got := (Analyzer{}).Analyze([]byte(in))
		if len(got) != len(want) {
			t.Fatalf("%q: %d tokens, want %d", in, len(got), len(want))
		}
		counts := map[string]int{}
		for i := range want {
			g, w := got[i], want[i]
			if string(g.Term) != string(w.Term) || g.Start != w.Start || g.End != w.End || g.Position != w.Position || g.Type != w.Type {
				t.Errorf("%q token %d: %v, want %v", in, i, g, w)
			}
			counts[string(w.Term)]++
		}
		freqs, n := Frequencies([]byte(in))
		if n != len(want) || len(freqs) != len(counts) {
			t.Errorf("%q: Frequencies %d terms, %d distinct; want %d, %d", in, n, len(freqs), len(want), len(counts))
		}
		for term, c := range counts {
			if tf := freqs[term]; tf == nil || tf.Frequency() != c || string(tf.Term) != term {
				t.Errorf("%q: frequency of %q = %v, want %d", in, term, tf, c)
			}
		}
	}
}

func BenchmarkFrequencies(b *testing.B) {
	src := []byte(strings.Repeat("func (s *Server) handleHTTPRequest(ctx context.Context, req *http.Request) error {\n\treturn s.next_handler.ServeHTTP(w, req, 42)\n}\n", 50))
	b.ReportAllocs()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		Frequencies(src)
	}
}

func TestAnalyzerDoesNotModifyInput(t *testing.T) {
	in := []byte("FooBar baz_Qux")
	orig := string(in)
	(Analyzer{}).Analyze(in)
	if string(in) != orig {
		t.Fatalf("input modified: %q", in)
	}
}

func TestTermsDistinct(t *testing.T) {
	got := Terms("parseRequest parse_request Parse")
	want := []string{"parserequest", "parse", "request", "parse_request"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Terms = %q, want %q", got, want)
	}
}

func TestSplit(t *testing.T) {
	cases := map[string][]string{
		"parseHTTPRequest":  {"parse", "http", "request"},
		"ParseHTTP2Request": {"parse", "http2", "request"},
		"getX":              {"get", "x"},
		"__init__":          {"init"},
		"A":                 {"a"},
	}
	for in, want := range cases {
		if got := Split(in); !reflect.DeepEqual(got, want) {
			t.Errorf("Split(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIsIdentifier(t *testing.T) {
	for s, want := range map[string]bool{"foo": true, "_x1": true, "1x": false, "a.b": false, "": false} {
		if got := IsIdentifier(s); got != want {
			t.Errorf("IsIdentifier(%q) = %v", s, got)
		}
	}
}

func TestRegistered(t *testing.T) {
	cache := registry.NewCache()
	a, err := cache.AnalyzerNamed(AnalyzerName)
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Analyze([]byte("fooBar")); len(got) != 3 {
		t.Fatalf("registered analyzer gave %d tokens, want 3", len(got))
	}
	tk, err := cache.TokenizerNamed(TokenizerName)
	if err != nil {
		t.Fatal(err)
	}
	f, err := cache.TokenFilterNamed(FilterName)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Filter(tk.Tokenize([]byte("fooBar"))); len(got) != 3 {
		t.Fatalf("tokenizer+filter gave %d tokens, want 3", len(got))
	}
}

func BenchmarkAnalyze(b *testing.B) {
	src := []byte(strings.Repeat("func (s *Server) handleHTTPRequest(ctx context.Context, req *http.Request) error {\n\treturn s.next_handler.ServeHTTP(w, req, 42)\n}\n", 50))
	b.ReportAllocs()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		(Analyzer{}).Analyze(src)
	}
}
