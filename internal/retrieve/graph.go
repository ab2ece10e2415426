package retrieve

import (
	"cmp"
	"slices"

	"github.com/ctxls/ctxls/internal/index"
)

// graph is a one-step personalized PageRank over the reference graph,
// seeded by the best candidates so far: code that the seeds use, or that
// uses them, gains score in proportion to the seeds' scores.
func (r *run) graph() ([]index.ChunkID, error) {
	seeds := r.ranked()
	if len(seeds) > 10 {
		seeds = seeds[:10]
	}
	if r.focusChunk != "" {
		if s := r.scores[r.focusChunk]; s != nil && !slices.Contains(seeds, s) {
			seeds = append(seeds, s)
		}
	}
	acc := map[index.ChunkID]float64{}
	for _, s := range seeds {
		uses := r.usesOf(s.id, s.c, 5)
		for _, d := range uses {
			acc[d] += s.score * 0.6 / float64(len(uses))
		}
		usedBy, _ := r.callersOf(s.c, false) // the review's looser lookup is for the changed units' own callers
		for _, u := range usedBy {
			acc[u] += s.score * 0.4 / float64(len(usedBy))
		}
	}
	type kv struct {
		id index.ChunkID
		v  float64
	}
	var all []kv
	for id, v := range acc {
		all = append(all, kv{id, v})
	}
	slices.SortFunc(all, func(a, b kv) int { return cmp.Or(cmp.Compare(b.v, a.v), cmp.Compare(a.id, b.id)) })
	return topIDs(all, 50, func(x kv) index.ChunkID { return x.id }), nil
}

// topIDs returns the ids of the first n of a ranked list.
func topIDs[T any](ranked []T, n int, id func(T) index.ChunkID) []index.ChunkID {
	ids := make([]index.ChunkID, 0, min(n, len(ranked)))
	for _, x := range ranked[:min(n, len(ranked))] {
		ids = append(ids, id(x))
	}
	return ids
}
