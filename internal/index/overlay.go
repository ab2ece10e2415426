package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"sync"

	"github.com/ctxls/ctxls/internal/index/walk"
)

// Overlay is one client's unsaved editor buffers over a shared Index: its
// snapshots (Overlay.Snapshot) read the client's buffers in place of the
// files on disk, while the Index itself, and every other client's view of
// it, keeps the disk content. This is how sessions sharing one index in
// one process keep their unsaved work private to themselves (gopls keeps
// overlays per session over shared snapshots in the same way).
//
// A buffer is judged by the index's rules (ignore files, secret names and
// content) like a file; a buffer they refuse hides the path from the
// client's view, as the index drops such a file. A buffer is chunked and
// counted when it is set, not by the Index's writer: a client's edit never
// waits for a build or a refresh, and never changes what another client
// reads.
//
// An Overlay is safe for concurrent use.
type Overlay struct {
	x *Index

	mu      sync.Mutex
	files   map[string]*overlayFile // path → buffer; hidden ones have rec nil
	version uint64                  // bumped by every change
	chunker Chunker                 // created on first use
	lister  FileFilter              // the index's rules (safe for concurrent use)
	// view is the last snapshot made, for the base snapshot and version
	// it was made from: requests between two edits share it (and its
	// Memo values).
	view        *Snapshot
	viewBase    *Snapshot
	viewVersion uint64
}

// overlayFile is one buffer: its file row and its chunks' search terms.
type overlayFile struct {
	rec  *fileRec // nil: the rules refuse the buffer, the path is hidden
	docs []memDoc // per chunk, in ordinal order
}

// memDoc is one buffer chunk's search fields, scored in memory like a
// document of the lexical store (see search).
type memDoc struct {
	tf   [numSearchFields]map[string]uint32
	flen [numSearchFields]uint32
}

// NewOverlay returns an empty overlay of x.
func (x *Index) NewOverlay() *Overlay {
	o := &Overlay{x: x, files: map[string]*overlayFile{}}
	if ff, ok := x.set.Lister.(FileFilter); ok {
		o.lister = ff
	}
	return o
}

// Set makes content the client's buffer of path (absolute, or relative to
// the root).
func (o *Overlay) Set(ctx context.Context, path string, content []byte) error {
	p, err := o.x.relPath(path)
	if err != nil {
		return fmt.Errorf("set buffer: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("set buffer %s: %w", p, err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	old := o.files[p]
	if old != nil && old.rec != nil && old.rec.info.Hash == contentHash(content) {
		return nil
	}
	f, err := o.process(p, content, old)
	if err != nil {
		return fmt.Errorf("set buffer %s: %w", p, err)
	}
	o.files[p] = f
	o.version++
	return nil
}

// LayTree lays the files paths (slash paths relative to both roots) of
// tree, another checkout of the indexed repository — a pull request's —
// over the index, read and judged as an index of tree would read and judge
// them: by the walk's rules with tree as the root (walk.Matcher.ReadFile:
// its ignore files, secret names and content, the size limit, symbolic
// links that stay inside tree and out of .git), with the index's own walk
// options (the defaults for a store's checkout). A file they refuse is
// hidden, as an index of tree would not hold it, and returned among the
// skipped; nothing outside tree is read, and no file beyond the size limit.
// A path that tree does not hold is an error wrapping fs.ErrNotExist.
func (o *Overlay) LayTree(ctx context.Context, tree string, paths []string) ([]Skipped, error) {
	opts := walk.Options{}
	if wl, ok := o.x.set.Lister.(*WalkLister); ok {
		opts = wl.Options
		opts.Unchanged, opts.SkippedBefore = nil, nil
	}
	m, err := walk.NewMatcher(tree, opts)
	if err != nil {
		return nil, fmt.Errorf("lay %s: %w", tree, err)
	}
	var skipped []Skipped
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return skipped, fmt.Errorf("lay %s: %w", tree, err)
		}
		f, b, s, err := m.ReadFile(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return skipped, fmt.Errorf("%s is not in %s: %w", p, tree, fs.ErrNotExist)
		case err != nil:
			return skipped, fmt.Errorf("lay %s of %s: %w", p, tree, err)
		case s != nil:
			skipped = append(skipped, Skipped{Path: p, Reason: string(s.Reason), Detail: s.Detail})
			if err := o.Remove(p); err != nil {
				return skipped, err
			}
			continue
		}
		if err := o.Set(ctx, f.Path, b); err != nil {
			return skipped, err
		}
	}
	return skipped, nil
}

