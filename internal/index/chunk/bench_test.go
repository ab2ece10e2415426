package chunk

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/gotree"
	"github.com/ctxls/ctxls/internal/index/chunk/syntax"
)

// goSrcSample returns a deterministic sample of about limit bytes of .go
// files from $GOROOT/src: every k-th file of the sorted list (testdata
// directories excluded), k chosen to spread the sample over the tree.
func goSrcSample(tb testing.TB, limit int) (paths []string, srcs [][]byte) {
	root := gotree.Src(tb)
	type file struct {
		path string
		size int64
	}
	var all []file
	var total int64
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			info, err := d.Info()
			if err != nil {
				return err
			}
			all = append(all, file{p, info.Size()})
			total += info.Size()
		}
		return nil
	})
	if err != nil || len(all) == 0 {
		tb.Skipf("no Go sources under %s: %v", root, err)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].path < all[j].path })
	stride := max(1, int(total/int64(limit)))
	size := 0
	for i := 0; i < len(all) && size < limit; i += stride {
		b, err := os.ReadFile(all[i].path)
		if err != nil {
			tb.Fatal(err)
		}
		rel, _ := filepath.Rel(root, all[i].path)
		paths = append(paths, filepath.ToSlash(rel))
		srcs = append(srcs, b)
		size += len(b)
	}
	return paths, srcs
}

func totalSize(srcs [][]byte) int64 {
	n := 0
	for _, s := range srcs {
		n += len(s)
	}
	return int64(n)
}

// BenchmarkChunkGoSrc chunks ~5 MB of Go's own source.
func BenchmarkChunkGoSrc(b *testing.B) {
	paths, srcs := goSrcSample(b, 5<<20)
	ck := NewChunker(Options{})
	defer ck.Close()
	b.SetBytes(totalSize(srcs))
	b.ReportAllocs()
	chunks := 0
	for b.Loop() {
		chunks = 0
		for i, src := range srcs {
			cs, err := ck.Chunk(paths[i], src)
			if err != nil {
				b.Fatal(err)
			}
			chunks += len(cs)
		}
	}
	b.ReportMetric(float64(chunks), "chunks/op")
}

// BenchmarkParseGoSrc only parses the same sample, each file whole (the
// tree's records read into Go, no chunks): the floor under
// BenchmarkChunkGoSrc.
func BenchmarkParseGoSrc(b *testing.B) {
	_, srcs := goSrcSample(b, 5<<20)
	p := syntax.NewParser()
	defer p.Close()
	b.SetBytes(totalSize(srcs))
	b.ReportAllocs()
	for b.Loop() {
		for _, src := range srcs {
			tree, err := p.Parse(syntax.Go, src, nil, nil)
			if err != nil {
				b.Fatal(err)
			}
			tree.Close()
		}
	}
}

// rss returns the resident set size of this process in bytes (Linux).
func rss(tb testing.TB) int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		tb.Skip("no /proc/self/statm")
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		tb.Skip("odd /proc/self/statm")
	}
	pages, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		tb.Skip("odd /proc/self/statm")
	}
	return pages * int64(os.Getpagesize())
}

// TestMemoryStable chunks the same files over and over and checks that the
// memory outside the Go heap (tree-sitter's C allocations) does not grow:
// every tree is closed, nothing accumulates in the Chunker. The garbage
// collector is off while measuring, so that finalizers cannot hide a tree
// that was not closed (each round then leaks tens of MB).
func TestMemoryStable(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	paths, srcs := goSrcSample(t, 600<<10)
	ck := NewChunker(Options{})
	defer ck.Close()
	round := func() {
		for i, src := range srcs {
			if _, err := ck.Chunk(paths[i], src); err != nil {
				t.Fatal(err)
			}
		}
		if ck.liveTrees != 0 {
			t.Fatalf("%d trees left open", ck.liveTrees)
		}
	}
	// outside is the resident memory not accounted for by the Go runtime.
	outside := func() int64 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return rss(t) - int64(ms.Sys-ms.HeapReleased)
	}
	round()
	round()
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	before := outside()
	for i := 0; i < 4; i++ {
		round()
	}
	after := outside()
	t.Logf("memory outside the Go heap: %d MB → %d MB over 4 rounds of %d KB", before>>20, after>>20, totalSize(srcs)>>10)
	if after-before > 16<<20 {
		t.Errorf("memory outside the Go heap grew by %d MB over 4 rounds", (after-before)>>20)
	}
}
