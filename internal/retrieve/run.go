package retrieve

import (
	"cmp"
	"context"
	"slices"
	"strconv"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/index/chunk"
)

// snapFiles serves file texts and chunk records from a snapshot, each
// file's read once per request.
type snapFiles struct {
	snap   *index.Snapshot
	cache  map[string]fileText
	chunks map[string][]index.IndexedChunk
}

type fileText struct {
	text string
	ok   bool
}

func newSnapFiles(snap *index.Snapshot) *snapFiles {
	return &snapFiles{snap: snap, cache: map[string]fileText{}, chunks: map[string][]index.IndexedChunk{}}
}

// ChunksOf is the snapshot's ChunksOf, decoded once: the channels,
// neighbors and maps of a request read the same files' chunks again and
// again. Callers must not change the slice.
func (f *snapFiles) ChunksOf(path string) []index.IndexedChunk {
	if cs, ok := f.chunks[path]; ok {
		return cs
	}
	cs := f.snap.ChunksOf(path)
	f.chunks[path] = cs
	return cs
}

// Text implements assemble.Files.
func (f *snapFiles) Text(path string) (string, bool) {
	if t, ok := f.cache[path]; ok {
		return t.text, t.ok
	}
	var t fileText
	t.text, t.ok = f.snap.Text(path)
	f.cache[path] = t
	return t.text, t.ok
}

// files is the run's file reader (shared by the channels, hit lines and
// the assembler).
func (r *run) files() *snapFiles {
	if r.fileCache == nil {
		r.fileCache = newSnapFiles(r.snap)
	}
	return r.fileCache
}

// scored is one chunk's fused state.
type scored struct {
	id       index.ChunkID
	c        chunk.Chunk
	score    float64
	channels map[string]float64
	// priors are the steps after fusion that changed the score, for
	// --explain (filled only when the request asks for it).
	priors []string
	// literal: ranked down as mostly string literals (a file feature).
	literal bool
}

// prior multiplies s's score by f, a step after fusion named what (for
// --explain: "test, example or vendored file ×0.30").
func (r *run) prior(s *scored, f float64, what string) {
	s.score *= f
	if r.req.Explain {
		s.priors = append(s.priors, what+" ×"+strconv.FormatFloat(f, 'f', 2, 64))
	}
}

// run is the state of one request.
type run struct {
	e    *Engine
	ctx  context.Context
	snap *index.Snapshot
	req  Request
	// typeBudget is what the request's answers by types may need checked
	// (resolveBudget; nil until the first).
	typeBudget *ResolveBudget
	diffFiles  []FileDiff // req.Diff, parsed
	weights    map[string]float64
	// text is what the text channels read: the query, and the diff's
	// words (diffQueryText).
	text   string
	q      Analyzed
	scores map[index.ChunkID]*scored
	// hits is the hit-line search's scratch space, kept between candidates.
	hits hitScratch
	// mapFiles says why each map (path → reason) is offered.
	mapFiles map[string]string
	// mapHandles are the maps' handles: a map the budget leaves out is
	// not listed as omitted (expanding it gives its few lines; the file's
	// own candidates are listed).
	mapHandles map[string]bool
	// candHandles are the handles of compact candidates, whose ranges are
	// not their chunk's (for --explain).
	candHandles map[string]*scored
	// shaped: some candidate's lines were cut to its calls, declarations
	// or matched lines (reviewShape, Options.CutShare), so a part's handle
	// may be no unit's own and --explain finds the unit holding it.
	shaped    bool
	fileCache *snapFiles
	// Each channel's and step's own state, beside its code.
	focusState
	pathState
	diffState
	historyState
	fileModelState
	semanticState
}

func (r *run) get(id index.ChunkID) *scored {
	if s, ok := r.scores[id]; ok {
		return s
	}
	c, ok := r.snap.Chunk(id)
	if !ok || !r.allowed(c.Path) {
		return nil
	}
	s := &scored{id: id, c: c, channels: map[string]float64{}}
	r.scores[id] = s
	return s
}

func (r *run) allowed(path string) bool {
	if len(r.req.Include) > 0 {
		ok := false
		for _, g := range r.req.Include {
			if m, _ := doublestar.Match(g, path); m {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	for _, g := range r.req.Exclude {
		if m, _ := doublestar.Match(g, path); m {
			return false
		}
	}
	return true
}

// ranked returns the fused chunks by score, ties by path then line.
func (r *run) ranked() []*scored {
	out := make([]*scored, 0, len(r.scores))
	for _, s := range r.scores {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *scored) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.c.Path, b.c.Path),
			cmp.Compare(a.c.StartLine, b.c.StartLine), cmp.Compare(a.c.EndLine, b.c.EndLine), cmp.Compare(a.id, b.id))
	})
	return out
}
