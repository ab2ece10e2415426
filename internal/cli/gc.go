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
// heap reaches a limit, starting at 192 MiB and raised to twice the live
// heap whenever that passes half the limit — the default's 2× headroom on
// a large tree, never a collector running back to back. Measured on Go's
// src, runs interleaved with the default: `ctxls index` 30.1–30.5 user
// CPU-s instead of 29.4–33.6 (≈ 4 % less on average), wall 20.2–20.5 s
// against 19.7–22.5 s, peak RSS 327–352 MB against 322–362 MB
// (docs/benchmarks.md).
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
			if live := int64(min(sample[0].Value.Uint64(), math.MaxInt64/4)); live > limit/2 {
				limit = 2 * live
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
