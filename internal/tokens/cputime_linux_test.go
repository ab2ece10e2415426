//go:build linux

package tokens

import (
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// threadCPU returns the CPU time the calling OS thread has used.
func threadCPU(tb testing.TB) time.Duration {
	const rusageThread = 1 // RUSAGE_THREAD
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		tb.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestThroughputCPUTime measures what BenchmarkCount measures, in MB per
// second of the counting thread's CPU time rather than of wall time, which
// stays meaningful on a loaded machine (it leaves out the garbage
// collector's background work, which favours tiktoken-go). Run it with
//
//	CTXLS_TOKENS_CPUTIME=1 go test -run TestThroughputCPUTime -v ./tokens/
func TestThroughputCPUTime(t *testing.T) {
	if os.Getenv("CTXLS_TOKENS_CPUTIME") == "" {
		t.Skip("set CTXLS_TOKENS_CPUTIME=1 to measure")
	}
	corpus := benchCorpus(t)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for _, name := range tiktokenEncodings {
		e := encoding(t, name)
		// measure logs the best of 5 rounds of n counts.
		measure := func(label string, n int, count func()) {
			best := time.Duration(1 << 62)
			for range 5 {
				t0 := threadCPU(t)
				for range n {
					count()
				}
				best = min(best, (threadCPU(t)-t0)/time.Duration(n))
			}
			t.Logf("%-11s %-11s %6.1f MB/s (%v CPU per count of the corpus)", name, label, float64(len(corpus))/best.Seconds()/1e6, best.Round(time.Microsecond))
		}
		measure("tiktoken-go", 1, func() { e.oracle.Count(corpus) })
		measure("exact-cold", 10, func() { e.exact(name).Count(corpus) })
		warm := e.exact(name)
		warm.Count(corpus)
		measure("exact-warm", 10, func() { warm.Count(corpus) })
	}
}
