package retrieve

import (
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/index/chunk"
	"github.com/ctxls/ctxls/internal/ranges"
)

// cursorReserve names the budget reserve of the unit under the cursor;
// changedReserve that of the units a diff changes.
const (
	cursorReserve  = "cursor"
	changedReserve = "changed"
)

// cursorBudget is how much of a budget the unit under the cursor may take
// before anything else: share of it (Options.CursorShare), at least 250
// tokens (all of a smaller budget). A longer unit is trimmed around the
// cursor to fit.
func cursorBudget(maxTokens int, share float64) int {
	return min(maxTokens, max(250, int(float64(maxTokens)*share)))
}

// changedUnit is a unit a diff changes and its changed lines.
type changedUnit struct {
	s     *scored
	lines []int
	// lead: the unit has a reserve and leads the context (under review,
	// and in the related mode from Options.DiffChangedFrom); otherwise it
	// is ranked like any other candidate.
	lead bool
}

// changedUnits are the units the diff changes that the request allows, by
// their ids; they lead with a reserve of their own
// (Options.DiffChangedShare) under review and in the related mode from
// Options.DiffChangedFrom. A unit whose changed lines all lie in smaller
// changed units (a class around a changed method) is left to them.
func (r *run) changedUnits() []changedUnit {
	if len(r.diffChanged) == 0 {
		return nil
	}
	lead := r.e.opts.DiffChangedShare > 0 && (r.req.Mode == ModeReview || r.req.Budget.MaxTokens >= r.e.opts.DiffChangedFrom)
	if !lead && r.req.Mode == ModeReview {
		return nil
	}
	var all []changedUnit
	for _, id := range slices.Sorted(maps.Keys(r.diffChanged)) {
		if s := r.get(id); s != nil {
			all = append(all, changedUnit{s, r.diffChanged[id], lead})
		}
	}
	// inner: line l of u lies in a smaller changed unit inside u.
	inner := func(u changedUnit, l int) bool {
		return slices.ContainsFunc(all, func(o changedUnit) bool {
			oc, c := o.s.c, u.s.c
			return o.s != u.s && oc.Path == c.Path && oc.EndLine-oc.StartLine < c.EndLine-c.StartLine &&
				c.StartLine <= oc.StartLine && oc.EndLine <= c.EndLine && oc.StartLine <= l && l <= oc.EndLine
		})
	}
	var out []changedUnit
	for _, u := range all {
		if slices.ContainsFunc(u.lines, func(l int) bool { return !inner(u, l) }) {
			out = append(out, u)
		}
	}
	return out
}

// changedBudget is how much of a budget the units a diff changes may take
// before anything else: share of it from fullFrom tokens, a share that
// shrinks in proportion to the budget below, but at least
// changedFloor tokens (half of a smaller budget) — room for the changed
// lines themselves.
func changedBudget(maxTokens int, share float64, fullFrom int) int {
	if share <= 0 {
		return 0
	}
	if fullFrom > 0 && maxTokens < fullFrom {
		share *= float64(maxTokens) / float64(fullFrom)
	}
	return max(int(math.Round(float64(maxTokens)*share)), min(changedFloor, maxTokens/2))
}

// signpostRanges are the lines of a changed unit's signpost: its
// declaration (sig, or its first line when it has none) and lines (its
// changed lines, the lines around them, its declarations they use).
func signpostRanges(sig ranges.Range, start int, lines []int) []ranges.Range {
	head := sig
	if head.Start <= 0 {
		head = ranges.Range{Start: start, End: start}
	}
	rs := []ranges.Range{head}
	end := head.End
	for _, l := range lines {
		rs = append(rs, ranges.Range{Start: l, End: l})
		end = max(end, l)
	}
	return ranges.Normalize(rs, end)
}

// localDecls are the lines of a changed unit c, outside its changed
// lines, that declare a name its changed lines use (a field of the
// changed type, a local variable, a parameter): a signpost shows them
// beside the changed lines, at most maxSignpostDecls.
func (r *run) localDecls(c chunk.Chunk, changed []int) []int {
	text := r.chunkText(c)
	all := strings.Split(text, "\n")
	var lines []string
	for _, l := range changed {
		if i := l - c.StartLine; i >= 0 && i < len(all) {
			lines = append(lines, all[i])
		}
	}
	names := namesOfLines(lines)
	var out []int
	for _, l := range linesDeclaring(text, c.StartLine, names.order) {
		if !slices.Contains(changed, l) && declares(all[l-c.StartLine]) {
			out = append(out, l)
		}
		if len(out) == maxSignpostDecls {
			break
		}
	}
	return out
}

