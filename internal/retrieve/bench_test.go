package retrieve

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/semantic"
	"github.com/ctxls/ctxls/internal/tokens"
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

// openBenchTree opens (building or reading the cache) the index of the
// tree CTXLS_BENCH_TREE names, skipping the benchmark without one.
// CTXLS_BENCH_INDEX, if set, is the index directory (else the default);
// CTXLS_BENCH_TEXTCACHE, if set, is Options.TextCacheBytes (-1: every
// request reads and hashes its files again).
func openBenchTree(b *testing.B) (*tokens.Registry, *index.Snapshot) {
	root := os.Getenv("CTXLS_BENCH_TREE")
	if root == "" {
		b.Skip("set CTXLS_BENCH_TREE to a source tree, e.g. $(go env GOROOT)/src")
	}
	reg := tokens.NewRegistry()
	counter, err := reg.Get(DefaultEncoding)
	if err != nil {
		b.Fatal(err)
	}
	textCache, _ := strconv.Atoi(os.Getenv("CTXLS_BENCH_TEXTCACHE"))
	x, err := index.Open(context.Background(), root, index.Options{CacheDir: os.Getenv("CTXLS_BENCH_INDEX"), TextCacheBytes: textCache,
		Counters: map[string]tokens.Counter{DefaultEncoding: counter}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { x.Close() })
	snap, release := x.Snapshot()
	b.Cleanup(release)
	return reg, snap
}

// benchRequests runs req(i) for each iteration of b, checks each result's
// budget, and reports allocations and the p50/p95 latency.
func benchRequests(b *testing.B, e *Engine, snap *index.Snapshot, req func(i int) Request) {
	ctx := context.Background()
	var lat []time.Duration
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r := req(i)
		start := time.Now()
		res, err := e.Assemble(ctx, snap, r)
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
		if res.Stats.TotalTokens > r.Budget.MaxTokens {
			b.Fatalf("over budget: %d > %d", res.Stats.TotalTokens, r.Budget.MaxTokens)
		}
	}
	reportLatency(b, lat)
}

// reportLatency reports the p50 and p95 of request latencies.
func reportLatency(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
}

