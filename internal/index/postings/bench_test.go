package postings

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchDocs makes n documents of about 60 distinct terms each over a
// vocabulary of 20 000 (Zipf-distributed, like code identifiers).
func benchDocs(n int) []*Doc {
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.1, 1, 19999)
	docs := make([]*Doc, n)
	for i := range docs {
		d := &Doc{ID: fmt.Sprintf("pkg/file%d.go#%d", i/10, i%10)}
		seen := map[uint64]bool{}
		for range 60 {
			t := zipf.Uint64()
			if seen[t] {
				continue
			}
			seen[t] = true
			d.Add(0, fmt.Appendf(nil, "term%d", t), uint32(1+rng.IntN(3)))
		}
		d.Len[0] = uint32(len(seen)) * 2
		docs[i] = d
	}
	return docs
}

// BenchmarkBuild: 10 000 documents added to a store in memory and sealed
// into one segment.
func BenchmarkBuild(b *testing.B) {
	docs := benchDocs(10000)
	b.ReportAllocs()
	for b.Loop() {
		s, _ := Create("")
		for _, d := range docs {
			s.Add(d)
		}
		if err := s.Seal(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLookup: one term's postings read over a sealed store of
// 10 000 documents, a common term and a rare one in turn.
func BenchmarkLookup(b *testing.B) {
	s, _ := Create("")
	for _, d := range benchDocs(10000) {
		s.Add(d)
	}
	r, err := s.Reader()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		term := "term1"
		if i++; i%2 == 0 {
			term = "term5000"
		}
		p := r.Lookup(0, term)
		for {
			if _, _, _, ok := p.Next(); !ok {
				break
			}
		}
	}
}
