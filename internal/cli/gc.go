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
// heap reaches a limit, starting at 192 MiB and raised to 1.5 times the
// live heap whenever that passes two thirds of the limit: never a
// collector running back to back, and a peak memory that grows with the
// tree by the live heap's half, not by all of it as the default's 2×
// would (on four copies of Go's src the live heap nears 400 MB at the
// end of a build; docs/benchmarks.md, "Scale", has the figures).
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
			if live := int64(min(sample[0].Value.Uint64(), math.MaxInt64/4)); live > limit*2/3 {
				limit = live * 3 / 2
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
