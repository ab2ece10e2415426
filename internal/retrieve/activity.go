package retrieve

import (
	"strings"

	"github.com/ctxls/ctxls/internal/index"
)

// ActivityOptions are the activity channel's knobs.
type ActivityOptions struct {
	// ActivityPrior: a chunk of an open buffer's file is raised by this
	// share (halved for each buffer used more lately than its own), times
	// the activity weight.
	ActivityPrior float64
}

// activityEdits lists the chunks of the edited ranges, the most recent
// edit's first (a chunk once, at its most recent edit), each edit's in
// line order. Files of the request's diff are left out: the diff is the
// newer account of their edits (measured: raising them again cost the
// diff task files and lines).
func (r *run) activityEdits() ([]index.ChunkID, error) {
	var ids []index.ChunkID
	seen := map[index.ChunkID]bool{}
	for _, e := range r.req.Activity.Edits {
		if !r.allowed(e.Path) || r.inDiff(e.Path) {
			continue
		}
		for _, c := range r.files().ChunksOf(e.Path) {
			if c.EndLine < e.Start || c.StartLine > e.End || seen[c.ID] {
				continue
			}
			seen[c.ID] = true
			ids = append(ids, c.ID)
		}
	}
	return ids, nil
}

// activityPrior raises the candidates of open buffers' files: by
// ActivityPrior × the activity weight for the most recently used buffer,
// half that for the next, and so on.
func (r *run) activityPrior() {
	a := r.e.opts.ActivityPrior * r.weights[ChanActivity]
	if a <= 0 {
		return
	}
	rank := map[string]int{}
	for i, p := range r.req.Activity.Open {
		if _, ok := rank[p]; !ok {
			rank[p] = i
		}
	}
	for _, s := range r.scores {
		i, ok := rank[s.c.Path]
		if !ok || r.inDiff(s.c.Path) {
			continue
		}
		f := a / float64(int(1)<<min(i, 30))
		x := s.score * f
		s.score += x
		s.channels[ChanActivity] += x
	}
}

// inDiff reports whether path is one of the request's diff's files.
func (r *run) inDiff(path string) bool {
	for _, f := range r.diffFiles {
		if f.Path == path {
			return true
		}
	}
	return false
}

// conversation searches the earlier turns of the conversation like the
// query (lexical and symbol channels), at the conversation weight: the
// words a user said a turn ago still say what the code is about.
func (r *run) conversation() error {
	q := Analyze(strings.Join(r.req.Conversation, "\n"))
	if q.Empty() {
		return nil
	}
	w := r.weights[ChanConversation]
	if ids, err := r.lexicalOf(q); err == nil {
		r.fuseWeighted(ChanConversation, w, ids)
	}
	if ids, err := r.symbolOf(q); err == nil {
		r.fuseWeighted(ChanConversation, w, ids)
	}
	return nil
}
