package assemble

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxls/ctxls/internal/ranges"
	"github.com/ctxls/ctxls/internal/tokens"
)

// assembly is the state of one Assemble call.
type assembly struct {
	ctx     context.Context
	req     Request
	r       renderer
	counter tokens.Counter
	memo    map[string]int
	files   fileCache
	stats   Stats

	emptyCost  map[string]int
	invalid    []Omitted // candidates rejected before they became cands
	omitOrder  []*cand
	omitReason map[*cand]string
	omitTokens map[*cand]int
	dupOf      map[*cand]*cand
}

// Assemble packs candidates into a context of at most req.Budget.MaxTokens
// tokens of counter's encoding, rendered in req.Format.
//
// The result depends only on the request, the set of candidates (not their
// order), the files' texts and the encoding. Bad parameters give a
// *ParamError; a context cancelled mid-way gives its error. Candidates that
// are unusable (NaN score, missing file, empty range) are listed in
// Result.Omitted with the reason, never an error.
func Assemble(ctx context.Context, req Request, candidates []Candidate, files Files, counter tokens.Counter) (*Result, error) {
	return assembleWith(ctx, req, candidates, files, counter, nil)
}

// AssembleChecked is Assemble for a request checked before (Request.Check):
// its parameters are not checked again. A Checked that Check did not make
// is refused.
func AssembleChecked(ctx context.Context, req Checked, candidates []Candidate, files Files, counter tokens.Counter) (*Result, error) {
	return assembleChecked(ctx, req, candidates, files, counter, nil)
}

// assembleWith is Assemble with a renderer chosen by the caller (tests);
// nil means the request's format.
func assembleWith(ctx context.Context, req Request, candidates []Candidate, files Files, counter tokens.Counter, r renderer) (*Result, error) {
	c, err := req.Check()
	if err != nil {
		return nil, err
	}
	return assembleChecked(ctx, c, candidates, files, counter, r)
}

// assembleChecked packs candidates for a checked request.
func assembleChecked(ctx context.Context, c Checked, candidates []Candidate, files Files, counter tokens.Counter, r renderer) (*Result, error) {
	if !c.ok {
		return nil, fmt.Errorf("assemble: the request was not checked (Request.Check)")
	}
	req := c.req
	if counter == nil {
		return nil, fmt.Errorf("assemble: no token counter")
	}
	if files == nil {
		files = MapFiles(nil)
	}
	if req.Policy.CoverMerge <= 0 || req.Policy.CoverMerge > 1 {
		req.Policy.CoverMerge = 1 // only full containment folds
	}
	a := &assembly{
		ctx: ctx, req: req, r: r, counter: counter,
		memo: make(map[string]int, 512), files: fileCache{src: files, files: map[string]*fileText{}},
		emptyCost: map[string]int{}, omitReason: map[*cand]string{}, omitTokens: map[*cand]int{},
		dupOf: map[*cand]*cand{},
	}
	if a.r == nil {
		a.r = rendererFor(req.Format)
	}
	a.stats = Stats{MaxTokens: req.Budget.MaxTokens, Candidates: len(candidates), Encoding: counter.Name()}

	frame := a.count(a.r.preamble()) + a.count(a.r.trailer())
	cs := a.prepare(candidates)                 // step 1
	cs = a.dedup(cs)                            // step 2
	p := a.pack(cs, req.Budget.MaxTokens-frame) // steps 3-5
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("assemble: %w", err)
	}
	parts := renderOrder(p.parts, req.Strategy)
	parts = a.joinAdjacent(parts)
	return a.finish(parts)
}

// count is the exact token count of s, memoized for this assembly.
func (a *assembly) count(s string) int {
	if s == "" {
		return 0
	}
	if n, ok := a.memo[s]; ok {
		return n
	}
	n := a.counter.Count(s)
	a.memo[s] = n
	return n
}

// emptyPartCost is the cost of a part of path with no text: the least any
// part of that file costs, and the price a stitched gap must undercut.
func (a *assembly) emptyPartCost(path string) int {
	if n, ok := a.emptyCost[path]; ok {
		return n
	}
	b := &block{num: 1, first: true, path: path, language: languageOf(path), ranges: []ranges.Range{{Start: 1, End: 1}}}
	n := a.count(a.r.header(b)) + a.count(a.r.body(b))
	a.emptyCost[path] = n
	return n
}

// omit records a candidate rejected before packing.
func (a *assembly) omit(c *cand, tokens int, reason string) {
	a.invalid = append(a.invalid, Omitted{Handle: c.handle, Path: c.Path, Ranges: c.Ranges, Symbol: c.Symbol,
		Tokens: tokens, Score: c.Score, Reason: reason, Sources: sortedUnique(c.Sources)})
}

// omitLater records that c is not (whole) in the context; the reason's text
// is resolved in finish, once part ids are known.
func (a *assembly) omitLater(c *cand, reason string) {
	if _, ok := a.omitReason[c]; !ok {
		a.omitOrder = append(a.omitOrder, c)
	}
	a.omitReason[c] = reason
}

