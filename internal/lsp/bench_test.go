package lsp

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/retrieve"
	"github.com/ctxls/ctxls/internal/semantic"
	"github.com/ctxls/ctxls/internal/tokens"
)

// Benchmarks on a real tree, run only when CTXLS_BENCH_TREE names one:
//
//	CTXLS_BENCH_TREE=$(go env GOROOT)/src go test ./lsp -run '^$' -bench Tree -benchtime 200x -timeout 30m
//
// They drive the server over a pipe like the integration tests, with an
// on-disk index in CTXLS_BENCH_CACHE (default: a temporary directory, so the
// first benchmark builds the index; point it at a kept directory to reuse
// one). Latencies are reported as p50-ms and p95-ms; rss-MB is the process's
// resident set after indexing (and after one request).

// benchQueries are questions over Go's standard library.
var benchQueries = []string{
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
	"how does the race detector annotate sync.Mutex",
	"template execution escapes html",
	"sql database connection pool max idle",
	"base64 encoding without padding",
}

// benchServer is a server with an indexed tree, shared by the benchmarks.
type benchServer struct {
	root, cache string
	c           *fakeClient
	stop        func()
	indexTime   time.Duration
}

// TestMain closes the benchmarks' server after the run, so that its index
// is checkpointed: otherwise the edits of BenchmarkTreeDidChange leave the
// cached index incomplete and the next run rebuilds it (and that build
// then competes with what is measured).
func TestMain(m *testing.M) {
	code := m.Run()
	// BenchmarkTreeWarmStart shuts the shared session down itself (and
	// leaves bench.c nil).
	if bench != nil && bench.stop != nil {
		bench.stop()
		if bench.c != nil {
			select {
			case <-bench.c.done:
			case <-time.After(time.Minute):
			}
		}
	}
	os.Exit(code)
}

var (
	benchOnce sync.Once
	bench     *benchServer
	benchErr  error
)

// benchTree returns the shared server, starting it and indexing the tree
// on first use.
func benchTree(b *testing.B) *benchServer {
	root := os.Getenv("CTXLS_BENCH_TREE")
	if root == "" {
		b.Skip("CTXLS_BENCH_TREE is not set")
	}
	benchOnce.Do(func() {
		cache := os.Getenv("CTXLS_BENCH_CACHE")
		if cache == "" {
			if cache, benchErr = os.MkdirTemp("", "ctxls-bench-"); benchErr != nil {
				return
			}
		}
		bench = &benchServer{root: root, cache: cache}
		// The server outlives this benchmark: the other benchmarks reuse it.
		c, stop := newFakeClient(b, benchOptions(cache))
		bench.stop = stop
		c.timeout = time.Hour
		start := time.Now()
		// CTXLS_BENCH_EMBEDDINGS: the embeddings setting (default: the
		// server's default); with vectors, one request starts them and the
		// benchmarks wait until they are ready.
		init := map[string]any{"indexWaitMs": 0}
		emb := os.Getenv("CTXLS_BENCH_EMBEDDINGS")
		if emb != "" {
			init["embeddings"] = emb
		}
		c.initialize(map[string]any{"rootUri": pathToURI(root), "capabilities": map[string]any{}, "initializationOptions": init})
		c.waitFor(methodLogMessage, func(p json.RawMessage) bool { return strings.Contains(string(p), "indexed (") })
		bench.indexTime = time.Since(start)
		if cmp.Or(emb, semantic.DefaultMode) == semantic.ModeWorkspace {
			c.call(methodContextAssemble, map[string]any{"query": "warm up", "budget": map[string]any{"maxTokens": 2000}})
			c.waitFor(methodLogMessage, func(p json.RawMessage) bool { return strings.Contains(string(p), "semantic vectors ready") })
		}
		bench.c = c
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	bench.c.t = b
	return bench
}

// benchOptions are the options of `ctxls serve` with an on-disk cache.
func benchOptions(cache string) Options {
	reg := tokens.NewRegistry()
	return Options{
		Engine: retrieve.NewEngine(reg),
		Tokens: reg,
		IndexOptions: func(root string) index.Options {
			c, _ := reg.Get(index.DefaultEncoding)
			return index.Options{Counters: map[string]tokens.Counter{index.DefaultEncoding: c}, CacheDir: index.CacheDirIn(cache, root)}
		},
	}
}

// latencies records durations and reports percentiles.
type latencies []time.Duration

func (l latencies) report(b *testing.B) {
	l.reportAs(b, "")
	b.ReportMetric(0, "ns/op")
}

// reportAs reports the percentiles with a prefix.
func (l latencies) reportAs(b *testing.B, prefix string) {
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
}

// rssMB reads the process's resident set size (VmRSS) and peak (VmHWM).
func rssMB() (rss, peak float64) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		var kb float64
		if _, err := fmt.Sscanf(strings.TrimPrefix(line, "VmRSS:"), "%f", &kb); err == nil && strings.HasPrefix(line, "VmRSS:") {
			rss = kb / 1024
		}
		if _, err := fmt.Sscanf(strings.TrimPrefix(line, "VmHWM:"), "%f", &kb); err == nil && strings.HasPrefix(line, "VmHWM:") {
			peak = kb / 1024
		}
	}
	return rss, peak
}