// declares reports whether a line (one linesDeclaring found naming a
// name) declares it rather than assigning to it: a name, or a list of
// names, then ":=", "=" or a type ("name T", "name: T"), not "+=" or a
// call.
func declares(line string) bool {
	t := strings.TrimSpace(line)
	for t != "" {
		j := 0
		for j < len(t) && isIdentByte(t[j]) {
			j++
		}
		if j == 0 {
			return false
		}
		rest := strings.TrimLeft(t[j:], " \t")
		switch {
		case strings.HasPrefix(rest, ","):
			t = strings.TrimLeft(rest[1:], " \t")
			continue
		case strings.HasPrefix(rest, ":="), strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "=="):
			return true
		case strings.HasPrefix(rest, ":"):
			return true
		case rest != "" && (isIdentStart(rest[0]) || rest[0] == '*' || rest[0] == '['):
			return true
		}
		return false
	}
	return false
}

// maxSignpostDecls bounds the declarations a changed unit's signpost
// shows beside its changed lines.
const maxSignpostDecls = 8

// changedFloor is the least reserve of the units a diff changes.
const changedFloor = 120

// cursorContext is how many lines around the cursor a trimmed unit keeps
// as its hits.
const cursorContext = 3

// candidates turns the best fused chunks into assembler candidates.
func (r *run) candidates() []assemble.Candidate {
	top := r.ranked()
	if len(top) > r.e.opts.MaxCandidates {
		top = top[:r.e.opts.MaxCandidates]
		if f := r.scores[r.focusChunk]; f != nil && !slices.Contains(top, f) {
			top = append(top, f)
		}
	}
	changed := map[*scored][]int{}
	var signposts map[*scored][]int
	for _, u := range r.changedUnits() {
		if !u.lead {
			// Ranked like any other candidate, trimmed around its
			// changed lines (a signpost from Options.DiffSignpostFrom).
			if signposts == nil {
				signposts = map[*scored][]int{}
			}
			signposts[u.s] = u.lines
			continue
		}
		changed[u.s] = u.lines
		if !slices.Contains(top, u.s) {
			top = append(top, u.s)
		}
	}
	maxScore := 0.0
	if len(top) > 0 {
		maxScore = top[0].score
	}
	reach := r.reviewReach(changed)
	reached := make(map[*scored]bool, len(reach))
	for _, s := range reach {
		reached[s] = true
		if !slices.Contains(top, s) {
			top = append(top, s)
		}
	}
	r.hits.reset(hitTerms(r.q))
	out := make([]assemble.Candidate, 0, len(top))
	for _, s := range top {
		c := s.c
		sources := make([]string, 0, len(s.channels))
		for name := range s.channels {
			sources = append(sources, name)
		}
		slices.Sort(sources)
		cand := assemble.Candidate{
			ID: string(s.id), Path: c.Path, Ranges: []ranges.Range{{Start: c.StartLine, End: c.EndLine}},
			Score: s.score / maxScore, Sources: sources, Kind: kindOf(c), Language: c.Language,
			Symbol: symbolOf(c), TrackingHash: c.TrackingHash,
		}
		sigStart := sigStartOf(c)
		if c.DocStartLine > 0 && c.DocStartLine < sigStart {
			cand.Doc = ranges.Range{Start: c.DocStartLine, End: sigStart - 1}
		}
		if c.SigEndLine >= sigStart {
			cand.Signature = ranges.Range{Start: sigStart, End: c.SigEndLine}
		}
		if n, ok := r.snap.TokenCount(s.id, r.req.Encoding); ok {
			cand.Tokens = n
		}
		if len(out) < maxHitCandidates {
			cand.Hits = r.hitLines(s)
		}
		var refs []int
		if names := r.callSites[s.id]; len(names) > 0 {
			refs = linesNaming(r.chunkText(c), c.StartLine, names)
		}
		refs = append(refs, r.fieldLines[s.id]...)
		if len(refs) > 0 {
			// A caller of changed code is shown at its calls first, a
			// type at the fields the change uses.
			cand.Hits = slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(refs[:min(len(refs), maxHitLines)]), cand.Hits...))))
			if len(cand.Hits) > maxHitLines {
				cand.Hits = cand.Hits[:maxHitLines]
			}
		}
		if reached[s] {
			// Under review, what the change reaches is all there is
			// beside the changed units, in the order of its own scores
			// (the least sure last), shown at its calls and declarations.
			tier := reviewTier
			if r.req.Mode != ModeReview {
				tier = r.e.opts.RelatedReach
			}
			switch {
			case r.req.Mode == ModeReview && r.testReach[s.id]:
				// Reached only from the tests' changed lines (a
				// framework's helpers): after the change's own units.
				cand.Score *= reviewTier * reviewTier
			case r.ambiguousCallers[s.id] || (r.usedOnValue[s.id] && len(r.callSites[s.id]) == 0):
				// A caller of another unit of that name, or another
				// type's method of that name, maybe: after the sure ones.
				if r.req.Mode == ModeReview {
					cand.Score *= tier
				}
			default:
				cand.Score = tier + (1-tier)*cand.Score
			}
			r.reviewShape(s, &cand, refs)
		} else if r.req.Mode == ModeReview {
			if _, ok := r.diffChanged[s.id]; ok {
				// The change's own units (tests too): those its reserve
				// cannot hold come before what only its tests reach.
				cand.Score = reviewTier * (reviewTier + (1-reviewTier)*cand.Score)
			} else if cand.Score *= reviewTier; s.id != r.focusChunk {
				// Neither what the diff changes (a changed unit, or one
				// around changed units) nor the cursor's own unit.
				cand.Withheld = reasonNotReached
			}
		}
		if lines, ok := changed[s]; ok {
			// A changed unit: paid for first, whole when its reserve
			// allows, else around its changed lines; one its reserve
			// cannot hold competes at its own score.
			cand.Reserve, cand.Lead, cand.Hits = changedReserve, true, lines
		}
		if lines, ok := signposts[s]; ok {
			cand.Hits = lines
		}
		if lines, ok := changed[s]; (ok || signposts[s] != nil) && r.req.Mode != ModeReview && r.req.Budget.MaxTokens >= r.e.opts.DiffSignpostFrom {
			if !ok {
				lines = signposts[s]
			}
			if n := r.e.opts.DiffSignpostContext; n > 0 {
				var around []int
				for _, l := range lines {
					for k := max(c.StartLine, l-n); k <= min(c.EndLine, l+n); k++ {
						around = append(around, k)
					}
				}
				lines = around
			}
			// In the related mode the change is the request, which the
			// asker has: a signpost of the unit (its signature and
			// changed lines) is enough, and the budget goes to what else
			// changes with it.
			cand.Ranges = signpostRanges(cand.Signature, c.StartLine, slices.Concat(lines, r.localDecls(c, lines)))
			cand.Doc, cand.TrackingHash, cand.Tokens = ranges.Range{}, "", 0
		}
		if !reached[s] && r.cutsLong(s, cand) {
			// Far over its share: its declaration and the lines that
			// matched, with a few lines around each.
			keep := []ranges.Range{{Start: sigStartOf(c), End: max(sigStartOf(c), c.SigEndLine)}}
			for _, h := range cand.Hits {
				keep = append(keep, ranges.Range{Start: max(c.StartLine, h-cutContext), End: min(c.EndLine, h+cutContext)})
			}
			cand.Ranges = ranges.Union(nil, keep)
			cand.Doc, cand.TrackingHash, cand.Tokens = ranges.Range{}, "", 0
			r.shaped = true
		}
		if s.id == r.focusChunk {
			// The cursor's lines, not the unit's doc comment, are what a
			// trimmed cursor part must keep.
			cand.Doc = ranges.Range{}
			cand.Reserve = cursorReserve
			for l := max(c.StartLine, r.req.Focus.Line-cursorContext); l <= min(c.EndLine, r.req.Focus.Line+cursorContext); l++ {
				cand.Hits = append(cand.Hits, l)
			}
			slices.Sort(cand.Hits)
			cand.Hits = slices.Compact(cand.Hits)
		}
		if _, ok := r.focusDefs[s.id]; ok && r.req.Budget.MaxTokens < r.e.opts.FocusSkeletonBelow && cand.Signature.Start > 0 {
			// Compact first: the definition's doc and signature at its
			// score, its body after, as a lower candidate of its own.
			body := cand
			body.ID += "#body"
			body.Score *= focusBodyFactor
			body.TrackingHash = ""
			skel := ranges.Range{Start: cand.Signature.Start, End: cand.Signature.End}
			if cand.Doc.Start > 0 {
				skel.Start = cand.Doc.Start
			}
			cand.Ranges = []ranges.Range{skel}
			cand.TrackingHash = ""
			cand.Hits = nil
			if r.candHandles == nil {
				r.candHandles = map[string]*scored{}
			}
			r.candHandles[assemble.Handle(cand.Path, cand.Ranges)] = s
			out = append(out, cand, body)
			continue
		}
		out = append(out, cand)
	}
	if r.req.Budget.MaxTokens < r.e.opts.FocusMapBelow && r.req.Mode != ModeReview {
		out = append(out, r.focusMaps(maxScore)...)
	}
	if r.wantsQueryMaps() {
		out = append(out, r.queryMaps(top, maxScore)...)
	}
	if f := r.req.Focus; f != nil && r.focusChunk == "" {
		// No unit encloses the cursor (a blank line between units, a
		// module's top level): the lines around it are the cursor's part.
		if text, ok := r.files().Text(f.Path); ok {
			n := strings.Count(text, "\n") + 1
			lo, hi := max(1, f.Line-cursorWindow), min(n, f.Line+cursorWindow)
			if lo <= hi {
				cand := assemble.Candidate{ID: "cursor:" + f.Path, Path: f.Path, Ranges: []ranges.Range{{Start: lo, End: hi}},
					Score: 1, Sources: []string{ChanFocus}, Kind: "code", Reserve: cursorReserve}
				for l := max(lo, f.Line-cursorContext); l <= min(hi, f.Line+cursorContext); l++ {
					cand.Hits = append(cand.Hits, l)
				}
				out = append(out, cand)
			}
		}
	}
	return out
}

