package tokens

import (
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/gotree"
)

// fragments are the building blocks of random texts: ordinary code and
// prose, every kind of white space and newline, the characters the
// pre-tokenizers treat specially, and invalid UTF-8.
var fragments = []string{
	"a", "Z", "foo", "Bar", "HTTP", "9", "123", " ", "  ", "\t", "\n", "\r\n", "\r", "\v", "/", "//",
	"'s", "'LL", "'", "+=", "{", "}", "(", ".", "-", "*", "#", "\x00", "\u00a0", "\u2028", "\u0085",
	"\u3000", "\u0301", "ǅ", "ʰ", "😀", "日本", "\xff", "\xe2\x82", "<|endoftext|>",
	"Ab", "aB", "ÀÉ", "ऄ", "ſ", "\u212a", "İ", "'re", "'VE", "'d", "'t", "'m", "'ll", "١", "Ⅻ", "é",
}

func randomText(rnd interface{ IntN(int) int }, maxFragments int) string {
	var b strings.Builder
	for range 1 + rnd.IntN(maxFragments) {
		b.WriteString(fragments[rnd.IntN(len(fragments))])
	}
	return b.String()
}

func TestAdditive(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"", "", true}, {"x", "", true}, {"", " y", true},
		{"x\n", "y", true}, {"x\n", "\xffy", true}, {"x\n", "+", true}, {"x\n", "\u0301", true},
		{"x", "y", false}, {"x\n ", "y", false}, {"x\n", " y", false}, {"x\n", "\ny", false},
		{"x\n", "/y", false}, {"x\n", "\u3000y", false}, {"x\n", "\u0085", false},
	} {
		if got := Additive(tc.a, tc.b); got != tc.want {
			t.Errorf("Additive(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestAdditivityRandom checks the additivity rule of Counter on random
// texts, and that the counterexamples documented there are real.
func TestAdditivityRandom(t *testing.T) {
	for _, name := range tiktokenEncodings {
		e := encoding(t, name)
		c := e.exact(name)
		rnd := newRand(7)
		checked := 0
		for i := 0; checked < 40_000; i++ {
			a := randomText(rnd, 6) + "\n"
			b := randomText(rnd, 6)
			if !Additive(a, b) {
				continue
			}
			checked++
			if got, want := c.Count(a+b), c.Count(a)+c.Count(b); got != want {
				t.Fatalf("%s: Count(%q + %q) = %d, want %d", name, a, b, got, want)
			}
			// The rule is tiktoken's, not an artefact of this counter.
			if checked%100 == 0 {
				if got, want := e.oracle.Count(a+b), e.oracle.Count(a)+e.oracle.Count(b); got != want {
					t.Fatalf("%s: tiktoken-go Count(%q + %q) = %d, want %d", name, a, b, got, want)
				}
			}
		}
	}
	// Why the condition looks at b's first rune and excludes '/'.
	for _, tc := range []struct{ enc, a, b string }{
		{"cl100k_base", "x\n", "\n"},
		{"o200k_base", "x\n", " \n"},
		{"o200k_base", "\n\n", "\u3000\n"},
		{"o200k_base", "x.\n", "/"},
	} {
		c := encoding(t, tc.enc).oracle
		if c.Count(tc.a+tc.b) == c.Count(tc.a)+c.Count(tc.b) {
			t.Errorf("%s: %q + %q is additive; the documented counterexample is wrong", tc.enc, tc.a, tc.b)
		}
	}
}

// TestAdditivityRealSegments cuts real files before lines that satisfy the
// additivity rule and checks the parts' counts add up to the whole's.
func TestAdditivityRealSegments(t *testing.T) {
	root := gotree.Root(t)
	files := sampleFiles(t, root, corpusFiles(t, root, ".go", ".md", ".c", ".py", ".js"), 1_000_000)
	rnd := newRand(3)
	for _, name := range tiktokenEncodings {
		c := encoding(t, name).exact(name)
		cuts := 0
		for _, f := range files {
			text, err := readFile(f)
			if err != nil {
				t.Fatal(err)
			}
			// Cut at a random subset of the allowed line starts.
			var parts []string
			start := 0
			for i := 0; i < len(text); {
				nl := strings.IndexByte(text[i:], '\n')
				if nl < 0 {
					break
				}
				i += nl + 1
				if Additive(text[start:i], text[i:]) && i < len(text) && rnd.IntN(3) == 0 {
					parts = append(parts, text[start:i])
					start = i
				}
			}
			parts = append(parts, text[start:])
			sum := 0
			for _, p := range parts {
				sum += c.Count(p)
			}
			if whole := c.Count(text); sum != whole {
				t.Errorf("%s %s: %d parts count %d, whole %d", name, f, len(parts), sum, whole)
			}
			cuts += len(parts) - 1
		}
		if cuts < 1000 {
			t.Errorf("%s: only %d cuts", name, cuts)
		}
	}
}