// joinAdjacent merges consecutive parts of one file whose gap is small and
// cheaper than the header it saves (the cross-part half of stitching), when
// the merged part costs no more than the two and respects the caps.
func (a *assembly) joinAdjacent(parts []*draft) []*draft {
	if a.req.Policy.StitchGap < 0 || len(parts) < 2 {
		return parts
	}
	held := map[string][]ranges.Range{}
	for _, d := range parts {
		held[d.path()] = ranges.Union(held[d.path()], d.rs)
	}
	out := parts[:1:1]
	for _, d := range parts[1:] {
		prev := out[len(out)-1]
		if m := a.tryJoin(prev, d, held[d.path()]); m != nil {
			out[len(out)-1] = m
			continue
		}
		out = append(out, d)
	}
	return out
}

// tryJoin merges x and y, filling the gap between them unless another part
// holds some of its lines.
func (a *assembly) tryJoin(x, y *draft, held []ranges.Range) *draft {
	if x.path() != y.path() || x.level == LevelOutline || y.level == LevelOutline {
		return nil
	}
	if !slices.Equal(x.alsoIn, y.alsoIn) || x.alsoMore != y.alsoMore {
		return nil // a header naming copies speaks for all of its lines
	}
	if y.span.Start < x.span.Start {
		x, y = y, x
	}
	gap := ranges.Range{Start: x.span.End + 1, End: y.span.Start - 1}
	if gap.Lines() > a.req.Policy.StitchGap || y.span.Start <= x.span.End {
		return nil
	}
	var gapLines []ranges.Range
	if !gap.Empty() {
		if len(ranges.Intersect([]ranges.Range{gap}, held)) > 0 {
			return nil
		}
		if a.count(x.file.slice(gap.Start, gap.End)) >= a.emptyPartCost(x.path()) {
			return nil
		}
		gapLines = []ranges.Range{gap}
	}
	m := *x
	m.rs = ranges.Union(ranges.Union(x.rs, gapLines), y.rs)
	m.span = ranges.Range{Start: x.span.Start, End: y.span.End}
	m.shown = append(slices.Clone(x.shown), y.shown...)
	m.sources = sortedUnique(append(slices.Clone(x.sources), y.sources...))
	if y.score > x.score {
		m.score, m.symbol, m.kind, m.trackingHash = y.score, y.symbol, y.kind, y.trackingHash
	}
	if x.level != LevelFull || y.level != LevelFull {
		m.level = LevelTrimmed
	}
	if m.symbol != x.symbol || m.symbol != y.symbol {
		m.trackingHash = "" // the part is no longer one unit
	}
	a.renderDraft(&m)
	hx := a.count(a.r.header(x.block(1, true)))
	hy := a.count(a.r.header(y.block(2, false)))
	hm := a.count(a.r.header(m.block(1, true)))
	cost := hm + m.bodyTokens
	if cost > hx+x.bodyTokens+hy+y.bodyTokens {
		return nil
	}
	if b := a.req.Budget; b.PerPartMaxTokens > 0 && cost > b.PerPartMaxTokens {
		return nil
	}
	return &m
}

// finish (steps 6-8) numbers the parts, counts the rendered text exactly,
// drops the lowest-scored parts while it is over budget, and builds the
// Result.
func (a *assembly) finish(parts []*draft) (*Result, error) {
	max := a.req.Budget.MaxTokens
	var dropped []*draft
	frame := a.count(a.r.preamble()) + a.count(a.r.trailer())
	headers := make([]string, len(parts))
	total := 0
	layout := func() {
		total = frame
		for i, d := range parts {
			headers[i] = a.r.header(d.block(i+1, i == 0))
			total += a.count(headers[i]) + d.bodyTokens
		}
	}
	dropLowest := func() {
		i := lowestScored(parts)
		dropped = append(dropped, parts[i])
		parts = slices.Delete(parts, i, i+1)
		headers = headers[:len(parts)]
	}
	layout()
	for total > max && len(parts) > 0 {
		dropLowest()
		layout()
	}
	rendered := a.renderAll(parts, headers)
	// The segment sum is exact when the tokenizer splits between segments;
	// verify on the whole text and fall back to whole-text counting if not.
	exact := a.counter.Count(rendered)
	for exact > max {
		if len(parts) == 0 {
			rendered, exact = "", 0
			break
		}
		dropLowest()
		layout()
		rendered = a.renderAll(parts, headers)
		exact = a.counter.Count(rendered)
	}
	for _, d := range dropped {
		for _, c := range d.shown {
			if a.omitTokens[c] == 0 {
				a.omitTokens[c] = d.bodyTokens
			}
			a.omitLater(c, ReasonExactRecount)
		}
	}
	return a.result(parts, rendered, exact), nil
}

func lowestScored(parts []*draft) int {
	lo := len(parts) - 1
	for i := len(parts) - 2; i >= 0; i-- {
		if parts[i].score < parts[lo].score {
			lo = i
		}
	}
	return lo
}

