package index

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/index/analysis"
	"github.com/ctxls/ctxls/internal/index/chunk"
)

// Benchmarks on a real tree, when CTXLS_BENCH_TREE names one:
//
//	CTXLS_BENCH_TREE=$(go env GOROOT)/src go test ./index/ -run '^$' -bench . -benchtime 1x
//
// BenchmarkColdBuild reports peak RSS (VmHWM, reset before the build) and
// the index size on disk relative to the source bytes.

func benchTree(b *testing.B) string {
	dir := os.Getenv("CTXLS_BENCH_TREE")
	if dir == "" {
		b.Skip("CTXLS_BENCH_TREE not set")
	}
	return dir
}

// benchOptions: the production defaults (walker, chunker, cl100k_base),
// with the cache in a directory of the benchmark.
func benchOptions(b *testing.B, cache string) Options {
	o := Options{CacheDir: cache, CheckpointDelay: -1}
	if testing.Verbose() {
		o.Logf = b.Logf
	}
	// Tuning experiments: CTXLS_BENCH_BATCH.
	if n, err := strconv.Atoi(os.Getenv("CTXLS_BENCH_BATCH")); err == nil {
		o.BatchSize = n
	}
	return o
}

// cpuTime returns the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSS returns VmHWM in bytes.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// resetPeakRSS resets VmHWM (Linux ≥ 4.0).
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

func BenchmarkColdBuild(b *testing.B) {
	tree := benchTree(b)
	b.ReportAllocs()
	var st Stats
	var peak int64
	var cpu time.Duration
	for i := 0; b.Loop(); i++ {
		resetPeakRSS()
		c0 := cpuTime()
		var err error
		st, err = Build(ctx, tree, benchOptions(b, filepath.Join(b.TempDir(), strconv.Itoa(i))))
		if err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime() - c0
		peak = max(peak, peakRSS())
	}
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu_s/op")
	b.ReportMetric(float64(st.Files), "files")
	b.ReportMetric(float64(st.Chunks), "chunks")
	b.ReportMetric(float64(st.Bytes)/1e6, "srcMB")
	b.ReportMetric(float64(st.IndexBytes)/1e6, "diskMB")
	b.ReportMetric(float64(st.IndexBytes)/float64(st.Bytes), "disk/src")
	b.ReportMetric(float64(peak)/1e6, "peakRSS_MB")
	if gen, err := readCurrent(st.Dir); err == nil {
		segs, _ := filepath.Glob(filepath.Join(gen, postingsName, "*.seg"))
		b.ReportMetric(float64(len(segs)), "segments")
	}
	b.Logf("stats: %+v", st)
}

// benchIndex builds tree once into a cache directory shared by the
// benchmarks of one run.
var benchCache struct {
	dir  string
	tree string
}

func benchBuilt(b *testing.B) (string, Options) {
	tree := benchTree(b)
	if benchCache.dir == "" || benchCache.tree != tree {
		dir, err := os.MkdirTemp("", "ctxls-bench-")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Build(ctx, tree, benchOptions(b, dir)); err != nil {
			b.Fatal(err)
		}
		benchCache.dir, benchCache.tree = dir, tree
	}
	return tree, benchOptions(b, benchCache.dir)
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchCache.dir != "" {
		os.RemoveAll(benchCache.dir)
	}
	os.Exit(code)
}

// BenchmarkOpenNothingChanged: open a valid index whose tree did not
// change (load tables, open the lexical store, walk, compare) and close it.
func BenchmarkOpenNothingChanged(b *testing.B) {
	tree, opts := benchBuilt(b)
	b.ReportAllocs()
	for b.Loop() {
		x, err := Open(ctx, tree, opts)
		if err != nil {
			b.Fatal(err)
		}
		if st := x.Stats(); st.Mode != "open" {
			b.Fatalf("mode %q (%s)", st.Mode, st.Reason)
		}
		x.Close()
	}
}

// BenchmarkRefreshNothingChanged: Refresh of an open index.
func BenchmarkRefreshNothingChanged(b *testing.B) {
	tree, opts := benchBuilt(b)
	x, err := Open(ctx, tree, opts)
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	b.ReportAllocs()
	for b.Loop() {
		st, err := x.Refresh(ctx)
		if err != nil || st.Changed != 0 {
			b.Fatal(st, err)
		}
	}
}

