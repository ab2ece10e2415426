package retrieve

import (
	"cmp"
	"maps"
	"slices"

	"github.com/ctxls/ctxls/internal/history"
	"github.com/ctxls/ctxls/internal/index"
)

// history is the history channel (the workspace's git history,
// Request.History): the files that changed in the same past commits as
// the diff's files, and, for a question (and for a diff with
// Options.CoChangeSeedDiff), as its best files so far
// (Options.CoChangeSeeds, at CoChangeSeedWeight of the weight); for a
// question with room (Options.MessageFilesFrom), the files of the past
// commits whose messages read most like it (Options.MessageFiles, at
// MessageWeight of the weight); then the recency prior. A cursor request
// seeds nothing (measured: it loses definition files). Each file joins by
// one chunk (fileChunks).
func (r *run) history() {
	w := r.weights[ChanHistory]
	var diff []string
	for _, fd := range r.diffFiles {
		for _, p := range []string{fd.Path, fd.OldPath} {
			if p != "" {
				diff = append(diff, p)
			}
		}
	}
	best := r.bestByFile()
	if len(diff) > 0 {
		ids := r.cochange(diff, best, r.e.opts.CoChangeHalfLife)
		r.diffCoChanged = len(ids) > 0
		r.fuseWeighted(ChanHistory, w, ids)
	}
	if n := r.e.opts.CoChangeSeeds; n > 0 && r.req.Focus == nil && (len(diff) == 0 || r.e.opts.CoChangeSeedDiff) {
		files := slices.Collect(maps.Values(best))
		slices.SortFunc(files, func(a, b *scored) int {
			return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.c.Path, b.c.Path))
		})
		var seeds []string
		for _, s := range files {
			if len(seeds) == n {
				break
			}
			if !slices.Contains(diff, s.c.Path) {
				seeds = append(seeds, s.c.Path)
			}
		}
		halfLife := 0.0 // a question's seeds: commits alike (measured)
		if len(diff) > 0 {
			halfLife = r.e.opts.CoChangeHalfLife
		}
		r.fuseWeighted(ChanHistory, w*r.e.opts.CoChangeSeedWeight, r.cochange(seeds, best, halfLife))
	}
	if k := r.e.opts.MessageFiles; k > 0 && r.req.Focus == nil && len(diff) == 0 && r.req.Budget.MaxTokens >= r.e.opts.MessageFilesFrom {
		r.fuseWeighted(ChanHistory, w*r.e.opts.MessageWeight, r.fileChunks(r.messageVotes(), best, k))
	}
	r.historyPrior()
}

// cochange ranks the files that changed in the same commits as given
// (Options.CoChangeFiles of them, strongest first; recent commits weigh
// more with halfLife > 0, history.Log.CoChanged), each by its chunk in
// fileChunks.
func (r *run) cochange(given []string, best map[string]*scored, halfLife float64) []index.ChunkID {
	k := r.e.opts.CoChangeFiles
	if len(given) == 0 || k <= 0 {
		return nil
	}
	return r.fileChunks(r.req.History.CoChanged(given, 4*k, halfLife), best, k)
}

// fileChunks stands for each of the first k files the request may show
// (in the order given) by one chunk: its best so far (best: the one the
// other channels rank highest), or, for a file no other channel found,
// its first chunk that defines something.
func (r *run) fileChunks(files []history.Scored, best map[string]*scored, k int) []index.ChunkID {
	var ids []index.ChunkID
	for _, f := range files {
		if len(ids) == k {
			break
		}
		if !r.allowed(f.Path) {
			continue
		}
		if s, ok := best[f.Path]; ok {
			ids = append(ids, s.id)
		} else if id, ok := r.firstDefinition(f.Path); ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// bestByFile is each file's best-scored chunk so far (ties by line).
func (r *run) bestByFile() map[string]*scored {
	best := map[string]*scored{}
	for _, s := range r.scores {
		b, ok := best[s.c.Path]
		if !ok || cmp.Or(cmp.Compare(s.score, b.score), cmp.Compare(b.c.StartLine, s.c.StartLine), cmp.Compare(b.id, s.id)) > 0 {
			best[s.c.Path] = s
		}
	}
	return best
}

// firstDefinition is a file's first chunk that defines a name (its first
// chunk if none does); false when the file is not indexed.
func (r *run) firstDefinition(path string) (index.ChunkID, bool) {
	cs := r.files().ChunksOf(path)
	if len(cs) == 0 {
		return "", false
	}
	if i := slices.IndexFunc(cs, func(c index.IndexedChunk) bool { return len(c.Defines) > 0 }); i >= 0 {
		return cs[i].ID, true
	}
	return cs[0].ID, true
}

// historyPrior raises the score of the chunks of the files that changed
// often and lately (Request.History): ×(1 + HistoryPrior·recency), the
// recency in [0, 1]. The raise is the history channel's share in
// --explain. Not for a cursor: the definitions the next line needs are
// where they are, however old (the prior cost the cursor task 0.017 of
// its definition-file recall at 2 000 tokens, docs/quality.md).
func (r *run) historyPrior() {
	h, a := r.req.History, r.e.opts.HistoryPrior*r.weights[ChanHistory]
	if h == nil || a <= 0 || r.req.Focus != nil {
		return
	}
	for _, s := range r.scores {
		if v := h.Recency(s.c.Path); v > 0 {
			x := s.score * a * v
			s.score += x
			s.channels[ChanHistory] += x
		}
	}
}
