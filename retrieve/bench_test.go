package retrieve

import (
	"context"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ctxls/ctxls/assemble"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/tokens"
)

// benchQueries are questions one asks of Go's source tree.
var benchQueries = []string{
	"how does the http server handle keep-alive connections",
	"parse a duration string like 1h30m",
	"where is the garbage collector write barrier implemented",
	"json Unmarshal into an interface value",
	"strconv.ParseFloat rounding of halfway cases",
	"how does sync.Pool clear items at GC",
	"TLS handshake client certificate verification",
	"filepath.Walk skips directories with SkipDir",
	"context cancellation propagates to child contexts",
	"bufio.Scanner token too long error",
	"os/exec command wait closes pipes",
	"net.Dial timeout and deadline handling",
	"regexp compile syntax error message",
	"time.Ticker stop and reset",
	"map iteration order randomization in the runtime",
	"goroutine stack growth copystack",
	"reflect.Value.Call with variadic arguments",
	"gzip reader multistream",
	"sort.Slice stability insertion sort",
	"url.Parse escapes path and query",
}

// BenchmarkRequest measures the in-process request (channels + fusion +
// assembly, 8 000 tokens, cl100k_base) on the tree named by
// CTXLS_BENCH_TREE (e.g. $(go env GOROOT)/src), whose index is built (or
// opened from the cache) first. It reports p50/p95 latency over the
// queries.
func BenchmarkRequest(b *testing.B) {
	root := os.Getenv("CTXLS_BENCH_TREE")
	if root == "" {
		b.Skip("set CTXLS_BENCH_TREE to a source tree, e.g. $(go env GOROOT)/src")
	}
	ctx := context.Background()
	reg := tokens.NewRegistry()
	counter, err := reg.Get(DefaultEncoding)
	if err != nil {
		b.Fatal(err)
	}
	// CTXLS_BENCH_INDEX, if set, is the index directory (else the default);
	// CTXLS_BENCH_TEXTCACHE, if set, is Options.TextCacheBytes (-1: every
	// request reads and hashes its files again).
	textCache, _ := strconv.Atoi(os.Getenv("CTXLS_BENCH_TEXTCACHE"))
	x, err := index.Open(ctx, root, index.Options{CacheDir: os.Getenv("CTXLS_BENCH_INDEX"), TextCacheBytes: textCache,
		Counters: map[string]tokens.Counter{DefaultEncoding: counter}})
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	snap, release := x.Snapshot()
	defer release()
	e := NewEngine(reg)
	// One request first: the index builds its symbol maps on first use.
	if _, err := e.Assemble(ctx, snap, Request{Query: benchQueries[0], Budget: assemble.Budget{MaxTokens: 8000}}); err != nil {
		b.Fatal(err)
	}
	var lat []time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		q := benchQueries[i%len(benchQueries)]
		start := time.Now()
		res, err := e.Assemble(ctx, snap, Request{Query: q, Budget: assemble.Budget{MaxTokens: 8000}})
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
		if res.Stats.TotalTokens > 8000 {
			b.Fatalf("over budget: %d", res.Stats.TotalTokens)
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
}
