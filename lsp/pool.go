package lsp

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ctxls/ctxls/history"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/semantic"
)

// IndexPool shares one index per workspace root among the sessions of a
// process (`ctxls serve --listen` runs one session per connection): the
// second session to open a root uses the first one's index instead of
// finding its on-disk directory locked and building a private copy, and an
// edit made in one session is in the snapshots every session reads.
//
// Each session's open buffers are overlays of the shared index. When two
// sessions have the same file open, the index holds the text of the one
// that changed it last; when a session closes the file (or ends), the index
// falls back to another session's buffer, else to the disk. An index is
// closed (and checkpointed) when the last session using it lets go.
//
// The zero value is not usable; use NewIndexPool. Serve makes a private
// pool for its session when Options.Pool is nil.
type IndexPool struct {
	mu      sync.Mutex
	entries map[string]*poolEntry
	// logf is the process log (the index's messages are not any one
	// session's).
	logf func(format string, args ...any)
}

// NewIndexPool returns an empty pool; logf receives the indexes' log
// lines (nil discards them).
func NewIndexPool(logf func(format string, args ...any)) *IndexPool {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &IndexPool{entries: map[string]*poolEntry{}, logf: logf}
}

// poolEntry is one shared index.
type poolEntry struct {
	key  string
	root string
	refs int // guarded by the pool's mu

	// ready is closed once idx (or err) is set.
	ready    chan struct{}
	idx      *index.Index
	err      error
	progress atomic.Pointer[index.Progress]
	ctx      context.Context
	cancel   context.CancelFunc

	bufMu   sync.Mutex
	buffers map[string][]bufferOwner // path → owners, the last changed last

	// hist and sem are the root's git history and chunk vectors: one
	// tracker of each per root, whatever the number of sessions using it
	// (each tracker reads git or trains in the background, and the
	// vectors' tracker writes the cache file beside the index), started
	// by the first request that wants it and closed with the index.
	hist history.Lazy
	sem  semantic.Lazy

	// warnMu guards warnings (what the index told its users: Options.Warnf)
	// and listeners (the folders using it, told each warning once).
	warnMu    sync.Mutex
	warnings  []string
	listeners map[*folder]func(string)
}

// bufferOwner is one session's buffer of a path.
type bufferOwner struct {
	owner *folder
	text  string
}

// acquire returns the shared index of root under opts (opening it in the
// background on first use) and increments its users. The caller must call
// release once.
func (p *IndexPool) acquire(root string, opts index.Options) *poolEntry {
	key := fmt.Sprintf("%s\x00%s\x00%v", root, opts.CacheDir, opts.InMemory)
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.entries[key]; ok {
		e.refs++
		return e
	}
	ctx, cancel := context.WithCancel(context.Background())
	e := &poolEntry{key: key, root: root, refs: 1, ready: make(chan struct{}), ctx: ctx, cancel: cancel,
		buffers: map[string][]bufferOwner{}, listeners: map[*folder]func(string){}}
	p.entries[key] = e
	opts.Background, opts.Warm = true, true
	opts.Progress = chainProgress(opts.Progress, func(pr index.Progress) { e.progress.Store(&pr) })
	logf := p.logf
	opts.Logf = chainLogf(opts.Logf, func(format string, args ...any) {
		logf("%s: "+format, append([]any{root}, args...)...)
	})
	// A warning (the cache directory cannot be written) goes to the log and
	// to every session using the index.
	opts.Warnf = chainLogf(opts.Warnf, func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		logf("%s: warning: %s", root, msg)
		e.warn(msg)
	})
	go func() {
		e.idx, e.err = index.Open(ctx, root, opts)
		if e.err != nil {
			e.err = fmt.Errorf("open the index of %s: %w", root, e.err)
		}
		close(e.ready)
	}()
	return e
}

// warn records a warning of e's index and tells every listener.
func (e *poolEntry) warn(msg string) {
	e.warnMu.Lock()
	e.warnings = append(e.warnings, msg)
	tell := make([]func(string), 0, len(e.listeners))
	for _, fn := range e.listeners {
		tell = append(tell, fn)
	}
	e.warnMu.Unlock()
	for _, fn := range tell {
		fn(msg)
	}
}

// listen makes fn hear f's warnings of e's index: those given already, at
// once, then each new one.
func (e *poolEntry) listen(f *folder, fn func(string)) {
	e.warnMu.Lock()
	past := slices.Clone(e.warnings)
	e.listeners[f] = fn
	e.warnMu.Unlock()
	for _, msg := range past {
		fn(msg)
	}
}

// unlisten stops telling f.
func (e *poolEntry) unlisten(f *folder) {
	e.warnMu.Lock()
	delete(e.listeners, f)
	e.warnMu.Unlock()
}

// release lets go of e; the last user closes its index.
func (p *IndexPool) release(e *poolEntry) error {
	p.mu.Lock()
	e.refs--
	last := e.refs == 0
	if last {
		delete(p.entries, e.key)
	}
	p.mu.Unlock()
	if !last {
		return nil
	}
	e.cancel()
	<-e.ready
	e.hist.Close()
	e.sem.Close()
	if e.idx == nil {
		return nil
	}
	if err := e.idx.Close(); err != nil {
		return fmt.Errorf("close the index of %s: %w", e.root, err)
	}
	return nil
}

// setBuffer makes text owner's buffer of rel, and the index's overlay.
func (e *poolEntry) setBuffer(ctx context.Context, owner *folder, rel, text string) error {
	e.bufMu.Lock()
	defer e.bufMu.Unlock()
	owners := slices.DeleteFunc(e.buffers[rel], func(b bufferOwner) bool { return b.owner == owner })
	e.buffers[rel] = append(owners, bufferOwner{owner, text})
	return e.idx.SetOverlay(ctx, rel, []byte(text))
}

// clearBuffer drops owner's buffer of rel: the index then holds the buffer
// of the session that changed it last, else the disk file.
func (e *poolEntry) clearBuffer(ctx context.Context, owner *folder, rel string) error {
	e.bufMu.Lock()
	defer e.bufMu.Unlock()
	return e.clearBufferLocked(ctx, owner, rel)
}

func (e *poolEntry) clearBufferLocked(ctx context.Context, owner *folder, rel string) error {
	owners := slices.DeleteFunc(e.buffers[rel], func(b bufferOwner) bool { return b.owner == owner })
	if len(owners) > 0 {
		e.buffers[rel] = owners
		return e.idx.SetOverlay(ctx, rel, []byte(owners[len(owners)-1].text))
	}
	delete(e.buffers, rel)
	return e.idx.ClearOverlay(ctx, rel)
}

// clearOwner drops every buffer of owner (its session is leaving).
func (e *poolEntry) clearOwner(ctx context.Context, owner *folder) error {
	e.bufMu.Lock()
	defer e.bufMu.Unlock()
	var paths []string
	for rel, owners := range e.buffers {
		if slices.ContainsFunc(owners, func(b bufferOwner) bool { return b.owner == owner }) {
			paths = append(paths, rel)
		}
	}
	slices.Sort(paths)
	var firstErr error
	for _, rel := range paths {
		if err := e.clearBufferLocked(ctx, owner, rel); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}
