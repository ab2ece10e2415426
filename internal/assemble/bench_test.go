package assemble

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/gotree"
	"github.com/ctxls/ctxls/internal/ranges"
	"github.com/ctxls/ctxls/internal/tokens"
)

// benchCorpus loads n Go files of GOROOT/src (sorted, every k-th, so the
// sample is fixed for a Go version) and makes m candidates over them, with
// the token counts the index would have computed.
func benchCorpus(b *testing.B, counter tokens.Counter, nFiles, nCands int) (MapFiles, []Candidate) {
	root := gotree.Src(b)
	paths := gotree.Files(b, root, func(p string) bool {
		return gotree.IsGo(p) && !strings.HasSuffix(p, "_test.go") && !strings.Contains(p, "testdata")
	})
	if len(paths) < nFiles {
		b.Skipf("GOROOT/src has %d Go files", len(paths))
	}
	files := MapFiles{}
	var names []string
	step := len(paths) / nFiles
	for i := 0; len(names) < nFiles && i < len(paths); i += step {
		data, err := os.ReadFile(paths[i])
		if err != nil || len(data) < 2000 || len(data) > 60000 {
			continue
		}
		rel, _ := filepath.Rel(root, paths[i])
		files[filepath.ToSlash(rel)] = string(data)
		names = append(names, filepath.ToSlash(rel))
	}
	r := rand.New(rand.NewPCG(3, 5))
	cands := make([]Candidate, 0, nCands)
	for i := 0; i < nCands; i++ {
		p := names[r.IntN(len(names))]
		f := newFileText(p, files[p])
		start := 1 + r.IntN(max(1, f.lines-10))
		end := min(f.lines, start+5+r.IntN(60))
		c := Candidate{
			ID: fmt.Sprintf("%s#%d", p, start), Path: p, Ranges: []ranges.Range{{Start: start, End: end}},
			Score: r.Float64(), Sources: []string{"lexical"}, Symbol: fmt.Sprintf("sym%d", i),
			Signature: ranges.Range{Start: start, End: start}, Hits: []int{start + (end-start)/2},
		}
		c.Tokens = counter.Count(f.slice(start, end))
		cands = append(cands, c)
	}
	return files, cands
}

// BenchmarkAssemble: 2 000 candidates over 300 files of Go source into an
// 8 000-token budget, cl100k_base (the target is ≤ 10 ms/op).
func BenchmarkAssemble(b *testing.B) {
	counter := tiktokenCounters(b)[0]
	files, cands := benchCorpus(b, counter, 300, 2000)
	for _, f := range []Format{Markdown, XML, JSON} {
		b.Run(string(f), func(b *testing.B) {
			req := Request{Budget: Budget{MaxTokens: 8000, PerPartMaxTokens: 1200}, Format: f, Policy: DefaultPolicy()}
			var res *Result
			b.ReportAllocs()
			cpu0 := cpuTime()
			n := 0
			for b.Loop() {
				var err error
				if res, err = Assemble(context.Background(), req, cands, files, counter); err != nil {
					b.Fatal(err)
				}
				n++
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(n), "cpu-ms/op")
			b.ReportMetric(float64(res.Stats.TotalTokens), "tokens")
			b.ReportMetric(float64(len(res.Rendered)), "rendered-bytes")
			b.ReportMetric(float64(res.Stats.Parts), "parts")
		})
	}
}

// cpuTime is the process's user+system CPU time: on a shared machine it
// says more about the code than wall time does.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCountRendered is the floor BenchmarkAssemble stands on: one exact
// count of a rendered context of the same size.
func BenchmarkCountRendered(b *testing.B) {
	counter := tiktokenCounters(b)[0]
	files, cands := benchCorpus(b, counter, 300, 2000)
	res, err := Assemble(context.Background(), Request{Budget: Budget{MaxTokens: 8000}, Policy: DefaultPolicy()}, cands, files, counter)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(res.Rendered)))
	b.ReportAllocs()
	for b.Loop() {
		counter.Count(res.Rendered)
	}
}