// Remove hides path from the client's view, as if the file were deleted
// (a pull request's deleted file, over a base branch's index).
func (o *Overlay) Remove(path string) error {
	p, err := o.x.relPath(path)
	if err != nil {
		return fmt.Errorf("remove buffer: %w", err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if f, ok := o.files[p]; !ok || f.rec != nil {
		o.files[p] = &overlayFile{}
		o.version++
	}
	return nil
}

// Clear drops the client's buffer of path: its view reads the index's
// file again.
func (o *Overlay) Clear(path string) error {
	p, err := o.x.relPath(path)
	if err != nil {
		return fmt.Errorf("clear buffer: %w", err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.files[p]; ok {
		delete(o.files, p)
		o.version++
	}
	return nil
}

// process chunks, counts and analyses one buffer.
func (o *Overlay) process(p string, content []byte, old *overlayFile) (*overlayFile, error) {
	x := o.x
	if o.lister != nil {
		if ok, reason := o.lister.Allow(x.env.root, p, content); !ok {
			x.set.Logf("index: buffer %s not indexed: %s", p, reason)
			return &overlayFile{}, nil
		}
	}
	if o.chunker == nil {
		ch, err := x.set.NewChunker()
		if err != nil {
			return nil, fmt.Errorf("new chunker: %w", err)
		}
		o.chunker = ch
	}
	job := fileJob{entry: Entry{Path: p, Size: int64(len(content))}, content: slices.Clip(content), overlay: true}
	if old != nil {
		job.old = old.rec
	}
	r := x.processFile(o.chunker, &job)
	if r.skip != "" {
		x.set.Logf("index: buffer %s: %s: %v", p, r.skip, r.err)
		return &overlayFile{}, nil
	}
	f := &overlayFile{rec: r.rec, docs: make([]memDoc, len(r.chunks))}
	for i, d := range r.docs {
		if d == nil {
			// Same document as the previous version's chunk i.
			f.docs[i] = old.docs[i]
			continue
		}
		m := &f.docs[i]
		m.flen = d.Len
		d.Terms(func(j int, t []byte, freq uint32) {
			if m.tf[j] == nil {
				m.tf[j] = map[string]uint32{}
			}
			m.tf[j][string(t)] = freq
		})
	}
	nt := x.names
	nt.mu.Lock()
	r.rec.info.Language = nt.canonical(r.rec.info.Language)
	r.rec.chunks = make([]chunkRec, len(r.chunks))
	for i := range r.chunks {
		r.rec.chunks[i] = newChunkRec(&r.chunks[i], nt)
		r.rec.chunks[i].flen = f.docs[i].flen
	}
	nt.mu.Unlock()
	return f, nil
}

// Snapshot returns the client's view of the index's current snapshot: its
// buffers in place of the files they overlay. Release it like the Index's.
func (o *Overlay) Snapshot() (*Snapshot, func()) {
	base, release := o.x.Snapshot()
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.differs(base) {
		// Every buffer holds what the index holds: the index's own
		// snapshot is the view, scored exactly as every other face scores
		// it (and its Memo values shared).
		return base, release
	}
	if o.view != nil && o.viewBase == base && o.viewVersion == o.version && o.view.acquire() {
		release()
		return o.view, o.view.releaser()
	}
	v := o.derive(base) // holds base's reference from now on
	if o.view != nil {
		o.view.release() // the overlay's own reference
	}
	v.refs.Add(1) // the overlay keeps one reference to the view
	o.view, o.viewBase, o.viewVersion = v, base, o.version
	return v, v.releaser()
}

// differs reports whether a buffer changes base: one whose text is not
// base's file, or that hides a file base has.
func (o *Overlay) differs(base *Snapshot) bool {
	for p, f := range o.files {
		if !f.same(base.file(p)) {
			return true
		}
	}
	return false
}

// same reports whether f holds what in (base's file, nil: none) holds.
func (f *overlayFile) same(in *fileRec) bool {
	if f.rec == nil {
		return in == nil
	}
	return in != nil && in.info.Hash == f.rec.info.Hash && in.info.Language == f.rec.info.Language
}

// Close drops the overlay's kept view.
func (o *Overlay) Close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.view != nil {
		o.view.release()
		o.view, o.viewBase = nil, nil
	}
	clear(o.files)
}

// derive makes the view of base with o's buffers. The view reads base's
// lexical reader and releases base when it is released itself.
func (o *Overlay) derive(base *Snapshot) *Snapshot {
	delta := maps.Clone(base.delta)
	if delta == nil {
		delta = map[string]*fileRec{}
	}
	mem := &memCorpus{paths: map[string]bool{}}
	paths := slices.Sorted(maps.Keys(o.files))
	for _, p := range paths {
		f := o.files[p]
		if f.same(base.file(p)) {
			continue // base's own documents and rows serve it
		}
		mem.paths[p] = true
		if f.rec == nil {
			if base.file(p) != nil {
				delta[p] = nil
			} else {
				delete(delta, p)
			}
			continue
		}
		delta[p] = f.rec
		for i := range f.docs {
			r := &f.rec.chunks[i]
			mem.docs = append(mem.docs, memHit{
				id: makeChunkID(p, i), path: p, ord: i,
				start: int(r.startLine), end: int(r.endLine), doc: &f.docs[i],
			})
		}
	}
	names := o.x.names.view()
	v := newSnapshot(base.env, base.base, delta, names, base.reader, base.complete, base.seq)
	v.parent, v.mem, v.unavailable = base, mem, base.unavailable
	return v
}

// memCorpus is what a view's buffers add to its parent's lexical reader:
// the paths whose documents in the reader are not the view's (hidden or
// overlaid), and the buffers' chunks to score in memory.
type memCorpus struct {
	paths map[string]bool
	docs  []memHit // by path, then ordinal
}

// memHit is one buffer chunk of a view.
type memHit struct {
	id         ChunkID
	path       string
	ord        int
	start, end int
	doc        *memDoc
}

// df is the number of chunks whose field j has term t.
func (m *memCorpus) df(j int, t string) uint64 {
	var n uint64
	for _, h := range m.docs {
		if h.doc.tf[j][t] > 0 {
			n++
		}
	}
	return n
}
