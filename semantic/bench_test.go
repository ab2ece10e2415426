package semantic

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxls/ctxls/index"
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
