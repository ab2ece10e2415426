package retrieve

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/index"
)

// TestPathWordsCoverPathScore: every path pathScore rewards shares a word
// with the keys the path channel asks the index for, so prefiltering by
// index.PathWords never drops a path the full scan would have scored.
func TestPathWordsCoverPathScore(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	parts := []string{"net", "http", "Server", "server", "keep_alive", "keep-alive", "x.y", "README", "io", "json", "Decode", "internal", "cmd", "go", "test", "", ".hidden", "a.b.c"}
	exts := []string{".go", ".md", "", ".test.go", ".C"}
	randPath := func() string {
		var b strings.Builder
		for n := rng.IntN(4); n > 0; n-- {
			b.WriteString(parts[rng.IntN(len(parts))])
			b.WriteByte('/')
		}
		b.WriteString(parts[rng.IntN(len(parts))] + parts[rng.IntN(len(parts))])
		b.WriteString(exts[rng.IntN(len(exts))])
		return strings.TrimPrefix(b.String(), "/")
	}
	for i := 0; i < 20000; i++ {
		p := randPath()
		if p == "" {
			continue
		}
		words := map[string]bool{}
		for n := rng.IntN(4); n > 0; n-- {
			if w := strings.ToLower(parts[rng.IntN(len(parts))]); len(w) >= 3 { // as the channel
				words[w] = true
			}
		}
		var qpaths []string
		if rng.IntN(3) == 0 {
			qpaths = append(qpaths, randPath())
		}
		if pathScore(p, qpaths, words, true) <= 0 {
			continue
		}
		keys := map[string]bool{}
		for w := range words {
			keys[w] = true
		}
		for _, qp := range qpaths {
			base := qp[strings.LastIndexByte(qp, '/')+1:]
			keys[lowerASCII(strings.TrimSuffix(base, pathExt(base)))] = true
		}
		var have []string
		index.PathWords(p, func(w string) { have = append(have, w) })
		if !slices.ContainsFunc(have, func(w string) bool { return keys[w] }) {
			t.Fatalf("path %q scores %v for words %v, paths %v, but its words %v miss the keys %v",
				p, pathScore(p, qpaths, words, true), words, qpaths, have, fmt.Sprint(keys))
		}
	}
}
