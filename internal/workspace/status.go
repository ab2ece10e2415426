package workspace

import (
	"maps"
	"time"

	"github.com/ctxls/ctxls/internal/index"
)

// Status is what a root can tell about itself: whether its index is open,
// built and complete, how much it holds, and how it follows the disk.
type Status struct {
	// State is "opening", "failed", "building" or "ready".
	State string
	// Error is why the index failed to open (State "failed").
	Error string
	// Watching: the root's own watcher follows the disk; WatchNote says
	// why not otherwise.
	Watching  bool
	WatchNote string
	// PendingChanges counts the disk changes seen and not yet applied.
	PendingChanges int
	Warnings       []string
	Progress       *index.Progress // nil before the first build starts
	LastRefresh    time.Time       // zero before the index opened
	Files, Chunks  int
	StateRoot      string
	Complete       bool
	// LastMode and BuildReason are the last build's (index.Stats).
	LastMode, BuildReason string
	Skipped               map[string]int
	CacheDir              string
}

// Status returns r's status now.
func (r *Root) Status() Status {
	st := Status{Skipped: map[string]int{}, Warnings: r.Warnings(), Progress: r.Progress()}
	c := &r.changes
	c.mu.Lock()
	st.Watching = c.watcher != nil
	st.WatchNote = c.watchNote
	st.PendingChanges = len(c.pending)
	if c.refresh {
		st.PendingChanges++
	}
	last := c.lastRefresh
	c.mu.Unlock()
	select {
	case <-r.ready:
	default:
		st.State = "opening"
		return st
	}
	if r.openErr != nil {
		st.State, st.Error = "failed", r.openErr.Error()
		return st
	}
	st.LastRefresh = last
	snap, release := r.idx.Snapshot()
	defer release()
	st.Files = len(snap.Paths())
	st.Chunks = snap.NumChunks()
	st.StateRoot = snap.StateRoot()
	st.Complete = snap.Complete()
	st.State = "building"
	if st.Complete {
		st.State = "ready"
	}
	stats := r.idx.Stats()
	st.LastMode, st.BuildReason = stats.Mode, stats.Reason
	maps.Copy(st.Skipped, stats.Skipped)
	st.CacheDir = r.idx.Dir()
	return st
}
