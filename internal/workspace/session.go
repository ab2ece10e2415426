package workspace

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/retrieve"
	"github.com/ctxls/ctxls/internal/semantic"
)

// Session is one client of a Root: its unsaved buffers (read by its own
// requests only) and the index states held for its expand requests.
type Session struct {
	root    *Root
	maxHeld int

	// overlay is the client's buffers over the root's index, made once
	// the index is open.
	ovOnce  sync.Once
	overlay *index.Overlay

	mu      sync.Mutex // guards the fields below
	closing bool
	held    []*heldState // most recently used last
	tick    uint64
	users   sync.WaitGroup // views not done yet
}

// NewSession starts a client of r that keeps up to maxHeld index states
// for expand (at least 1).
func (r *Root) NewSession(maxHeld int) *Session {
	return &Session{root: r, maxHeld: max(maxHeld, 1)}
}

// Root is the session's root.
func (s *Session) Root() *Root { return s.root }

// buffers returns the session's overlay; the index must be open.
func (s *Session) buffers() *index.Overlay {
	s.ovOnce.Do(func() { s.overlay = s.root.idx.NewOverlay() })
	return s.overlay
}

// SetBuffer makes text the session's unsaved buffer of rel (relative to
// the root): its requests read it in place of the file on disk; no other
// session does. The index must be open.
func (s *Session) SetBuffer(ctx context.Context, rel, text string) error {
	return s.buffers().Set(ctx, rel, []byte(text))
}

// ClearBuffer drops the session's buffer of rel (closed in the editor):
// its requests read the file on disk again. The index must be open.
func (s *Session) ClearBuffer(rel string) error {
	return s.buffers().Clear(rel)
}

// View is one request's hold on a session's snapshot of the index. Call
// Done, or Keep to hold the snapshot for expand requests.
type View struct {
	Snap    *index.Snapshot
	s       *Session
	release func()
	held    *heldState // non-nil when borrowed from the held states
}

// AcquireOptions say how long a request waits for the first build.
type AcquireOptions struct {
	// Wait is the longest wait for the first build to finish; past it the
	// request reads the partial index (Snapshot.Complete false).
	Wait time.Duration
	// Tick, if set, is called every 250 ms while the request waits.
	Tick func()
	// Stop, if set, ends the wait for the build when closed (the face is
	// shutting down and answers from what is indexed).
	Stop <-chan struct{}
}

// Acquire waits for the root's index to be open and to include the disk
// changes seen before the call (Root.Sync), then at most o.Wait for its
// first build, and returns a view of the session's snapshot.
func (s *Session) Acquire(ctx context.Context, o AcquireOptions) (*View, error) {
	r := s.root
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", r.path, ErrClosed)
	}
	s.users.Add(1)
	s.mu.Unlock()
	fail := func(err error) (*View, error) {
		s.users.Done()
		return nil, err
	}
	every := time.NewTicker(250 * time.Millisecond)
	defer every.Stop()
	waitFor := func(ch <-chan struct{}, limit <-chan time.Time) error {
		for {
			select {
			case <-ch:
				return nil
			case <-limit:
				return nil
			case <-o.Stop:
				return nil
			case <-every.C:
				if o.Tick != nil {
					o.Tick()
				}
			case <-ctx.Done():
				return ctx.Err()
			case <-r.ctx.Done():
				return fmt.Errorf("%s: %w", r.path, ErrClosed)
			}
		}
	}
	if err := waitFor(r.ready, nil); err != nil {
		return fail(err)
	}
	if r.openErr != nil {
		return fail(r.openErr)
	}
	if err := r.Sync(ctx); err != nil {
		return fail(err)
	}
	if o.Wait > 0 {
		t := time.NewTimer(o.Wait)
		err := waitFor(r.built, t.C)
		t.Stop()
		if err != nil {
			return fail(err)
		}
	}
	snap, release := s.buffers().Snapshot()
	return &View{Snap: snap, s: s, release: release}, nil
}

// Held returns a view of a held state: the one named state if state is
// not empty (an answer's index state: its content part names the
// snapshot, index.ContentState), else the most recently used one whose
// results listed every handle. It returns nil when there is none.
func (s *Session) Held(state string, handles []string) *View {
	state = index.ContentState(state)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return nil
	}
	for i := len(s.held) - 1; i >= 0; i-- {
		h := s.held[i]
		if state != "" && h.state != state {
			continue
		}
		if state == "" && (len(handles) == 0 || !h.hasAll(handles)) {
			continue
		}
		h.refs++
		s.tick++
		h.used = s.tick
		s.users.Add(1)
		return &View{Snap: h.snap, s: s, held: h}
	}
	return nil
}

