package semantic

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ctxls/ctxls/internal/index"
)

// TestDots: the search's kernel (AVX2 where the machine has it) gives the
// pure Go loop's dot products, for the dimensions of the workspace
// embedder and of embedding services, at the int8 extremes too.
func TestDots(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, dim := range []int{8, 16, 24, 32, 48, 64, 96, 128, 384, 768, 1536} {
		for _, n := range []int{0, 1, 2, 7, 33} {
			for _, extreme := range []bool{false, true} {
				q := make([]int8, dim)
				vecs := make([]int8, n*dim)
				fill := func(b []int8) {
					for i := range b {
						b[i] = int8(r.IntN(256) - 128)
						if extreme {
							b[i] = []int8{-128, -127, 127}[r.IntN(3)]
						}
					}
				}
				fill(q)
				fill(vecs)
				got, want := make([]int32, n), make([]int32, n)
				dots(q, widen(q), vecs, got)
				dotsGo(q, vecs, want)
				if !slices.Equal(got, want) {
					t.Fatalf("dim %d, %d vectors, extreme %v: dots %v, want %v", dim, n, extreme, got, want)
				}
			}
		}
	}
}

func BenchmarkDots(b *testing.B) {
	const dim, n = 64, 4096
	r := rand.New(rand.NewPCG(1, 2))
	q, vecs := make([]int8, dim), make([]int8, n*dim)
	for i := range vecs {
		vecs[i] = int8(r.IntN(255) - 127)
	}
	for i := range q {
		q[i] = int8(r.IntN(255) - 127)
	}
	q16, out := widen(q), make([]int32, n)
	b.Run("kernel", func(b *testing.B) {
		for b.Loop() {
			dots(q, q16, vecs, out)
		}
	})
	b.Run("go", func(b *testing.B) {
		for b.Loop() {
			dotsGo(q, vecs, out)
		}
	})
}

// TestSearchExact: Search (the kernel, the per-worker heaps, the early
// threshold) returns what scoring every chunk and sorting gives.
func TestSearchExact(t *testing.T) {
	x, _ := indexFiles(t, topics())
	snap := snapshot(t, x)
	s, _, err := Build(context.Background(), snap, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	dim := s.dim()
	for _, text := range []string{"stale entries and capacity", "parse the syntax tree", "distance between coordinates", "cookies"} {
		vec := s.Query(text)
		q := make([]int8, dim)
		qs := quantize(vec, q)
		var all []cand
		for _, p := range s.paths {
			f := s.file(p)
			for i, sc := range f.Scales {
				if sc != 0 {
					all = append(all, cand{p, i, float32(dot8(q, f.Vecs[i*dim:(i+1)*dim])) * sc * qs})
				}
			}
		}
		slices.SortFunc(all, func(a, b cand) int {
			if worse(a, b) {
				return 1
			}
			return -1
		})
		for _, k := range []int{1, 3, 10, 1000} {
			for _, floor := range []float32{-1, 0, 0.2, 0.5} {
				var want []Hit
				for _, c := range all {
					if c.score >= floor && len(want) < k {
						want = append(want, Hit{index.ChunkIDOf(c.path, c.ord), c.score})
					}
				}
				if got := s.Search(snap, vec, k, floor, nil); !slices.Equal(got, want) {
					t.Fatalf("%q, k %d, floor %v:\n got %v\nwant %v", text, k, floor, got, want)
				}
			}
		}
	}
}
