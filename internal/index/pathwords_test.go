package index

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// pathIndex maps every PathWords word of every path to the paths that
// have it, ascending and each once, as a path-by-path reading of
// PathWords does.
func TestPathIndexAgreesWithPathWords(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	parts := []string{"net", "http", "Server", "keep_alive", "HTTPServer", "copy1", "copy2", "x", "a.b", "README", ".git", "go", "internal", "net"}
	seen := map[string]bool{}
	for range 400 {
		var segs []string
		for range 1 + rng.IntN(5) {
			segs = append(segs, parts[rng.IntN(len(parts))])
		}
		seen[strings.Join(segs, "/")+[]string{".go", "", ".test.ts", "_test.go"}[rng.IntN(4)]] = true
	}
	paths := slices.Sorted(maps.Keys(seen))
	want := map[string][]int32{}
	for i, p := range paths {
		PathWords(p, func(w string) {
			if l := want[w]; len(l) == 0 || l[len(l)-1] != int32(i) {
				want[w] = append(l, int32(i))
			}
		})
	}
	got := (&tables{paths: paths}).pathIndex()
	if !maps.EqualFunc(got, want, slices.Equal[[]int32]) {
		for w, l := range want {
			if !slices.Equal(got[w], l) {
				t.Errorf("%q: %v, want %v", w, got[w], l)
			}
		}
		for w := range got {
			if _, ok := want[w]; !ok {
				t.Errorf("%q: not a path word", w)
			}
		}
	}
}
