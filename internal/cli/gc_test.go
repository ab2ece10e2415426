package cli

import (
	"context"
	"math"
	"runtime/debug"
	"testing"
)

// TestBatchGC: the collector runs by a memory limit during a batch run
// and gets its settings back afterwards; GOGC in the environment wins.
func TestBatchGC(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	stop := batchGC(context.Background())
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Errorf("GC percent during the run = %d, want -1 (off, paced by the limit)", p)
	}
	if l := debug.SetMemoryLimit(-1); l != 192<<20 {
		t.Errorf("memory limit during the run = %d, want 192 MiB", l)
	}
	stop()
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("GC percent after = %d, want 100", p)
	}
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Errorf("memory limit after = %d, want none", l)
	}

	t.Setenv("GOGC", "50")
	stop = batchGC(context.Background())
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("with GOGC set, GC percent = %d, want it untouched", p)
	}
	stop()
}