// BenchmarkTreeAssemble: context/assemble at 8 000 tokens over the pipe.
func BenchmarkTreeAssemble(b *testing.B) {
	s := benchTree(b)
	b.Logf("tree %s indexed (or opened) in %v", s.root, s.indexTime)
	var lat, server latencies
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := benchQueries[i%len(benchQueries)]
		start := time.Now()
		r := mustResult[assembleResultJSON](b, s.c.call(methodContextAssemble, map[string]any{"query": q, "budget": map[string]any{"maxTokens": 8000}}))
		lat = append(lat, time.Since(start))
		server = append(server, time.Duration(r.Timing.ElapsedMs*float64(time.Millisecond)))
		if len(r.Parts) == 0 || !r.Stats.IndexComplete {
			b.Fatalf("%q: %d parts, complete %v", q, len(r.Parts), r.Stats.IndexComplete)
		}
	}
	lat.report(b)
	// The server's own timing (params to result, before encoding): the
	// difference to p50-ms is the transport (JSON and the pipe, both ends).
	server.reportAs(b, "server-")
	rss, peak := rssMB()
	b.ReportMetric(rss, "rss-MB")
	b.ReportMetric(peak, "peak-rss-MB")
}

// BenchmarkTreeDidChange: a didChange of one file, then at once a request
// that must see it; the latency is from sending the change to the answer.
// The edit keeps the file valid Go, as most keystrokes do: the buffer is
// re-parsed incrementally.
func BenchmarkTreeDidChange(b *testing.B) {
	benchDidChange(b, 1, func(word string) string { return "// " + word + "\n" })
}

// BenchmarkTreeDidChangeBroken: as BenchmarkTreeDidChange, but every edit
// leaves a syntax error in the file (a keystroke in the middle of a
// statement): no tree is kept for such content, so each is a fresh parse.
// Each edit replaces the two lines the last one wrote.
func BenchmarkTreeDidChangeBroken(b *testing.B) {
	benchDidChange(b, 2, func(word string) string { return "// " + word + "\nfunc (\n" })
}

// benchDidChange times edits that replace the first lines lines of the
// file with insert(word), each followed by a request for word.
func benchDidChange(b *testing.B, lines int, insert func(word string) string) {
	s := benchTree(b)
	rel := "net/http/server.go"
	path := filepath.Join(s.root, filepath.FromSlash(rel))
	text, err := os.ReadFile(path)
	if err != nil {
		b.Skipf("no %s in the tree: %v", rel, err)
	}
	uri := pathToURI(path)
	s.c.notify(methodDidOpen, map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": 1, "text": string(text)}})
	defer s.c.notify(methodDidClose, map[string]any{"textDocument": map[string]any{"uri": uri}})
	var lat latencies
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		word := fmt.Sprintf("Zqxmarker%d", i)
		start := time.Now()
		s.c.notify(methodDidChange, map[string]any{
			"textDocument": map[string]any{"uri": uri, "version": i + 2},
			"contentChanges": []any{map[string]any{
				"range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": lines, "character": 0}},
				"text":  insert(word),
			}},
		})
		r := mustResult[assembleResultJSON](b, s.c.call(methodContextAssemble, map[string]any{
			"focus":  map[string]any{"uri": uri, "position": map[string]any{"line": 0, "character": 3}},
			"query":  word,
			"budget": map[string]any{"maxTokens": 2000},
		}))
		lat = append(lat, time.Since(start))
		if !r.hasText(word) {
			b.Fatalf("change %d not visible: %v", i, r.paths())
		}
	}
	lat.report(b)
}

