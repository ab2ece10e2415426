package retrieve

import (
	"slices"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/index/chunk"
)

// NeighborOptions are the neighbor step's knobs.
type NeighborOptions struct {
	// Neighbors is how many top candidates get their adjacent chunks added.
	Neighbors int
}

// neighbors adds the chunks before and after the best candidates at half
// their score times the neighbor weight, so that a neighbor ranks below
// the candidate it borders.
func (r *run) neighbors() error {
	top := r.ranked()
	if len(top) > r.e.opts.Neighbors {
		top = top[:r.e.opts.Neighbors]
	}
	w := r.weights[ChanNeighbor]
	for _, s := range top {
		cs := r.files().ChunksOf(s.c.Path)
		i := slices.IndexFunc(cs, func(c index.IndexedChunk) bool { return c.ID == s.id })
		if i < 0 {
			continue
		}
		for _, j := range []int{i - 1, i + 1} {
			if j < 0 || j >= len(cs) || cs[j].Kind == chunk.KindHeader {
				continue
			}
			// Skip chunks that contain or are contained in s (nesting).
			if cs[j].StartLine <= s.c.StartLine && cs[j].EndLine >= s.c.EndLine ||
				cs[j].StartLine >= s.c.StartLine && cs[j].EndLine <= s.c.EndLine {
				continue
			}
			n := r.get(cs[j].ID)
			if n == nil {
				continue
			}
			if x := s.score / 2 * w; x > n.score {
				n.channels[ChanNeighbor] += x - n.score
				n.score = x
			}
		}
	}
	return nil
}