// BenchmarkUpdateVisible: Update one file with new content, then find the
// new content with a search on the next snapshot.
func BenchmarkUpdateVisible(b *testing.B) {
	tree, opts := benchBuilt(b)
	x, err := Open(ctx, tree, opts)
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	path := "strings/strings.go"
	orig, err := os.ReadFile(filepath.Join(tree, path))
	if err != nil {
		b.Skipf("%s: %v", path, err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		word := fmt.Sprintf("benchword%d", i)
		content := append(slices.Clip(orig), "\nfunc "+word+"() {}\n"...)
		if err := x.Update(ctx, path, content); err != nil {
			b.Fatal(err)
		}
		s, release := x.Snapshot()
		hits, err := s.Search(ctx, Query{Text: word}, 1)
		release()
		if err != nil || len(hits) != 1 {
			b.Fatalf("update not visible: %v %v", hits, err)
		}
	}
	b.StopTimer()
	_ = x.Update(ctx, path, orig)
}

// benchQueries are questions a coding assistant asks about Go's source.
var benchQueries = []string{
	"parse http request header", "ServeHTTP handler", "tls handshake client hello",
	"gzip reader checksum", "json Unmarshal struct field tags", "goroutine scheduler work stealing",
	"garbage collector mark phase", "map grow buckets evacuate", "strconv ParseFloat rounding",
	"bufio Scanner split lines", "context WithTimeout cancel", "sync Mutex starvation mode",
	"os exec Command pipe stdout", "filepath WalkDir skip directory", "time Ticker stop",
	"sort Slice stable", "reflect Value Call", "net dial timeout", "http2 frame writer",
	"regexp compile syntax", "template execute pipeline", "crypto sha256 block",
	"x509 certificate verify chain", "io Copy buffer", "strings Builder grow", "utf8 DecodeRune",
	"bytes Buffer ReadFrom", "fmt Sprintf verbs", "errors Is As wrap", "atomic CompareAndSwap",
	"runtime stack growth", "channel send receive select", "defer panic recover",
	"go parser parse file", "types check assignment", "ssa build function", "linker dead code",
	"escape analysis", "inline budget", "bounds check elimination", "cgo call",
	"signal handling", "memory allocator span", "pprof profile cpu", "testing benchmark loop",
	"unicode case folding", "base64 encoding url", "hex dump", "zip archive reader", "tar header",
	"multipart form file upload", "cookie jar", "url parse query escape",
}

// queryOf splits a question the way a retrieval layer would: tokens with
// upper case, digits or underscores are identifiers, the rest words.
func queryOf(text string) Query {
	var q Query
	for _, f := range strings.Fields(text) {
		if analysis.IsIdentifier(f) && strings.ToLower(f) != f {
			q.Identifiers = append(q.Identifiers, f)
		} else {
			q.Words = append(q.Words, f)
		}
	}
	return q
}

func BenchmarkQuery(b *testing.B) {
	tree, opts := benchBuilt(b)
	x, err := Open(ctx, tree, opts)
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	s, release := x.Snapshot()
	defer release()
	var lat []time.Duration
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		q := queryOf(benchQueries[i%len(benchQueries)])
		start := time.Now()
		if _, err := s.Search(ctx, q, 20); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.5), "p50_ms")
	b.ReportMetric(pct(0.95), "p95_ms")
	b.ReportMetric(pct(0.99), "p99_ms")
}

// TestBenchQueriesSane prints the top hits of a few benchmark queries on
// the benchmark tree, for eyeballing ranking.
func TestBenchQueriesSane(t *testing.T) {
	if os.Getenv("CTXLS_BENCH_TREE") == "" || !testing.Verbose() {
		t.Skip("CTXLS_BENCH_TREE not set or not -v")
	}
	x, err := Open(ctx, os.Getenv("CTXLS_BENCH_TREE"), Options{CheckpointDelay: -1, CacheDir: filepath.Join(os.TempDir(), "ctxls-bench-sane")})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	s, release := x.Snapshot()
	defer release()
	for _, text := range benchQueries[:12] {
		hits, _ := s.Search(ctx, queryOf(text), 3)
		var buf bytes.Buffer
		for _, h := range hits {
			c, _ := s.Chunk(h.ID)
			fmt.Fprintf(&buf, "  %.2f %s:%d %s\n", h.Score, h.Path, h.StartLine, c.QualifiedName)
		}
		t.Logf("%s\n%s", text, buf.String())
	}
}

// BenchmarkParseOnly is the floor under BenchmarkColdBuild: the same
// listing (walk and filters), each file read and parsed with the grammar
// the chunker would use, on as many goroutines as a build uses, and
// nothing else (no chunk extraction, token counts or indexing).
func BenchmarkParseOnly(b *testing.B) {
	tree := benchTree(b)
	var cpu time.Duration
	parsed := 0
	var parsedBytes int64
	for b.Loop() {
		c0 := cpuTime()
		entries, _, err := (&WalkLister{}).List(ctx, tree)
		if err != nil {
			b.Fatal(err)
		}
		next := make(chan Entry)
		var mu sync.Mutex
		parsed, parsedBytes = 0, 0
		var wg sync.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				ck := chunk.NewChunker(chunk.Options{})
				defer ck.Close()
				n, sz := 0, int64(0)
				for e := range next {
					src, err := os.ReadFile(filepath.Join(tree, filepath.FromSlash(e.Path)))
					if err != nil {
						continue
					}
					if ok, err := ck.Parse(e.Path, src); err != nil {
						b.Error(err)
					} else if ok {
						n++
						sz += int64(len(src))
					}
				}
				mu.Lock()
				parsed, parsedBytes = parsed+n, parsedBytes+sz
				mu.Unlock()
			})
		}
		for _, e := range entries {
			next <- e
		}
		close(next)
		wg.Wait()
		cpu += cpuTime() - c0
	}
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu_s/op")
	b.ReportMetric(float64(parsed), "files_parsed")
	b.ReportMetric(float64(parsedBytes)/1e6, "parsedMB")
}
