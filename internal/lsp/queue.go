package lsp

import (
	"context"
	"errors"
	"sync"
)

// changeKind is what a queued change does to a folder's session. The
// disk's changes are not queued here: they go to the folder's Root, whose
// queue every session of it shares (folder.diskChanged).
type changeKind int

const (
	// changeDocument: bring the session in line with the editor buffer of
	// the path (overlay it if open and allowed, else drop the overlay).
	changeDocument changeKind = iota
)

// change is one queued change of one path (folder-relative slash path).
type change struct {
	kind changeKind
	rel  string
}

// changeQueue orders the changes of one folder's index: handlers enqueue
// on the read goroutine (never waiting), one worker applies them in order,
// and requests wait until the changes that arrived before them are
// applied. Changes to the same path that are waiting together collapse
// into the last one, since they all read the newest state when applied.
type changeQueue struct {
	mu       sync.Mutex
	pending  []change
	enq      uint64        // changes enqueued so far
	applied  uint64        // changes applied so far (≤ enq)
	wake     chan struct{} // signals the worker; capacity 1
	progress chan struct{} // closed and replaced when applied grows
	stopped  chan struct{} // closed when run returns
}

func newChangeQueue() *changeQueue {
	return &changeQueue{wake: make(chan struct{}, 1), progress: make(chan struct{}), stopped: make(chan struct{})}
}

// push enqueues a change.
func (q *changeQueue) push(c change) {
	q.mu.Lock()
	q.pending = append(q.pending, c)
	q.enq++
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// enqueued returns the number of changes enqueued so far.
func (q *changeQueue) enqueued() uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.enq
}

// errQueueStopped: the folder closed before the changes were applied.
var errQueueStopped = errors.New("the workspace folder was closed")

// wait blocks until the first n changes are applied, ctx is done or the
// queue stopped.
func (q *changeQueue) wait(ctx context.Context, n uint64) error {
	for {
		q.mu.Lock()
		done, ch := q.applied >= n, q.progress
		q.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-q.stopped:
			return errQueueStopped
		}
	}
}

// run applies changes with apply until ctx is done. apply gets the
// changes that were waiting, collapsed per path, in order.
func (q *changeQueue) run(ctx context.Context, apply func([]change)) {
	defer close(q.stopped)
	for {
		select {
		case <-ctx.Done():
			return
		case <-q.wake:
		}
		q.mu.Lock()
		batch, upto := q.pending, q.enq
		q.pending = nil
		q.mu.Unlock()
		if len(batch) > 0 {
			apply(collapse(batch))
		}
		q.mu.Lock()
		q.applied = upto
		close(q.progress)
		q.progress = make(chan struct{})
		q.mu.Unlock()
	}
}

// collapse keeps, per (kind, path), only the last change, in the order of
// those last occurrences.
func collapse(batch []change) []change {
	last := make(map[change]int, len(batch))
	for i, c := range batch {
		last[c] = i
	}
	out := batch[:0:0]
	for i, c := range batch {
		if last[c] == i {
			out = append(out, c)
		}
	}
	return out
}
