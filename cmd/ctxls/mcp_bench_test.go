package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Benchmarks of `ctxls mcp` as a real process on a real tree, run only when
// CTXLS_BENCH_TREE names one:
//
//	CTXLS_BENCH_TREE=$(go env GOROOT)/src CTXLS_BENCH_CACHE=DIR go test ./cmd/ctxls -run '^$' -bench MCP -benchtime 200x -timeout 30m
//
// The process is this test binary run as ctxls (TestMain), started with
// `mcp --root TREE --cache-dir CACHE` and driven by the Go SDK's client over
// stdio. The first benchmark warms the index (builds it when CACHE holds
// none). Latencies are client-side, p50-ms and p95-ms.

// mcpBenchQueries are questions over Go's standard library.
var mcpBenchQueries = []string{
	"how does the http server handle keep-alive connections",
	"parse a duration string like 1h30m",
	"gzip writer flush and close",
	"how is map iteration order randomized",
	"json decoder reading a stream of tokens",
	"tls handshake client hello",
	"how does sort.Slice choose pivots",
	"bufio scanner max token size",
	"context cancellation propagates to children",
	"filepath walk skips directories",
	"regexp compile onepass",
	"strconv ParseFloat rounding",
	"template execution escapes html",
	"sql database connection pool max idle",
	"base64 encoding without padding",
	"how are goroutines preempted",
}

// mcpBench starts `ctxls mcp` on the tree and connects to it.
func mcpBench(b *testing.B, extra ...string) (*sdk.ClientSession, func()) {
	b.Helper()
	tree := os.Getenv("CTXLS_BENCH_TREE")
	if tree == "" {
		b.Skip("CTXLS_BENCH_TREE is not set")
	}
	cache := os.Getenv("CTXLS_BENCH_CACHE")
	if cache == "" {
		cache = b.TempDir()
		b.Setenv("CTXLS_BENCH_CACHE", cache)
	}
	cmd := exec.Command(os.Args[0], append([]string{"mcp", "--root", tree, "--cache-dir", cache}, extra...)...)
	cmd.Env = append(os.Environ(), runAsMain+"=1")
	client := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return cs, func() { cs.Close() }
}

// mcpCall calls a tool and fails the benchmark on an error result.
func mcpCall(b *testing.B, cs *sdk.ClientSession, tool string, args map[string]any) map[string]any {
	b.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		b.Fatal(err)
	}
	if res.IsError {
		b.Fatalf("%s: %v", tool, res.Content)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var out map[string]any
	json.Unmarshal(raw, &out)
	return out
}

// waitIndexed waits until index_status says the root is complete.
func waitIndexed(b *testing.B, cs *sdk.ClientSession) {
	b.Helper()
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		out := mcpCall(b, cs, "index_status", map[string]any{})
		roots, _ := out["roots"].([]any)
		if len(roots) == 1 {
			if r, _ := roots[0].(map[string]any); r["complete"] == true {
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	b.Fatal("the tree was not indexed within 10 minutes")
}

// BenchmarkMCPAssemble: assemble_context at 8 000 tokens, round trip over
// stdio, on a warm index.
func BenchmarkMCPAssemble(b *testing.B) { benchMCPAssemble(b) }

// BenchmarkMCPAssembleNoWatch: the same with --no-watch, each call
// refreshing the index first (a stat walk of the tree): what watching
// saves.
func BenchmarkMCPAssembleNoWatch(b *testing.B) { benchMCPAssemble(b, "--no-watch") }

func benchMCPAssemble(b *testing.B, extra ...string) {
	cs, stop := mcpBench(b, extra...)
	defer stop()
	waitIndexed(b, cs)
	var lat []time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := mcpBenchQueries[i%len(mcpBenchQueries)]
		start := time.Now()
		out := mcpCall(b, cs, "assemble_context", map[string]any{"query": q, "budget": map[string]any{"maxTokens": 8000}})
		lat = append(lat, time.Since(start))
		st, _ := out["stats"].(map[string]any)
		if parts, _ := out["parts"].([]any); len(parts) == 0 || st["indexComplete"] != true {
			b.Fatalf("%q: %d parts, %v", q, len(parts), st)
		}
	}
	reportLatencies(b, "", lat)
}

// BenchmarkMCPFirstAnswer: from starting the process to the first
// assemble_context answer, on a warm index.
func BenchmarkMCPFirstAnswer(b *testing.B) {
	cs, stop := mcpBench(b)
	waitIndexed(b, cs)
	stop() // the index is checkpointed on close
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		cs, stop := mcpBench(b)
		out := mcpCall(b, cs, "assemble_context", map[string]any{"query": mcpBenchQueries[i%len(mcpBenchQueries)], "budget": map[string]any{"maxTokens": 8000}})
		lat = append(lat, time.Since(start))
		if st, _ := out["stats"].(map[string]any); st["indexComplete"] != true {
			b.Fatalf("first answer from an incomplete index: %v", st)
		}
		b.StopTimer()
		stop()
		b.StartTimer()
	}
	reportLatencies(b, "", lat)
}

// reportLatencies reports p50 and p95 in milliseconds.
func reportLatencies(b *testing.B, prefix string, l []time.Duration) {
	if len(l) == 0 {
		return
	}
	s := slices.Clone(l)
	slices.Sort(s)
	pct := func(p float64) float64 {
		return float64(s[min(len(s)-1, int(p*float64(len(s))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), prefix+"p50-ms")
	b.ReportMetric(pct(0.95), prefix+"p95-ms")
	b.ReportMetric(0, "ns/op")
}