// BenchmarkRequest measures the in-process request (channels + fusion +
// assembly, cl100k_base) at 2 000 tokens (with the next-best files' maps)
// and 8 000 on the tree named by CTXLS_BENCH_TREE (e.g. $(go env
// GOROOT)/src), whose index is built (or opened from the cache) first. It
// reports p50/p95 latency over the queries.
func BenchmarkRequest(b *testing.B) {
	ctx := context.Background()
	reg, snap := openBenchTree(b)
	e := NewEngine(reg)
	// One request first: the index builds its symbol maps on first use.
	if _, err := e.Assemble(ctx, snap, Request{Query: benchQueries[0], Budget: assemble.Budget{MaxTokens: 8000}}); err != nil {
		b.Fatal(err)
	}
	// The same with the semantic channel (its vectors computed first,
	// untimed), named semantic-2000 and semantic-8000.
	store, _, err := semantic.Build(ctx, snap, semantic.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	for _, sem := range []*semantic.Store{nil, store} {
		for _, budget := range []int{2000, 8000} {
			name := strconv.Itoa(budget)
			if sem != nil {
				name = "semantic-" + name
			}
			b.Run(name, func(b *testing.B) {
				benchRequests(b, e, snap, func(i int) Request {
					return Request{Query: benchQueries[i%len(benchQueries)], Budget: assemble.Budget{MaxTokens: budget}, Semantic: sem}
				})
			})
		}
	}
}

// benchCursors are cursors in Go's source tree: long files, test files,
// the middle of large functions.
var benchCursors = []Focus{
	{Path: "net/http/server.go", Line: 2000}, {Path: "net/http/transport.go", Line: 1500},
	{Path: "runtime/proc.go", Line: 3000}, {Path: "runtime/mgc.go", Line: 900},
	{Path: "go/types/expr.go", Line: 700}, {Path: "cmd/compile/internal/ssagen/ssa.go", Line: 3000},
	{Path: "encoding/json/decode.go", Line: 400}, {Path: "net/http/cgi/child_test.go", Line: 191},
	{Path: "crypto/tls/handshake_client.go", Line: 300}, {Path: "strconv/number.go", Line: 120},
	{Path: "database/sql/sql.go", Line: 1800}, {Path: "os/exec/exec.go", Line: 600},
}

// BenchmarkCursorRequest measures cursor-only requests (focus, no query) on
// CTXLS_BENCH_TREE at 2 000 and 8 000 tokens: "wholefile" is the default
// focus channel (names from the whole file, declaration maps), "window"
// the channel before it (names from 60 lines above and 20 below, no focus
// maps), measured in the same run.
func BenchmarkCursorRequest(b *testing.B) {
	ctx := context.Background()
	reg, snap := openBenchTree(b)
	window := DefaultOptions()
	window.FocusAbove, window.FocusBelow, window.FocusMapBelow = 60, 20, 0
	for _, v := range []struct {
		name string
		opts Options
	}{{"wholefile", DefaultOptions()}, {"window", window}} {
		for _, budget := range []int{2000, 8000} {
			b.Run(v.name+"/"+strconv.Itoa(budget), func(b *testing.B) {
				e := NewEngineWith(reg, v.opts)
				if _, err := e.Assemble(ctx, snap, Request{Focus: &benchCursors[0], Budget: assemble.Budget{MaxTokens: budget}}); err != nil {
					b.Fatal(err)
				}
				benchRequests(b, e, snap, func(i int) Request {
					f := benchCursors[i%len(benchCursors)]
					return Request{Focus: &f, Budget: assemble.Budget{MaxTokens: budget}}
				})
			})
		}
	}
}

// BenchmarkDiffRequest measures diff requests (a review bot's: the diff,
// no question) on CTXLS_BENCH_TREE at 2 000 and 8 000 tokens. Each diff
// edits benchDiffLines lines in the middle of a 40-line hunk at one of
// benchCursors' places, the shape of a small commit's change.
func BenchmarkDiffRequest(b *testing.B) {
	ctx := context.Background()
	reg, snap := openBenchTree(b)
	e := NewEngine(reg)
	var diffs []string
	for _, f := range benchCursors {
		text, ok := snap.Text(f.Path)
		if !ok {
			b.Fatalf("%s: not in the bench tree", f.Path)
		}
		diffs = append(diffs, benchDiff(f.Path, text, f.Line))
	}
	for _, budget := range []int{2000, 8000} {
		b.Run(strconv.Itoa(budget), func(b *testing.B) {
			if _, err := e.Assemble(ctx, snap, Request{Diff: diffs[0], Budget: assemble.Budget{MaxTokens: budget}}); err != nil {
				b.Fatal(err)
			}
			benchRequests(b, e, snap, func(i int) Request {
				return Request{Diff: diffs[i%len(diffs)], Budget: assemble.Budget{MaxTokens: budget}}
			})
		})
	}
}

// benchDiffLines is how many lines a bench diff changes.
const benchDiffLines = 6

// benchDiff is a unified diff of path that changes benchDiffLines lines
// (each gets a trailing comment) in a 40-line hunk starting at line at.
func benchDiff(path, text string, at int) string {
	lines := strings.Split(text, "\n")
	at = max(1, min(at, len(lines)-40))
	hunk := lines[at-1 : at-1+40]
	var sb strings.Builder
	fmt.Fprintf(&sb, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -%d,40 +%d,40 @@\n", path, path, path, path, at, at)
	for i, l := range hunk {
		if i >= 17 && i < 17+benchDiffLines {
			fmt.Fprintf(&sb, "-%s\n+%s // changed\n", l, l)
			continue
		}
		fmt.Fprintf(&sb, " %s\n", l)
	}
	return sb.String()
}
