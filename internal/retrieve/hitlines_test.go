package retrieve

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/index/chunk"
)

func TestContainsLower(t *testing.T) {
	for _, c := range []struct {
		s, term string
		want    bool
	}{
		{"func ServeHTTP(w ResponseWriter)", "servehttp", true},
		{"func ServeHTTP(w ResponseWriter)", "responsewriter", true},
		{"KEEPALIVE", "keepalive", true},
		{"keep-alive", "keepalive", false},
		{"abc", "abcd", false},
		{"", "a", false},
		{"x", "", true},
		{"aab", "ab", true},          // restart after a partial match
		{"naïve Café", "café", true}, // non-ASCII bytes compare as they are
		{"Ab1_", "ab1_", true},
	} {
		if got := containsLower(c.s, c.term); got != c.want {
			t.Errorf("containsLower(%q, %q) = %v, want %v", c.s, c.term, got, c.want)
		}
	}
}

// TestHitLines: the lines of a chunk that hold a query term, whatever
// their case, and only within the chunk.
func TestHitLines(t *testing.T) {
	root := t.TempDir()
	src := "package a\n// Keepalive here too\n\nfunc Serve() {\n\tconn.KeepAlive = true\n\tx := 1\n\treturn // keepalive\n}\n"
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	x, err := index.Open(ctx, root, index.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	snap, release := x.Snapshot()
	defer release()
	r := &run{snap: snap}
	s := &scored{c: chunk.Chunk{Path: "a.go", StartLine: 4, EndLine: 8}}
	if got := r.hitLinesFor(s, []string{"keepalive"}); !slices.Equal(got, []int{5, 7}) {
		t.Errorf("hitLines = %v, want [5 7]", got)
	}
	// The same from the chunk's first byte (mid-line, as a node's may be).
	s.c.StartByte = strings.Index(src, "Serve()")
	if got := r.hitLinesFor(s, []string{"keepalive"}); !slices.Equal(got, []int{5, 7}) {
		t.Errorf("hitLines from StartByte = %v, want [5 7]", got)
	}
	s.c.StartByte = 0
	s.c.StartLine, s.c.EndLine = 1, 20 // past the end of the file
	if got := r.hitLinesFor(s, []string{"keepalive", "serve"}); !slices.Equal(got, []int{2, 4, 5, 7}) {
		t.Errorf("hitLines over the whole file = %v", got)
	}
	// Lines with non-ASCII letters fold case fully.
	if err := os.WriteFile(filepath.Join(root, "b.go"), []byte("package a\n// ÄNDERN hier\nvar x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := x.Update(ctx, "b.go", nil); err != nil {
		t.Fatal(err)
	}
	snap2, release2 := x.Snapshot()
	defer release2()
	r2 := &run{snap: snap2}
	if got := r2.hitLinesFor(&scored{c: chunk.Chunk{Path: "b.go", StartLine: 1, EndLine: 3}}, []string{"ändern"}); !slices.Equal(got, []int{2}) {
		t.Errorf("hitLines with a non-ASCII term = %v, want [2]", got)
	}
	s.c.Path = "missing.go"
	if got := r.hitLinesFor(s, []string{"keepalive"}); got != nil {
		t.Errorf("hitLines of a file not in the index = %v", got)
	}
}

// hitLinesByLine is the line-by-line search hitScratch.lines replaced,
// kept as its oracle: each line tested against each term in turn (the
// walk to the chunk's lines, fromLine and nextLine, is shared).
func hitLinesByLine(text string, startLine, endLine, startByte int, terms []string) []int {
	var hits []int
	rest := fromLine(text, startLine, startByte)
	for l := startLine; l <= endLine && rest != "" && len(hits) < maxHitLines; l++ {
		var line string
		line, rest = nextLine(rest)
		ascii := isASCII(line)
		for _, t := range terms {
			if ascii && containsLower(line, t) || !ascii && strings.Contains(strings.ToLower(line), t) {
				hits = append(hits, l)
				break
			}
		}
	}
	return hits
}

// containsLower reports whether s contains lower, a lower-case term, when
// s's ASCII letters are lower-cased (without allocating); other bytes
// compare as they are.
func containsLower(s, lower string) bool {
	n := len(lower)
	if n == 0 {
		return true
	}
	c0 := lower[0]
	u0 := c0
	if c0 >= 'a' && c0 <= 'z' {
		u0 = c0 - 'a' + 'A'
	}
	for i := 0; i+n <= len(s); i++ {
		if c := s[i]; c != c0 && c != u0 {
			continue
		}
		j := 1
		for ; j < n; j++ {
			c := s[i+j]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != lower[j] {
				break
			}
		}
		if j == n {
			return true
		}
	}
	return false
}

// TestHitScratchMatchesLineByLine: the whole-chunk search finds the lines
// the line-by-line one does, over random texts with mixed case, non-ASCII
// letters (whose lower case differs in length: İ), invalid UTF-8, lines
// past the file's end, more hit lines than are kept and a scratch reused
// between calls.
func TestHitScratchMatchesLineByLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	pieces := []string{"a", "b", "A", "B", "ab", "AB", "x", "z", "Z", "@", "[", "\n", "\n", " ", "é", "É", "İ", "i", "ß", "\xff", "_", "1"}
	var h hitScratch
	for n := 0; n < 5000; n++ {
		var sb strings.Builder
		size := 60
		if n%4 == 0 {
			size = 600 // more hit lines than a candidate keeps
		}
		for k := rng.IntN(size); k > 0; k-- {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := sb.String()
		var terms []string
		for k := 1 + rng.IntN(3); k > 0; k-- {
			var tb strings.Builder
			for m := 1 + rng.IntN(3); m > 0; m-- {
				tb.WriteString(pieces[rng.IntN(len(pieces))])
			}
			terms = append(terms, strings.ToLower(tb.String()))
		}
		startLine := 1 + rng.IntN(4)
		endLine := startLine + rng.IntN(30)
		startByte := 0
		if rng.IntN(2) == 0 && len(text) > 0 {
			// The first byte of the start line, or one within it.
			rest, l := text, 1
			for ; l < startLine; l++ {
				i := strings.IndexByte(rest, '\n')
				if i < 0 {
					break
				}
				rest = rest[i+1:]
			}
			if l == startLine {
				startByte = len(text) - len(rest)
				if i := strings.IndexByte(rest, '\n'); i > 0 {
					startByte += rng.IntN(i)
				}
			}
		}
		want := hitLinesByLine(text, startLine, endLine, startByte, terms)
		h.reset(terms)
		got := h.lines(text, startLine, endLine, startByte)
		if !slices.Equal(got, want) {
			t.Fatalf("text %q lines %d-%d from byte %d, terms %q: got %v, want %v", text, startLine, endLine, startByte, terms, got, want)
		}
	}
}

// hitLinesFor resets r's hit search with terms and returns s's hit lines.
func (r *run) hitLinesFor(s *scored, terms []string) []int {
	r.hits.reset(terms)
	return r.hitLines(s)
}
