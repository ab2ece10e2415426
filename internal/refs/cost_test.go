//go:build unix

package refs

import (
	"context"
	"os"
	"runtime"
	"slices"
	"syscall"
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
	start, cpu0 := time.Now(), cpuTime()
	x, err := index.Open(context.Background(), dir, index.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	snap, release := x.Snapshot()
	defer release()
	built, builtCPU := time.Since(start), cpuTime()-cpu0
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start, cpu0 = time.Now(), cpuTime()
	w, unlock := newWorld(snap)
	checked := 0
	for _, d := range slices.Sorted(mapsKeys(w.dirs)) {
		if p := w.pkg(variant{d, varBase}); p != nil {
			checked++
		}
	}
	unlock()
	took, tookCPU := time.Since(start), cpuTime()-cpu0
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	t.Logf("index built in %v (CPU %v; %d files); type-checking all %d packages (their files without tests, %d standard library packages from GOROOT as needed) took %v (CPU %v), %.0f MiB live after",
		built.Round(time.Millisecond), builtCPU.Round(time.Millisecond), len(snap.Paths()), checked, len(w.c.std), took.Round(time.Millisecond), tookCPU.Round(time.Millisecond), float64(after.HeapAlloc)/(1<<20))
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