// cutsLong reports whether cand, of s, is a unit to cut to its matched
// lines (Options.CutShare): a question's or the related mode's
// candidate with hit lines, longer than its share of the budget, that is
// not a unit the diff changes (a signpost already) nor one it reaches
// (shaped as under review).
func (r *run) cutsLong(s *scored, cand assemble.Candidate) bool {
	share := r.e.opts.CutShare
	if share <= 0 || r.req.Mode == ModeReview || r.req.Focus != nil || len(cand.Hits) == 0 || cand.Tokens == 0 {
		return false
	}
	if _, ok := r.diffChanged[s.id]; ok {
		return false
	}
	return float64(cand.Tokens) > share*float64(r.req.Budget.MaxTokens)
}

// cutContext is how many lines around each matched line a cut unit
// keeps (Options.CutShare).
const cutContext = 3

// wantsQueryMaps: the next-best maps are for budgets under
// Options.QueryMapBelow, for a cursor request from Options.FocusBreadthFrom.
func (r *run) wantsQueryMaps() bool {
	o, b := r.e.opts, r.req.Budget.MaxTokens
	if r.req.Mode == ModeReview {
		return false // a reviewer reads what the change reaches, not a list of files
	}
	if r.req.Focus != nil && (o.FocusBreadthFrom <= 0 || b < o.FocusBreadthFrom) {
		return false
	}
	return b < o.QueryMapBelow
}

// sigStartOf is the line where a unit's declaration starts: after its doc
// comment and after decorators or annotations (the chunk starts at
// those); its first line when it has no signature.
func sigStartOf(c chunk.Chunk) int {
	if c.Signature == "" {
		return c.StartLine
	}
	return max(c.StartLine, c.SigEndLine-strings.Count(strings.TrimRight(c.Signature, "\n"), "\n"))
}

// focusBodyFactor scales the score of a compact focus definition's body
// candidate.
const focusBodyFactor = 0.5

// cursorWindow is how many lines on each side of a cursor that no unit
// encloses make its part.
const cursorWindow = 10

func kindOf(c chunk.Chunk) string {
	switch c.Kind {
	case chunk.KindHeader:
		return "header"
	case chunk.KindSection:
		return "doc"
	case chunk.KindWindow:
		return "text"
	}
	if isSecondary(c.Path) {
		return "test"
	}
	return "code"
}

func symbolOf(c chunk.Chunk) string {
	if c.QualifiedName != "" {
		return c.QualifiedName
	}
	return c.Symbol
}

// maxHitCandidates is how many of the best candidates get hit lines (the
// lines a trimmed part keeps); lower ones are trimmed to their head.
const maxHitCandidates = 80
