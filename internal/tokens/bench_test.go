package tokens

import (
	"testing"
)

// Benchmarks run on benchCorpus, 1 MiB of Go from GOROOT/src/go and
// GOROOT/src/net/http:
//
//	go test -run '^$' -bench . -benchmem ./tokens/
//
// "cold" builds a counter with an empty piece cache for every count (the
// rank table is shared); "warm" counts the corpus again with the cache the
// previous counts filled.

func BenchmarkCount(b *testing.B) {
	corpus := benchCorpus(b)
	for _, name := range tiktokenEncodings {
		e := encoding(b, name)
		b.Run("tiktoken-go/"+name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(corpus)))
			for b.Loop() {
				e.oracle.Count(corpus)
			}
		})
		b.Run("exact-cold/"+name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(corpus)))
			for b.Loop() {
				e.exact(name).Count(corpus)
			}
		})
		b.Run("exact-warm/"+name, func(b *testing.B) {
			c := e.exact(name)
			c.Count(corpus)
			b.ReportAllocs()
			b.SetBytes(int64(len(corpus)))
			for b.Loop() {
				c.Count(corpus)
			}
		})
		b.Run("exact-warm-parallel/"+name, func(b *testing.B) {
			c := e.exact(name)
			c.Count(corpus)
			b.ReportAllocs()
			b.SetBytes(int64(len(corpus)))
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					c.Count(corpus)
				}
			})
		})
	}
}

// BenchmarkBuild measures building an encoder. tiktoken-go keeps the parsed
// ranks of an encoding in a process-wide cache after the first build, so its
// numbers here exclude parsing the rank file; ours include it.
func BenchmarkBuild(b *testing.B) {
	for _, name := range tiktokenEncodings {
		b.Run("exact/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := NewBPE(name); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("tiktoken-go/"+name, func(b *testing.B) {
			reg := NewRegistry()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := reg.NewTiktoken(name); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
