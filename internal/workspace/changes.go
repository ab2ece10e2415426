package workspace

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// changes are the paths of a root changed on disk and not yet applied to
// its index, and the loop that applies them, in path order, one batch at
// a time. They come from the root's watcher or from the client
// (Root.Changed). A request first waits until every change seen before it
// is applied (Root.Sync); a root that should be watched but cannot be is
// refreshed by every request instead.
type changes struct {
	r *Root

	mu        sync.Mutex
	watcher   *watcher // nil when the root is not watched
	watchNote string   // why it is not watched ("" when it is)
	// refreshEach: the root should be watched and cannot be; Sync
	// refreshes the whole index.
	refreshEach bool
	pending     map[string]bool // root-relative paths changed, not yet applied
	refresh     bool            // a refresh is asked for (a new directory, lost events)
	received    uint64          // changes seen
	applied     uint64          // changes applied (≤ received)
	appliedCh   chan struct{}   // closed and replaced when applied grows
	kick        chan struct{}
	lastRefresh time.Time
	// recent are the paths changed in this process with the order of
	// their last change (the activity); at most maxRecent.
	recent   map[string]uint64
	changeNo uint64
}

// maxRecent is how many changed files the activity remembers.
const maxRecent = 32

func (c *changes) init(r *Root) {
	c.r = r
	c.pending = map[string]bool{}
	c.appliedCh = make(chan struct{})
	c.kick = make(chan struct{}, 1)
}

// watch starts the root's watcher; where it cannot, every Sync refreshes.
func (c *changes) watch() {
	r := c.r
	start := time.Now()
	w, err := newWatcher(r.path, r.Changed, c.lost)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.watchNote, c.refreshEach = err.Error(), true
		r.logf("%s: not watched, each request refreshes the index first: %v", r.path, err)
		return
	}
	c.watcher = w
	r.logf("%s: watching %d directories (%v)", r.path, w.watched(), time.Since(start).Round(time.Millisecond))
}

// unwatched records why the root is not watched, and whether every Sync
// refreshes the index instead.
func (c *changes) unwatched(note string, refreshEach bool) {
	c.mu.Lock()
	c.watchNote, c.refreshEach = note, refreshEach
	c.mu.Unlock()
}

// refreshed records that the index was just refreshed (or opened).
func (c *changes) refreshed() {
	c.mu.Lock()
	c.lastRefresh = time.Now()
	c.mu.Unlock()
}

// Changed records a root-relative path changed on disk (created, written,
// removed or renamed; a file or a directory). The root's loop applies it.
func (r *Root) Changed(rel string) {
	c := &r.changes
	c.mu.Lock()
	c.pending[rel] = true
	c.received++
	if c.recent == nil {
		c.recent = map[string]uint64{}
	}
	c.changeNo++
	c.recent[rel] = c.changeNo
	if len(c.recent) > maxRecent {
		oldest, at := "", uint64(math.MaxUint64)
		for p, n := range c.recent {
			if n < at || (n == at && p < oldest) {
				oldest, at = p, n
			}
		}
		delete(c.recent, oldest)
	}
	c.mu.Unlock()
	c.wake()
}

// lost records that events may have been lost: the next application
// refreshes the whole index.
func (c *changes) lost() {
	c.mu.Lock()
	c.refresh = true
	c.received++
	c.mu.Unlock()
	c.wake()
}

func (c *changes) wake() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// RecentChanges returns the files changed on disk since the root opened,
// most recent first (at most 32).
func (r *Root) RecentChanges() []string {
	c := &r.changes
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.SortedFunc(maps.Keys(c.recent), func(a, b string) int {
		return cmp.Or(cmp.Compare(c.recent[b], c.recent[a]), cmp.Compare(a, b))
	})
}

// loop applies the recorded changes until the root closes.
func (c *changes) loop() {
	ctx := c.r.ctx
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.kick:
		}
		for {
			c.mu.Lock()
			target := c.received
			paths := slices.Sorted(maps.Keys(c.pending))
			refresh := c.refresh
			c.pending, c.refresh = map[string]bool{}, false
			done := c.applied >= target
			c.mu.Unlock()
			if done {
				break
			}
			c.apply(ctx, paths, refresh)
			c.mu.Lock()
			c.applied = target
			close(c.appliedCh)
			c.appliedCh = make(chan struct{})
			c.mu.Unlock()
		}
	}
}

// apply brings the index up to date with paths changed on disk: a file is
// updated (the index drops it when its rules no longer admit it, and lists
// the root again when an ignore file changed), a deleted path is dropped
// with everything below it, and a new directory (or lost events) makes the
// index refresh.
func (c *changes) apply(ctx context.Context, paths []string, refresh bool) {
	r := c.r
	for _, rel := range paths {
		if refresh {
			break
		}
		st, err := os.Stat(filepath.Join(r.path, filepath.FromSlash(rel)))
		switch {
		case err != nil:
			err = r.removeTree(ctx, rel)
		case st.IsDir():
			refresh = true
		default:
			err = r.idx.Update(ctx, rel, nil)
		}
		if err != nil && ctx.Err() == nil {
			r.logf("%s: %s: %v", r.path, rel, err)
		}
	}
	if refresh {
		if _, err := r.idx.Refresh(ctx); err != nil && ctx.Err() == nil {
			r.logf("%s: refresh: %v", r.path, err)
		}
		c.refreshed()
	}
}

// removeTree drops rel, and every indexed path below it, from the index.
func (r *Root) removeTree(ctx context.Context, rel string) error {
	snap, release := r.idx.Snapshot()
	var gone []string
	if _, ok := snap.Stat(rel); ok {
		gone = append(gone, rel)
	}
	paths := snap.Paths()
	prefix := rel + "/"
	i, _ := slices.BinarySearch(paths, prefix)
	for ; i < len(paths) && strings.HasPrefix(paths[i], prefix); i++ {
		gone = append(gone, paths[i])
	}
	release()
	if len(gone) == 0 {
		return nil
	}
	return r.idx.Remove(ctx, gone...)
}

// Sync makes the index include every change seen before the call: it
// waits until the watcher's events so far (or the changes the client
// told) are applied, or refreshes a root that cannot be watched. The index
// must be open.
func (r *Root) Sync(ctx context.Context) error {
	c := &r.changes
	c.mu.Lock()
	w, refreshEach := c.watcher, c.refreshEach
	c.mu.Unlock()
	if refreshEach {
		_, err := r.idx.Refresh(ctx)
		c.refreshed()
		if err != nil && ctx.Err() == nil {
			return fmt.Errorf("refresh the index of %s: %w", r.path, err)
		}
		return ctx.Err()
	}
	if w != nil {
		if err := w.flush(ctx); err != nil {
			return err
		}
	}
	c.mu.Lock()
	target := c.received
	for c.applied < target {
		ch := c.appliedCh
		c.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-r.ctx.Done():
			return fmt.Errorf("%s: %w", r.path, ErrClosed)
		}
		c.mu.Lock()
	}
	c.mu.Unlock()
	return nil
}

// close stops the watcher.
func (c *changes) close() {
	c.mu.Lock()
	w := c.watcher
	c.mu.Unlock()
	if w != nil {
		w.close()
	}
}
