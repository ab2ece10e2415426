package semantic

import (
	"context"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/coder/hnsw"

	"github.com/ctxls/ctxls/internal/index"
)

// Benchmarks on a real tree, when CTXLS_BENCH_TREE names one:
//
//	CTXLS_BENCH_TREE=$(go env GOROOT)/src go test ./semantic -run '^$' -bench . -benchtime 1x
//
// The tree is indexed first (cached in the benchmark's temporary
// directory), untimed.
func benchSnapshot(b *testing.B) *index.Snapshot {
	dir := os.Getenv("CTXLS_BENCH_TREE")
	if dir == "" {
		b.Skip("CTXLS_BENCH_TREE not set")
	}
	cache := os.Getenv("CTXLS_BENCH_CACHE")
	if cache == "" {
		cache = filepath.Join(b.TempDir(), "cache")
	}
	x, err := index.Open(context.Background(), dir, index.Options{CacheDir: cache, CheckpointDelay: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { x.Close() })
	if err := x.Wait(context.Background()); err != nil {
		b.Fatal(err)
	}
	snap, release := x.Snapshot()
	b.Cleanup(release)
	return snap
}

// BenchmarkBuild trains a model and embeds every chunk.
func BenchmarkBuild(b *testing.B) {
	snap := benchSnapshot(b)
	b.ReportAllocs()
	var s *Store
	for b.Loop() {
		var err error
		if s, _, err = Build(context.Background(), snap, DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(s.model.Terms)), "terms")
	b.ReportMetric(float64(snap.NumChunks()), "chunks")
}

// BenchmarkSearch is one query against every chunk.
func BenchmarkSearch(b *testing.B) {
	snap := benchSnapshot(b)
	s, _, err := Build(context.Background(), snap, DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	q := s.Query("parse the HTTP request header and check the content length")
	b.ReportAllocs()
	for b.Loop() {
		s.Search(snap, q, 50, 0.2, nil)
	}
}

// BenchmarkANN measures what an HNSW index (github.com/coder/hnsw, the
// approximate-search library considered) would cost and give beside the exact
// search: the graph's build time over every chunk vector, a query's time,
// and its recall of the exact top 50. Not used by ctxls (docs/benchmarks.md
// says why).
func BenchmarkANN(b *testing.B) {
	snap := benchSnapshot(b)
	s, _, err := Build(context.Background(), snap, DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	dim := s.dim()
	g := hnsw.NewGraph[int]()
	g.Distance = hnsw.CosineDistance
	g.Rng = rand.New(rand.NewSource(1))
	if ef, err := strconv.Atoi(os.Getenv("CTXLS_BENCH_EF")); err == nil {
		g.EfSearch = ef // tuning: the library's default is 20
	}
	var ids []index.ChunkID
	var nodes []hnsw.Node[int]
	for _, p := range s.paths {
		f := s.file(p)
		for i, sc := range f.Scales {
			if sc == 0 {
				continue
			}
			v := make([]float32, dim)
			dequantize(f.Vecs[i*dim:(i+1)*dim], sc, v)
			nodes = append(nodes, hnsw.MakeNode(len(ids), v))
			ids = append(ids, index.ChunkIDOf(p, i))
		}
	}
	start := time.Now()
	g.Add(nodes...)
	build := time.Since(start)
	queries := []string{"parse the HTTP request header", "garbage collector write barrier", "json decode into interface",
		"tls handshake certificate", "goroutine stack growth", "time ticker reset", "url escape query", "sort stability"}
	var recall float64
	var searchTime time.Duration
	for _, q := range queries {
		vec := s.Query(q)
		exact := s.Search(snap, vec, 50, -1, nil)
		t0 := time.Now()
		approx := g.Search(vec, 50)
		searchTime += time.Since(t0)
		want := map[index.ChunkID]bool{}
		for _, h := range exact {
			want[h.ID] = true
		}
		hit := 0
		for _, n := range approx {
			if want[ids[n.Key]] {
				hit++
			}
		}
		recall += float64(hit) / float64(max(len(exact), 1))
	}
	for b.Loop() {
		g.Search(s.Query(queries[0]), 50)
	}
	// After the loop: b.Loop's first call resets user metrics.
	b.ReportMetric(build.Seconds(), "build-s")
	b.ReportMetric(float64(searchTime.Microseconds())/float64(len(queries)), "query-µs")
	b.ReportMetric(recall/float64(len(queries)), "recall@50")
	b.ReportMetric(float64(len(nodes)), "vectors")
}
