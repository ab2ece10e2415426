package retrieve

import (
	"cmp"
	"maps"
	"slices"

	"github.com/ctxls/ctxls/internal/history"
	"github.com/ctxls/ctxls/internal/index"
)

// HistoryOptions are the history channel's knobs: co-changed files, the
// commits whose messages read like the question, and the recency prior.
type HistoryOptions struct {
	// CoChangeFiles is how many files the history channel brings for a
	// diff: those that changed most often with the diff's files (0: none).
	CoChangeFiles int
	// CoChangeHalfLife: in a request with a diff, co-changed files count
	// the commits they share with the diff's (or its best) files less the
	// older they are (half-life in commits; 0: all alike). A question's
	// seeded co-change counts them alike (measured).
	CoChangeHalfLife float64
	// CoChangeSeeds: a request without a diff seeds the history channel
	// with its best files so far, this many (0: no history channel).
	CoChangeSeeds int
	// CoChangeSeedWeight scales the history channel's weight when it is
	// seeded so (the request's own files say more than the best guesses).
	CoChangeSeedWeight float64
	// CoChangeSeedDiff seeds the history channel with a diff's best files
	// too (beside the diff's own files). Off by default: measured, it cost
	// the diff task lines on the eval and files and lines on the held-out
	// check (docs/heldout.md).
	CoChangeSeedDiff bool
	// MessageCommits: with the workspace's history, the file model reads
	// how strongly the past commits whose messages read most like the
	// question (this many) changed each file (0: not).
	MessageCommits int
	// MessageFiles: with a budget of at least MessageFilesFrom tokens,
	// that many of those commits' files, most voted first, join the
	// history channel as candidates at MessageWeight of its weight (0:
	// none) — a file no other channel found by its first definition — so
	// that the file model can weigh what the past messages point at.
	// Under a tight budget they displace better-founded parts (measured:
	// line recall fell at 2 000 tokens, docs/quality.md).
	MessageFiles     int
	MessageWeight    float64
	MessageFilesFrom int
	// HistoryPrior: a chunk's score is raised by this share times its
	// file's recency prior (history.Log.Recency; 0: not).
	HistoryPrior float64
}

// historyState is the history channel's per-request state.
type historyState struct {
	// diffCoChanged: the history channel brought files that changed
	// together with the diff's (Options.DiffDirPrior stands in otherwise).
	diffCoChanged bool
	// messages are the files of the past commits whose messages read like
	// the question (history.Log.MessageMatches), read once (messageVotes).
	messages     []history.Scored
	messagesRead bool
}

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
func (r *run) history() error {
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
	return nil
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
