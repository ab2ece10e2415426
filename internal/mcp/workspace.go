package mcp

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/ctxls/ctxls/internal/retrieve"
	"github.com/ctxls/ctxls/internal/workspace"
)

// errClosed: the server is shutting down.
var errClosed = errors.New("the server is shutting down")

// errEvicted: the space was closed to keep the number of open unions or
// repositories bounded (Server.evictLocked) before the call read it; the
// call opens it again.
var errEvicted = errors.New("the repository (or union of repositories) was closed")

// maxHeld is how many index states a root keeps after the assemble_context
// calls that read them, for expand_context.
const maxHeld = 4

// space is the server's use of one root: the process's shared Root and the
// server's session of it (MCP clients have no unsaved buffers; they share
// the held states, so that any client may expand another's handles).
type space struct {
	name string // the root's directory, or the repository's name (repo)
	root *workspace.Root
	sess *workspace.Session
	// repo: a store's repository, or union of repositories (union), held
	// until release is called (by close); used is Server.tick at its last
	// use (guarded by Server.mu); evicted is set once the server let go
	// of it.
	repo    bool
	union   bool
	release func()
	used    uint64
	evicted atomic.Bool
}

// view is one call's hold on a root's snapshot.
type view struct {
	*workspace.View
	sp *space
}

// acquire waits for the root's snapshot (see workspace.Session.Acquire).
func (sp *space) acquire(ctx context.Context, wait time.Duration, tick func()) (*view, error) {
	v, err := sp.sess.Acquire(ctx, workspace.AcquireOptions{Wait: wait, Tick: tick})
	if errors.Is(err, workspace.ErrClosed) {
		err = errClosed
		if sp.evicted.Load() {
			err = errEvicted
		}
	}
	if err != nil {
		return nil, err
	}
	return &view{v, sp}, nil
}

// acquireHeld returns a view of the held state named state, or nil.
func (sp *space) acquireHeld(state string) *view {
	if v := sp.sess.Held(state, nil); v != nil {
		return &view{v, sp}
	}
	return nil
}

// fromHeld reports whether the view reads a held state.
func (v *view) fromHeld() bool { return v.Borrowed() }

// activity is the files changed on disk since the server started (by the
// assistant's own edits, most often), most recent first, as open buffers
// are in an editor. The watcher says which files, not which lines: there
// are no edited ranges.
func (sp *space) activity() *retrieve.Activity {
	return &retrieve.Activity{Open: sp.root.RecentChanges()}
}

// progress is how far the root's index build has come (nil before it
// starts).
func (sp *space) progress() *workspace.Progress { return sp.root.Progress() }

// status is the root's state for index_status.
func (sp *space) status() RootStatus {
	st := sp.root.Status()
	out := RootStatus{
		Root: displayRoot(sp.name), State: st.State, Error: st.Error, Watching: st.Watching, WatchNote: st.WatchNote,
		PendingChanges: st.PendingChanges, Warnings: st.Warnings, Files: st.Files, Chunks: st.Chunks,
		StateRoot: st.StateRoot, Complete: st.Complete, LastMode: st.LastMode, BuildReason: st.BuildReason,
		Skipped: st.Skipped, CacheDir: st.CacheDir,
	}
	if p := st.Progress; p != nil {
		out.Progress = &Progress{FilesDone: p.FilesDone, FilesTotal: p.FilesTotal, Chunks: p.Chunks}
	}
	if !st.LastRefresh.IsZero() {
		out.LastRefresh = st.LastRefresh.UTC().Format(time.RFC3339)
	}
	return out
}

// warned returns the root's warnings so far.
func (sp *space) warned() []string { return sp.root.Warnings() }

// close ends the server's session and lets go of the root.
func (sp *space) close() error {
	sp.sess.Close()
	if sp.repo {
		if sp.release != nil {
			sp.release()
		}
		return nil
	}
	return sp.root.Release()
}