// Borrowed reports whether the view reads a held state (Session.Held).
func (v *View) Borrowed() bool { return v.held != nil }

// Done releases the view.
func (v *View) Done() {
	s := v.s
	if v.held != nil {
		s.mu.Lock()
		v.held.refs--
		if v.held.evicted && v.held.refs == 0 {
			v.held.release()
		}
		s.mu.Unlock()
	} else {
		v.release()
	}
	s.users.Done()
}

// Keep releases the view but holds its snapshot for expand requests, as
// the state that produced handles. The session holds its most recently
// used states, up to its limit.
func (v *View) Keep(handles []string) {
	s := v.s
	if v.held != nil {
		s.mu.Lock()
		v.held.add(handles)
		s.mu.Unlock()
		v.Done()
		return
	}
	state := v.Snap.StateRoot()
	s.mu.Lock()
	s.tick++
	i := slices.IndexFunc(s.held, func(h *heldState) bool { return h.state == state })
	switch {
	case s.closing:
		v.release()
	case i >= 0:
		v.release()
		s.held[i].used = s.tick
		s.held[i].add(handles)
	default:
		h := &heldState{state: state, snap: v.Snap, release: v.release, used: s.tick, handles: map[string]bool{}}
		h.add(handles)
		s.held = append(s.held, h)
	}
	slices.SortFunc(s.held, func(a, b *heldState) int { return cmp.Compare(a.used, b.used) })
	for len(s.held) > s.maxHeld {
		old := s.held[0]
		s.held = s.held[1:]
		old.evicted = true
		if old.refs == 0 {
			old.release()
		}
	}
	s.mu.Unlock()
	s.users.Done()
}

// Close ends the session: no new views, the views in use awaited, the
// held states and the buffers dropped. It does not release the root.
func (s *Session) Close() {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return
	}
	s.closing = true
	s.mu.Unlock()
	s.users.Wait()
	s.mu.Lock()
	for _, h := range s.held {
		h.release()
	}
	s.held = nil
	s.mu.Unlock()
	s.ovOnce.Do(func() {}) // no overlay made from now on
	if s.overlay != nil {
		s.overlay.Close()
	}
}

// heldState is an index snapshot kept after the assemble that read it.
type heldState struct {
	state   string
	snap    *index.Snapshot
	release func()
	handles map[string]bool // handles of the results read from it
	used    uint64          // session tick of the last use
	refs    int             // views reading it now
	evicted bool            // no longer held; released when refs is 0
}

func (h *heldState) add(handles []string) {
	for _, x := range handles {
		h.handles[x] = true
	}
}

func (h *heldState) hasAll(handles []string) bool {
	for _, x := range handles {
		if !h.handles[x] {
			return false
		}
	}
	return true
}

// Signals say which of a root's signals besides the index a request may
// read: the face's settings.
type Signals struct {
	// History lets the request read the root's git history.
	History bool
	// Embeddings is the semantic channel's mode ("": semantic.DefaultMode)
	// and Endpoint the service of mode "endpoint".
	Embeddings string
	Endpoint   *semantic.EndpointConfig
	// Logf hears when the root's vectors are ready or cannot be computed.
	Logf func(format string, args ...any)
}

// Attach gives the plan the root's git history and chunk vectors for
// the view's snapshot, as sig allows and as far as the request can use
// them (Plan.WantsHistory, Plan.WantsSemantic). Each starts its root's
// tracker on first use.
func (v *View) Attach(ctx context.Context, p *retrieve.Plan, sig Signals) {
	r := v.s.root
	logf := sig.Logf
	if logf == nil {
		logf = r.logf
	}
	if sig.History && p.WantsHistory() {
		if r.noHistory != "" {
			p.AddNote(r.noHistory)
		}
		p.SetHistory(r.History(ctx, logf))
	}
	if ep, use := semantic.Resolve(sig.Embeddings, sig.Endpoint); use && p.WantsSemantic() {
		p.SetSemantic(r.Semantic(ctx, v.Snap, ep, logf))
	}
}
