package retrieve

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/index"
)

// pathScoreByPair is pathScore as it was written before the mentioned
// paths' forms were made once per request: every form made again for
// each (file, mention) pair. The reference TestPathScoreForms compares
// with.
func pathScoreByPair(p string, qpaths []string, words map[string]bool, camel bool) float64 {
	isPackageInit := func(stem, m string) bool {
		return stem == m+"/__init__" || strings.HasSuffix(stem, "/"+m+"/__init__") ||
			!strings.Contains(m, "/") && strings.HasSuffix(stem, "/__"+m+"__") || stem == "__"+m+"__"
	}
	s := 0.0
	stem := strings.TrimSuffix(p, pathExt(p))
	for _, qp := range qpaths {
		qstem := strings.TrimSuffix(qp, pathExt(qp))
		switch {
		case p == qp || (strings.HasSuffix(p, qp) && len(p) > len(qp) && p[len(p)-len(qp)-1] == '/'):
			s += 10
		case stem == qstem || strings.HasSuffix(stem, "/"+qstem) || isPackageInit(stem, qstem):
			s += 5
		}
	}
	slash := strings.LastIndexByte(p, '/')
	base := p[slash+1:]
	base = strings.TrimSuffix(base, pathExt(base))
	if lower := lowerASCII(base); words[lower] || words[strings.Trim(lower, "_")] {
		s += 3
	} else {
		index.StemParts(base, camel, func(part string) {
			if len(part) >= 4 && words[part] {
				s++
			}
		})
	}
	if slash > 0 {
		for dirs := p[:slash]; dirs != ""; {
			d, rest, _ := strings.Cut(dirs, "/")
			if words[lowerASCII(d)] {
				s += 0.5
			}
			dirs = rest
		}
	}
	return s
}

// TestPathScoreForms: scoring paths against the mentions' forms made
// once gives every path the score of making them for each pair, for
// paths and mentions built of the parts that matter (package inits,
// dunder files, extensions, nested directories).
func TestPathScoreForms(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	parts := []string{"a", "sphinx", "theming", "__init__", "__theming__", "init", "x"}
	exts := []string{"", ".py", ".go", ".tar.gz"}
	randPath := func() string {
		n := 1 + rng.IntN(3)
		el := make([]string, n)
		for i := range el {
			el[i] = parts[rng.IntN(len(parts))]
		}
		return strings.Join(el, "/") + exts[rng.IntN(len(exts))]
	}
	words := map[string]bool{"theming": true, "sphinx": true, "init": true}
	for range 3000 {
		var qpaths []string
		for range rng.IntN(4) {
			qpaths = append(qpaths, randPath())
		}
		p := randPath()
		for _, camel := range []bool{true, false} {
			if got, want := pathScore(p, qpaths, words, camel), pathScoreByPair(p, qpaths, words, camel); got != want {
				t.Fatalf("pathScore(%q, %q) = %v, made per pair %v", p, qpaths, got, want)
			}
		}
	}
}

// BenchmarkPathScoreDiff scores 10 000 paths against the 99 files of a
// diff, as the path channel of a review bot's request does.
func BenchmarkPathScoreDiff(b *testing.B) {
	var paths, mentions []string
	for i := range 10_000 {
		paths = append(paths, "src/pkg"+strings.Repeat("x", i%7)+"/sub/file"+string(rune('a'+i%26))+".go")
	}
	for i := range 99 {
		mentions = append(mentions, paths[i*101])
	}
	words := map[string]bool{"file": true, "sub": true}
	b.ReportAllocs()
	for b.Loop() {
		ms := newPathMentions(mentions)
		for _, p := range paths {
			ms.score(p, words, false)
		}
	}
}
