package postings

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxls/ctxls/internal/gotree"
	"github.com/ctxls/ctxls/internal/index/analysis"
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

// goSrcDocs makes documents of Go's own source the way the index does:
// each file cut into 60-line pieces, each piece's text analyzed with the
// code analyzer into the text field, its path into the path field. At
// most limit bytes of source are read.
func goSrcDocs(b *testing.B, limit int) []*Doc {
	root := gotree.Src(b)
	paths := gotree.Files(b, root, gotree.IsGo)
	if len(paths) == 0 {
		b.Skip("no Go sources under GOROOT")
	}
	var ac analysis.Counter
	var docs []*Doc
	size := 0
	stride := max(1, len(paths)/2000)
	for i := 0; i < len(paths) && size < limit; i += stride {
		src, err := os.ReadFile(paths[i])
		if err != nil {
			b.Fatal(err)
		}
		size += len(src)
		rel, _ := filepath.Rel(root, paths[i])
		lines := bytes.SplitAfter(src, []byte("\n"))
		for k := 0; k < len(lines); k += 60 {
			d := &Doc{ID: fmt.Sprintf("%s#%d", rel, k)}
			body := bytes.Join(lines[k:min(k+60, len(lines))], nil)
			d.Len[0] = uint32(ac.Count(func(t []byte, f uint32) { d.Add(0, t, f) }, []byte(rel), body))
			d.Len[2] = uint32(ac.Count(func(t []byte, f uint32) { d.Add(2, t, f) }, []byte(rel)))
			docs = append(docs, d)
		}
	}
	return docs
}

// BenchmarkBuilderGoSrc: the documents of about 16 MB of Go's source
// added to a builder (the writer's share of a build: the dictionaries'
// lookups and the postings' encoding).
func BenchmarkBuilderGoSrc(b *testing.B) {
	docs := goSrcDocs(b, 16<<20)
	b.ReportAllocs()
	for b.Loop() {
		bl := NewBuilder()
		for _, d := range docs {
			bl.Add(d)
		}
	}
	b.ReportMetric(float64(len(docs)), "docs/op")
}
