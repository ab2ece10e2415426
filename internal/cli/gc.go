package cli

import (
	"context"
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// batchGC tunes the garbage collector for a CLI run that may build an
// index: a build allocates ≈ 5 GB on Go's src while its live heap grows
// from nothing to ≈ 150 MB, and the default pacing (a collection each
// time the heap doubles) then collects hundreds of times early on, for
// a large share of the build's CPU. Instead the collector runs when the
// heap reaches a limit, starting at 192 MiB and raised to the live heap
// plus headroom whenever the live heap grows: never a collector running
// back to back, and a peak memory that grows with the tree by half the
// live heap past 256 MiB, not by all of it as the default's 2× would (on
// four copies of Go's src the live heap nears 400 MB at the end of a
// build; docs/benchmarks.md, "Scale", has the figures).
//
// It leaves the settings alone when GOGC or GOMEMLIMIT is set, and
// restores them when stop is called.
func batchGC(ctx context.Context) (stop func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	limit := int64(192 << 20)
	oldPercent := debug.SetGCPercent(-1)
	oldLimit := debug.SetMemoryLimit(limit)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() != metrics.KindUint64 {
				continue
			}
			if live := int64(min(sample[0].Value.Uint64(), math.MaxInt64/4)); live+headroom(live) > limit {
				limit = live + headroom(live)
				debug.SetMemoryLimit(limit)
			}
		}
	}()
	return func() {
		cancel()
		<-done
		debug.SetMemoryLimit(oldLimit)
		debug.SetGCPercent(oldPercent)
	}
}

// headroom is how far past the live heap the next collection waits: as
// far as the live heap (the default's doubling) up to 128 MiB, then half
// of it.
func headroom(live int64) int64 {
	return max(min(live, 128<<20), live/2)
}
