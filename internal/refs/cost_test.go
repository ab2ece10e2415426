package refs

import (
	"context"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/index"
)

// TestCheckTreeCost reports, for the tree $CTXLS_REFS_TREE (skipped
// without it; Go's src, say), what building its index costs and what
// type-checking every package directory of it would cost on top: the
// cost that checking lazily, per request, spares the index. Not a check:
// the figures depend on the machine (docs/benchmarks.md).
func TestCheckTreeCost(t *testing.T) {
	dir := os.Getenv("CTXLS_REFS_TREE")
	if dir == "" {
		t.Skip("set CTXLS_REFS_TREE to a tree to measure")
	}
	start := time.Now()
	x, err := index.Open(context.Background(), dir, index.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	snap, release := x.Snapshot()
	defer release()
	built := time.Since(start)
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start = time.Now()
	w, unlock := newWorld(snap)
	checked := 0
	for _, d := range slices.Sorted(mapsKeys(w.dirs)) {
		if p := w.pkg(variant{d, varBase}); p != nil {
			checked++
		}
	}
	unlock()
	took := time.Since(start)
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	t.Logf("index built in %v (%d files); type-checking all %d packages (their files without tests, %d standard library packages from GOROOT as needed) took %v, %.0f MiB live after",
		built.Round(time.Millisecond), len(snap.Paths()), checked, len(w.c.std), took.Round(time.Millisecond), float64(after.HeapAlloc)/(1<<20))
}