func (a *assembly) renderAll(parts []*draft, headers []string) string {
	if len(parts) == 0 {
		frame := a.r.preamble() + a.r.trailer()
		if a.count(frame) <= a.req.Budget.MaxTokens {
			return frame
		}
		return ""
	}
	n := len(a.r.preamble()) + len(a.r.trailer())
	for i, d := range parts {
		n += len(headers[i]) + len(d.body)
	}
	var sb strings.Builder
	sb.Grow(n)
	sb.WriteString(a.r.preamble())
	for i, d := range parts {
		sb.WriteString(headers[i])
		sb.WriteString(d.body)
	}
	sb.WriteString(a.r.trailer())
	return sb.String()
}

// result builds the Result and resolves omission reasons.
func (a *assembly) result(parts []*draft, rendered string, total int) *Result {
	res := &Result{Parts: make([]Part, 0, len(parts)), Rendered: rendered, Stats: a.stats, Omitted: []Omitted{}}
	res.Stats.TotalTokens = total
	partOf := map[*cand]string{}
	files := map[string]bool{}
	for i, d := range parts {
		id := "p" + strconv.Itoa(i+1)
		handles := make([]string, 0, len(d.shown))
		for _, c := range d.shown {
			partOf[c] = id
			handles = append(handles, c.handle)
		}
		slices.Sort(handles)
		p := Part{
			ID: id, Path: d.path(), Language: d.lang, Ranges: d.rs,
			Kind: d.kind, Level: d.level, Symbol: d.symbol, Text: d.text,
			Tokens: a.count(a.r.header(d.block(i+1, i == 0))) + d.bodyTokens,
			Score:  d.score, Sources: d.sources, TrackingHash: d.trackingHash,
			Truncated: d.level != LevelFull, Handles: slices.Compact(handles),
			AlsoIn: slices.Clone(d.alsoIn), AlsoInMore: d.alsoMore,
		}
		if p.Kind == "" {
			p.Kind = "code"
		}
		if p.Sources == nil {
			p.Sources = []string{}
		}
		if p.Truncated {
			res.Stats.TruncatedParts++
		}
		files[d.path()] = true
		res.Parts = append(res.Parts, p)
	}
	res.Stats.Parts = len(res.Parts)
	res.Stats.Files = len(files)

	// Best first: what the budget and the packing left out (which a
	// reader may expand), by priority, then what was rejected or withheld
	// before packing, best score first.
	om := slices.Clone(a.omitOrder)
	slices.SortFunc(om, comparePriority)
	for _, c := range om {
		reason := a.omitReason[c]
		tokens := a.omitTokens[c]
		switch reason {
		case ReasonDuplicate:
			k := a.dupOf[c]
			for a.dupOf[k] != nil {
				k = a.dupOf[k]
			}
			if id, ok := partOf[k]; ok {
				reason = "duplicate of " + id
			} else {
				reason = "duplicate of " + k.handle
				if r, ok := a.omitReason[k]; ok {
					reason += " (" + r + ")"
				}
			}
		case ReasonReduced:
			id, ok := partOf[c]
			if !ok { // reduced into a part that was then dropped
				reason = ReasonExactRecount
				break
			}
			reason = "reduced: " + id + " shows part of it"
		default:
			res.Stats.DroppedParts++
		}
		res.Omitted = append(res.Omitted, Omitted{Handle: c.handle, Path: c.Path, Ranges: c.Ranges, Symbol: c.Symbol,
			Tokens: tokens, Score: c.Score, Reason: reason, Sources: c.Sources})
	}
	invalid := slices.Clone(a.invalid)
	slices.SortFunc(invalid, compareOmitted)
	res.Omitted = append(res.Omitted, invalid...)
	if len(res.Parts) == 0 && len(om)+len(a.invalid) > 0 {
		res.Stats.Note = a.emptyNote(om)
	}
	return res
}

func (a *assembly) emptyNote(om []*cand) string {
	if len(om) == 0 {
		return "no usable candidate: see omitted"
	}
	least := 0
	for _, c := range om {
		if n := a.emptyPartCost(c.Path); least == 0 || n < least {
			least = n
		}
	}
	if a.req.Budget.MaxTokens < least+1 {
		return fmt.Sprintf("budget of %d tokens is smaller than the smallest part (%d tokens of header and fences alone)", a.req.Budget.MaxTokens, least+1)
	}
	return "no candidate fits the budget: see omitted"
}

// compareOmitted totally orders omitted records of candidates rejected or
// withheld before packing: best score first.
func compareOmitted(x, y Omitted) int {
	return cmp.Or(
		cmp.Compare(y.Score, x.Score),
		strings.Compare(x.Handle, y.Handle),
		strings.Compare(x.Reason, y.Reason),
		strings.Compare(x.Symbol, y.Symbol),
		slices.CompareFunc(x.Ranges, y.Ranges, ranges.Compare),
		slices.Compare(x.Sources, y.Sources),
	)
}
