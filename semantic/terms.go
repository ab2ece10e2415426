package semantic

import (
	"slices"

	"github.com/ctxls/ctxls/index/analysis"
)

// bag is a chunk's terms with their counts, sorted by term.
type bag struct {
	terms  []string
	counts []int32
	total  int32 // terms counted, stopwords excluded
}

// bagger turns texts into bags; one per goroutine. It interns terms, so
// that a term costs one string however many chunks it is in.
type bagger struct {
	counts map[string]int32
	keys   []string
	intern map[string]string
}

func newBagger() *bagger { return &bagger{counts: map[string]int32{}, intern: map[string]string{}} }

// add counts the terms of text.
func (g *bagger) add(text string) {
	analysis.Visit([]byte(text), func(term []byte, _, _ int, numeric bool) {
		if numeric || stopword(term) {
			return
		}
		if n, ok := g.counts[string(term)]; ok {
			g.counts[string(term)] = n + 1
			return
		}
		t, ok := g.intern[string(term)]
		if !ok {
			t = string(term)
			g.intern[t] = t
		}
		g.counts[t] = 1
	})
}

// take returns the bag of what was added since the last take.
func (g *bagger) take() bag {
	g.keys = g.keys[:0]
	for k := range g.counts {
		g.keys = append(g.keys, k)
	}
	slices.Sort(g.keys)
	b := bag{terms: slices.Clone(g.keys), counts: make([]int32, len(g.keys))}
	for i, k := range g.keys {
		b.counts[i] = g.counts[k]
		b.total += g.counts[k]
	}
	clear(g.counts)
	return b
}

// queryTerms are the distinct terms of a query, as a chunk's are counted.
func queryTerms(text string) []string {
	g := newBagger()
	g.add(text)
	return g.take().terms
}

// stopword reports whether term carries no topic: English function words
// and the keywords every language repeats.
func stopword(term []byte) bool {
	switch string(term) {
	case "a", "an", "and", "are", "as", "at", "be", "but", "by", "can", "do", "does", "for", "from",
		"has", "have", "if", "in", "into", "is", "it", "its", "no", "not", "of", "on", "or", "so",
		"than", "that", "the", "then", "there", "these", "this", "those", "to", "was", "were", "when",
		"which", "while", "will", "with", "would", "we", "you", "your", "our", "they", "he", "she",
		"his", "her", "them", "us", "me", "my", "i", "func", "return", "else", "var", "const", "type",
		"struct", "interface", "package", "import", "go", "defer", "range", "nil", "true", "false",
		"def", "self", "cls", "none", "elif", "pass", "lambda", "class", "public", "private",
		"protected", "static", "final", "void", "new", "super", "let", "fn", "pub", "impl",
		"mut", "use", "mod", "crate", "match", "loop", "break", "continue", "switch", "case", "default",
		"try", "catch", "throw", "throws", "function", "export", "extends", "implements", "typeof",
		"instanceof", "undefined", "null", "int", "string", "bool", "err", "error":
		return true
	}
	return false
}
