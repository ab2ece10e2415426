package assemble

import (
	"github.com/ctxls/ctxls/internal/ranges"
)

// dedup (step 2) keeps one candidate per tracking hash and per (path,
// ranges), and folds a candidate whose lines are at least CoverMerge covered
// by one better-ranked candidate of the same file into it. Folding keeps the
// better candidate's score and merges sources; a covered candidate's extra
// lines are added to the keeper so nothing is lost. Overlap below the
// threshold is resolved later, when packing strips already admitted lines.
// Input and output are in priority order.
func (a *assembly) dedup(cs []*cand) []*cand {
	byHash := map[string]*cand{}
	byKey := map[string]*cand{}
	byPath := map[string][]*cand{}
	kept := cs[:0:0]
	for _, c := range cs {
		keeper := byKey[c.handle]
		if keeper == nil && c.TrackingHash != "" {
			keeper = byHash[c.TrackingHash]
		}
		if keeper == nil {
			keeper = a.coveringKeeper(byPath[c.Path], c)
		}
		if keeper != nil {
			a.fold(keeper, c)
			continue
		}
		kept = append(kept, c)
		byKey[c.handle] = c
		if c.TrackingHash != "" {
			byHash[c.TrackingHash] = c
		}
		byPath[c.Path] = append(byPath[c.Path], c)
	}
	for _, c := range kept {
		if len(c.alsoIn) > 0 {
			c.alsoIn = sortedUnique(c.alsoIn)
		}
	}
	return kept
}

// coveringKeeper returns the kept candidate of the same file that covers the
// largest share of c, if that share reaches the policy's threshold.
func (a *assembly) coveringKeeper(same []*cand, c *cand) *cand {
	if a.req.Policy.CoverMerge <= 0 || len(same) == 0 {
		return nil
	}
	total := ranges.Total(c.Ranges)
	var best *cand
	bestOverlap := 0
	for _, k := range same {
		if ov := ranges.Total(ranges.Intersect(k.Ranges, c.Ranges)); ov > bestOverlap {
			best, bestOverlap = k, ov
		}
	}
	if best == nil || float64(bestOverlap) < a.req.Policy.CoverMerge*float64(total) {
		return nil
	}
	return best
}

// fold merges duplicate d into keeper k and records d as omitted. A copy
// at another path (the same tracking hash) is remembered in k.alsoIn, so
// that k's part names where else its content is.
func (a *assembly) fold(k, d *cand) {
	k.Sources = sortedUnique(append(k.Sources, d.Sources...))
	for _, p := range append([]string{d.Path}, d.alsoIn...) {
		if p != k.Path {
			k.alsoIn = append(k.alsoIn, p)
		}
	}
	k.Score = max(k.Score, d.Score)
	if k.Path == d.Path {
		if u := ranges.Union(k.Ranges, d.Ranges); !ranges.Equal(u, k.Ranges) {
			k.Ranges, k.Tokens = u, 0
			k.rate = max(k.rate, d.rate)
		}
		k.Hits = sortedUniqueInts(append(k.Hits, d.Hits...))
	}
	k.merged += d.merged
	a.stats.DedupRemoved++
	a.dupOf[d] = k
	a.omitLater(d, ReasonDuplicate)
}
