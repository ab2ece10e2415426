package analysis

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func terms(t *testing.T, text string) []string {
	t.Helper()
	var rv []string
	Visit([]byte(text), func(term []byte, _, _ int, _ bool) { rv = append(rv, string(term)) })
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

type token struct {
	term       string
	start, end int
}

func TestAnalyzerOffsets(t *testing.T) {
	in := "  parseHTTP(req)"
	var toks []token
	Visit([]byte(in), func(term []byte, s, e int, _ bool) { toks = append(toks, token{string(term), s, e}) })
	want := []struct {
		term       string
		start, end int
	}{{"parsehttp", 2, 11}, {"parse", 2, 7}, {"http", 7, 11}, {"req", 12, 15}}
	if len(toks) != len(want) {
		t.Fatalf("got %d tokens, want %d", len(toks), len(want))
	}
	for i, w := range want {
		tk := toks[i]
		if tk.term != w.term || tk.start != w.start || tk.end != w.end {
			t.Errorf("token %d = %q [%d,%d), want %q [%d,%d)", i, tk.term, tk.start, tk.end, w.term, w.start, w.end)
		}
		if !strings.EqualFold(in[tk.start:tk.end], w.term) {
			t.Errorf("token %d offsets point at %q", i, in[tk.start:tk.end])
		}
	}
}

// Counter gives each distinct term of Visit once, in the order of first
// occurrence, with its number of occurrences, and the number of terms.
func TestCounterAgreesWithVisit(t *testing.T) {
	inputs := []string{
		"func (s *Server) handleHTTPRequest(ctx context.Context) error { return s.next_handler.ServeHTTP(w, r, 42) }",
		"x86_64 __init__ ParseHTTP2Request IOError a b 7 12 naïve café _ __ A1b2C3 http HTTP Http",
		"",
		"   \n\t",
	}
	var many strings.Builder // more distinct terms than the table's first size
	for i := range 700 {
		fmt.Fprintf(&many, "name%d x%dY ", i%400, i)
	}
	inputs = append(inputs, many.String())
	var c Counter
	for _, in := range inputs {
		counts := map[string]uint32{}
		var first []string
		n := 0
		Visit([]byte(in), func(term []byte, _, _ int, _ bool) {
			if counts[string(term)] == 0 {
				first = append(first, string(term))
			}
			counts[string(term)]++
			n++
		})
		got := map[string]uint32{}
		var order []string
		total := c.Count(func(term []byte, freq uint32) {
			got[string(term)] = freq
			order = append(order, string(term))
		}, []byte(in))
		if total != n || !reflect.DeepEqual(got, counts) && len(counts) > 0 {
			t.Errorf("%q: Count = %v (%d terms), want %v (%d)", in, got, total, counts, n)
		}
		if !slices.Equal(order, first) {
			t.Errorf("%q: terms %q, want %q", in, order, first)
		}
	}
}

func BenchmarkCount(b *testing.B) {
	src := []byte(strings.Repeat("func (s *Server) handleHTTPRequest(ctx context.Context, req *http.Request) error {\n\treturn s.next_handler.ServeHTTP(w, req, 42)\n}\n", 50))
	b.ReportAllocs()
	b.SetBytes(int64(len(src)))
	var c Counter
	for b.Loop() {
		c.Count(func([]byte, uint32) {}, src)
	}
}

func TestAnalyzerDoesNotModifyInput(t *testing.T) {
	in := []byte("FooBar baz_Qux")
	orig := string(in)
	Visit(in, func([]byte, int, int, bool) {})
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

func BenchmarkAnalyze(b *testing.B) {
	src := []byte(strings.Repeat("func (s *Server) handleHTTPRequest(ctx context.Context, req *http.Request) error {\n\treturn s.next_handler.ServeHTTP(w, req, 42)\n}\n", 50))
	b.ReportAllocs()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		Visit(src, func([]byte, int, int, bool) {})
	}
}

// Count over parts counts what it counts over the parts joined by
// separators, terms in the same order.
func TestCountPartsJoined(t *testing.T) {
	parts := [][]byte{[]byte("net/http/server.go"), []byte("Server.ServeHTTP"), []byte("func (s *Server) ServeHTTP(w ResponseWriter) { s.serve(w, 42) } // http2 x86_64")}
	joined := bytes.Join(parts, []byte(" "))
	var c Counter
	type tf struct {
		term string
		freq uint32
	}
	collect := func(count func(emit func([]byte, uint32)) int) ([]tf, int) {
		var out []tf
		n := count(func(term []byte, freq uint32) { out = append(out, tf{string(term), freq}) })
		return out, n
	}
	want, wn := collect(func(emit func([]byte, uint32)) int { return c.Count(emit, joined) })
	got, gn := collect(func(emit func([]byte, uint32)) int { return c.Count(emit, parts...) })
	if gn != wn || !slices.Equal(got, want) {
		t.Fatalf("Count of the parts = %v (%d), want %v (%d)", got, gn, want, wn)
	}
}
