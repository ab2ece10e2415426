package retrieve

import (
	"cmp"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/ranges"
)

// reasonNotReached is the omitted reason of the candidates a review
// leaves out: what the diff's words match, not what the change reaches.
const reasonNotReached = "not reached by the change (mode review)"

// reviewTier splits the scores of a review's candidates: what the change
// surely reaches above it; below it the reach that may be another unit's
// (ambiguousCallers, usedOnValue), the changed units (which lead anyway)
// and the withheld rest.
const reviewTier = 0.5

// reviewShape shows a unit the change reaches at what makes it reached:
// refs (its lines calling the changed units and declaring the fields
// they select, which candidates found already) and the declaration of
// the name the changed lines use (its hit lines). A unit
// longer than reviewPartShare of the budget shows only its declaration
// and those lines with reviewContext lines around each: a reviewer reads
// the call, not the whole caller, and a big interface whose one method
// the change calls leaves room for the next caller.
func (r *run) reviewShape(s *scored, cand *assemble.Candidate, refs []int) {
	hits := append(slices.Clone(refs), r.declLines(s)...)
	if len(hits) == 0 {
		return
	}
	hits = slices.Compact(slices.Sorted(slices.Values(hits)))
	if len(hits) > maxHitLines {
		hits = hits[:maxHitLines]
	}
	cand.Hits = hits
	if r.req.Explain {
		s.priors = append(s.priors, r.reachNote(s))
	}
	limit := int(reviewPartShare * float64(r.req.Budget.MaxTokens))
	if cand.Tokens <= limit || limit <= 0 {
		return
	}
	c := s.c
	keep := []ranges.Range{{Start: sigStartOf(c), End: max(sigStartOf(c), c.SigEndLine)}}
	for _, h := range hits {
		keep = append(keep, ranges.Range{Start: max(c.StartLine, h-reviewContext), End: min(c.EndLine, h+reviewContext)})
	}
	cand.Ranges = ranges.Union(nil, keep)
	cand.Tokens = 0 // counted by the assembler for these lines
	r.shaped = true
}

// reachNote says, for --explain, why the change reaches s.
func (r *run) reachNote(s *scored) string {
	var why []string
	if names := r.callSites[s.id]; len(names) > 0 {
		why = append(why, "calls "+strings.Join(names, ", "))
	}
	if name, ok := r.usedNames[s.id]; ok {
		why = append(why, "declares "+name+", which the changed lines use")
	}
	if len(r.fieldLines[s.id]) > 0 {
		why = append(why, "declares a field the changed lines select")
	}
	note := "reached by the change ("
	if r.ambiguousCallers[s.id] {
		note = "reached by the change through a name other units define too ("
	}
	if r.req.Mode == ModeReview {
		note = "under review: " + note
	}
	return note + strings.Join(why, "; ") + ")"
}

// reviewPartShare and reviewContext shape a long unit the change reaches
// (reviewShape).
const (
	reviewPartShare = 0.15
	reviewContext   = 3
)

// reviewReach are, under review (ModeReview) and in the related mode
// from Options.RelatedReachFrom, the units the change reaches (the diff channel's callers of the changed functions and the
// definitions its changed lines use, a type then carrying the fields they
// select) that are not changed units themselves nor tests, best first.
func (r *run) reviewReach(changed map[*scored][]int) []*scored {
	related := r.req.Mode != ModeReview
	if related && (r.e.opts.RelatedReach <= 0 || r.req.Budget.MaxTokens < r.e.opts.RelatedReachFrom) {
		return nil
	}
	var out []*scored
	for id := range r.diffReached {
		s := r.get(id)
		if s == nil || pathRole(s.c.Path) == roleTest {
			continue
		}
		if _, used := r.usedNames[id]; !used && len(r.callSites[id]) == 0 {
			// A type reached only by a field name the changed lines
			// select, which its own name is not: most often another
			// type's field of that name (measured: none of 21 was).
			continue
		}
		if _, ok := r.diffChanged[id]; ok && related {
			continue // the request itself, in the related mode
		}
		if _, ok := changed[s]; !ok {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b *scored) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.id, b.id)) })
	return out
}