// BenchmarkTreeWarmStart: a new session on the warm on-disk index, from
// initialize to the first answer (the index is opened and refreshed against
// the disk; the tokenizer is loaded afresh).
func BenchmarkTreeWarmStart(b *testing.B) {
	s := benchTree(b)
	var lat latencies
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		// The shared session holds the index lock; a second session would
		// build a private index. Close the shared one for the measurement.
		if bench.c != nil {
			bench.c.call(methodShutdown, nil)
			bench.c.notify(methodExit, nil)
			bench.c.serveResult()
			bench.c = nil
		}
		b.StartTimer()
		start := time.Now()
		c, stop := newFakeClient(b, benchOptions(s.cache))
		c.initialize(map[string]any{"rootUri": pathToURI(s.root), "capabilities": map[string]any{}})
		r := mustResult[assembleResultJSON](b, c.call(methodContextAssemble, map[string]any{"query": benchQueries[i%len(benchQueries)], "budget": map[string]any{"maxTokens": 8000}}))
		lat = append(lat, time.Since(start))
		if !r.Stats.IndexComplete {
			b.Fatalf("warm start answered from an incomplete index")
		}
		b.StopTimer()
		c.call(methodShutdown, nil)
		c.notify(methodExit, nil)
		c.serveResult()
		stop()
		b.StartTimer()
	}
	lat.report(b)
	benchOnce = sync.Once{} // the shared server is gone
}

// BenchmarkBuildingAssemble: context/assemble on a small folder while the
// folder named by CTXLS_BUILD_TREE (e.g. $(go env GOROOT)/src/net) is built
// from scratch in the same process — what the user of one folder sees while
// another is indexed. Requests are sent one after another until the build
// ends; p50-ms/p95-ms are their latencies, build-s the build's duration.
// CTXLS_ASK_TREE names the folder asked about (default: a small fixture);
// idle-p50-ms/idle-p95-ms are the same requests before the build starts.
//
//	CTXLS_ASK_TREE=$(go env GOROOT)/src/encoding CTXLS_BUILD_TREE=$(go env GOROOT)/src/net go test ./lsp -run '^$' -bench BuildingAssemble -benchtime 1x
func BenchmarkBuildingAssemble(b *testing.B) {
	tree := os.Getenv("CTXLS_BUILD_TREE")
	if tree == "" {
		b.Skip("CTXLS_BUILD_TREE is not set")
	}
	small := os.Getenv("CTXLS_ASK_TREE") // the folder asked about
	if small == "" {
		small = writeTree(b, fixture)
	}
	var lat, idle latencies
	var build time.Duration
	ask := map[string]any{"query": "how are overlapping ranges stitched", "budget": map[string]any{"maxTokens": 4000}}
	for i := 0; i < b.N; i++ {
		c, stop := newFakeClient(b, benchOptions(b.TempDir())) // a cold cache: a full build
		c.timeout = time.Hour
		c.initialize(map[string]any{"rootUri": pathToURI(small), "initializationOptions": map[string]any{"indexWaitMs": 0}})
		c.waitFor(methodLogMessage, func(p json.RawMessage) bool { return strings.Contains(string(p), filepath.Base(small)+" indexed (") })
		for range 100 { // the same requests with nothing being indexed
			t := time.Now()
			c.call(methodContextAssemble, ask)
			idle = append(idle, time.Since(t))
		}
		start := time.Now()
		c.notify(methodDidChangeWorkspaceFolders, map[string]any{"event": map[string]any{
			"added": []any{map[string]any{"uri": pathToURI(tree), "name": "big"}}, "removed": []any{}}})
		built := make(chan struct{})
		go func() {
			c.waitFor(methodLogMessage, func(p json.RawMessage) bool { return strings.Contains(string(p), "big indexed (") })
			close(built)
		}()
		for done := false; !done; {
			select {
			case <-built:
				done = true
			default:
				t := time.Now()
				r := mustResult[assembleResultJSON](b, c.call(methodContextAssemble, ask))
				lat = append(lat, time.Since(t))
				if len(r.Parts) == 0 {
					b.Fatal("no parts")
				}
			}
		}
		build += time.Since(start)
		stop()
		<-c.done
	}
	lat.report(b)
	idle.reportAs(b, "idle-")
	b.ReportMetric(build.Seconds()/float64(b.N), "build-s")
	b.ReportMetric(float64(len(lat))/float64(b.N), "requests")
}
