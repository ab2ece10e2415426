package assemble

import (
	"math"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/internal/ranges"
)

// draft is a part being packed.
type draft struct {
	file  *fileText
	lang  string
	rs    []ranges.Range // lines included
	span  ranges.Range   // lines the part stands for (elided ones included)
	level Level
	score float64
	// shown are the candidates this part shows, best first.
	shown        []*cand
	sources      []string
	symbol       string
	kind         string
	trackingHash string
	text         string
	body         string
	bodyTokens   int
	reserve      string
	lead         bool
	// alsoIn are the other paths with the part's content, at most
	// MaxAlsoIn; alsoMore counts the rest.
	alsoIn   []string
	alsoMore int
}

func (d *draft) path() string { return d.file.path }

// block describes d for a renderer at position num.
func (d *draft) block(num int, first bool) *block {
	return &block{num: num, first: first, path: d.file.path, language: d.lang, symbol: d.symbol,
		kind: d.kind, level: d.level, ranges: d.rs, text: d.text, alsoIn: d.alsoIn, alsoMore: d.alsoMore}
}

// packer holds the state of step 4 (budget) and 5 (detail levels).
type packer struct {
	a         *assembly
	remaining int                       // tokens left for parts
	perFile   map[string]int            // tokens used per path
	lines     map[string][]ranges.Range // lines admitted per path
	parts     []*draft
	decided   map[*cand]bool
	floor     int             // least cost of any part (see minFloor)
	floorSeen map[string]bool // paths whose floor is in floor
}

// draftFor builds the part that shows c's lines rs at a level.
func (a *assembly) draftFor(c *cand, o option, span ranges.Range) *draft {
	d := &draft{file: c.file, lang: c.Language, rs: o.rs, span: span, level: o.level, score: c.Score,
		shown: []*cand{c}, sources: c.Sources, symbol: c.Symbol, kind: c.Kind, trackingHash: c.TrackingHash, reserve: c.Reserve, lead: c.Lead}
	if o.level == LevelOutline {
		d.kind = "outline"
	} else if len(c.alsoIn) > 0 {
		d.alsoIn = c.alsoIn[:min(len(c.alsoIn), MaxAlsoIn)]
		d.alsoMore = len(c.alsoIn) - len(d.alsoIn)
	}
	a.renderDraft(d)
	return d
}

// renderDraft (re)computes d's text, body and body tokens from its lines.
func (a *assembly) renderDraft(d *draft) {
	d.text = partText(d.file, d.rs, d.span)
	d.body = a.r.body(d.block(0, true))
	d.bodyTokens = a.count(d.body)
}

// costAt is d's full block cost as the next part to be admitted.
func (p *packer) cost(d *draft) int {
	n := len(p.parts)
	return p.a.count(p.a.r.header(d.block(n+1, n == 0))) + d.bodyTokens
}

// check says why a part of the given cost cannot be admitted, or "".
func (p *packer) check(path string, cost, limit int) string {
	b := p.a.req.Budget
	switch {
	case b.PerPartMaxTokens > 0 && cost > b.PerPartMaxTokens:
		return ReasonOverPerPart
	case b.PerFileMaxTokens > 0 && p.perFile[path]+cost > b.PerFileMaxTokens:
		return ReasonOverPerFile
	case cost > limit:
		return ReasonOverBudget
	}
	return ""
}

func (p *packer) admit(d *draft, cost int) {
	p.parts = append(p.parts, d)
	p.remaining -= cost
	p.perFile[d.path()] += cost
	p.lines[d.path()] = ranges.Union(p.lines[d.path()], d.rs)
	for _, c := range d.shown {
		p.decided[c] = true
	}
}

// outcome of trying to admit a candidate.
type outcome struct {
	done     bool   // admitted (possibly reduced) or folded into a part
	reason   string // why the full candidate is not in, when !done or reduced
	fullCost int    // the candidate's full block cost (exact or estimated), 0 if unknown
}

// try admits c under limit (the tokens this phase may still use) at the
// richest level that fits. It records nothing on failure.
func (p *packer) try(c *cand, limit int) outcome {
	a := p.a
	rs := ranges.Subtract(c.Ranges, p.lines[c.Path])
	if covered := ranges.Total(c.Ranges) - ranges.Total(rs); len(rs) == 0 ||
		(covered > 0 && float64(covered) >= a.req.Policy.CoverMerge*float64(ranges.Total(c.Ranges))) {
		host := p.hostOf(c)
		host.sources = sortedUnique(append(slices.Clone(host.sources), c.Sources...))
		a.stats.DedupRemoved++
		a.dupOf[c] = host.shown[0]
		a.omitLater(c, ReasonDuplicate)
		p.decided[c] = true
		return outcome{done: true}
	}
	span := ranges.Span(rs)
	floor := a.emptyPartCost(c.Path)
	// A candidate the index counted can be ruled out without rendering it
	// when its estimated cost is clearly over.
	estimate := p.guess(c, rs)
	// The cheapest part is a header and a one-line body: below that, stop.
	if limit < floor+1 {
		if estimate == 0 {
			estimate = p.cost(a.draftFor(c, option{LevelFull, rs}, span))
		}
		return outcome{reason: ReasonOverBudget, fullCost: estimate}
	}
	fullCost, reason := estimate, ""
	if lb := estimate - estimate/8 - 2; estimate > 0 && p.check(c.Path, lb, limit) != "" {
		reason = p.check(c.Path, lb, limit)
	} else {
		full := a.draftFor(c, option{LevelFull, rs}, span)
		fullCost = p.cost(full)
		if reason = p.check(c.Path, fullCost, limit); reason == "" {
			p.admit(full, fullCost)
			return outcome{done: true, fullCost: fullCost}
		}
	}
	if fullCost == 0 {
		fullCost = p.cost(a.draftFor(c, option{LevelFull, rs}, span))
	}
	pol := a.req.Policy
	if !pol.Levels && reason != ReasonOverPerPart {
		return outcome{reason: reason, fullCost: fullCost}
	}
	total := ranges.Total(rs)
	rate := float64(fullCost-floor) / float64(total)
	// lowerBound is a generous lower bound of an option's cost: its header
	// and fences, half its lines at the full text's rate, and 5 tokens per
	// elision marker.
	lowerBound := func(o option) int {
		gaps := len(o.rs) - 1
		if o.rs[0].Start > span.Start {
			gaps++
		}
		if o.rs[len(o.rs)-1].End < span.End {
			gaps++
		}
		return floor + int(rate*float64(ranges.Total(o.rs))/2) + 5*gaps
	}
	// The cheapest option is a single declaration line: rule everything
	// out at once when even that cannot fit.
	sig := signatureOf(c, rs)
	if p.check(c.Path, lowerBound(option{rs: []ranges.Range{{Start: sig.Start, End: sig.Start}}}), limit) != "" {
		return outcome{reason: reason, fullCost: fullCost}
	}
	opts := reducedOptions(c, rs, pol.HitContext, pol.Levels)
	if len(opts) == 0 {
		return outcome{reason: reason, fullCost: fullCost}
	}
	// Every option holds the declaration line; the last (the reference, or
	// the skeleton) is the cheapest. If it does not fit, none does.
	if least := opts[len(opts)-1]; p.check(c.Path, lowerBound(least), limit) != "" {
		return outcome{reason: reason, fullCost: fullCost}
	} else if len(opts) > 1 && p.check(c.Path, p.cost(a.draftFor(c, least, span)), limit) != "" {
		return outcome{reason: reason, fullCost: fullCost}
	}
	for _, o := range opts {
		if p.check(c.Path, lowerBound(o), limit) != "" {
			continue
		}
		d := a.draftFor(c, o, span)
		cost := p.cost(d)
		if p.check(c.Path, cost, limit) == "" {
			p.admit(d, cost)
			a.omitLater(c, ReasonReduced)
			a.omitTokens[c] = fullCost
			return outcome{done: true, reason: reason, fullCost: fullCost}
		}
	}
	return outcome{reason: reason, fullCost: fullCost}
}

// hostOf is the admitted part holding most of c's lines.
func (p *packer) hostOf(c *cand) *draft {
	var best *draft
	bestOv := -1
	for _, d := range p.parts {
		if d.path() != c.Path {
			continue
		}
		if ov := ranges.Total(ranges.Intersect(d.rs, c.Ranges)); ov > bestOv {
			best, bestOv = d, ov
		}
	}
	return best
}

// admissionOrder is the order candidates are offered to the packer:
// priority order, or round-robin across files for Interleaved.
func admissionOrder(cs []*cand, s Strategy) []*cand {
	if s != Interleaved {
		return cs
	}
	var files []string
	byFile := map[string][]*cand{}
	for _, c := range cs { // cs is in priority order: files appear by best score
		if _, ok := byFile[c.Path]; !ok {
			files = append(files, c.Path)
		}
		byFile[c.Path] = append(byFile[c.Path], c)
	}
	out := make([]*cand, 0, len(cs))
	for round := 0; len(out) < len(cs); round++ {
		for _, f := range files {
			if q := byFile[f]; round < len(q) {
				out = append(out, q[round])
			}
		}
	}
	return out
}

// pack runs steps 4 and 5: reserves first, then everyone by admission order.
func (a *assembly) pack(cs []*cand, available int) *packer {
	p := &packer{a: a, remaining: available, perFile: map[string]int{}, lines: map[string][]ranges.Range{}, decided: map[*cand]bool{}}
	order := admissionOrder(cs, a.req.Strategy)
	for _, name := range sortedKeys(a.req.Budget.Reserves) {
		left := a.req.Budget.Reserves[name]
		for _, c := range order {
			if c.Reserve != name || p.decided[c] || a.ctx.Err() != nil {
				continue
			}
			before := p.remaining
			if o := p.try(c, min(left, p.remaining)); o.done {
				left -= before - p.remaining
			}
		}
	}
	for i, c := range order {
		if p.decided[c] {
			continue
		}
		if i%64 == 0 && a.ctx.Err() != nil {
			return p
		}
		if p.remaining < p.minFloor(order[i:])+1 {
			// Nothing more can fit: record the rest without rendering them.
			for _, c := range order[i:] {
				if !p.decided[c] {
					a.omitTokens[c] = p.estimate(c)
					a.omitLater(c, ReasonOverBudget)
					p.decided[c] = true
				}
			}
			break
		}
		if o := p.try(c, p.remaining); !o.done {
			a.omitTokens[c] = o.fullCost
			a.omitLater(c, o.reason)
			p.decided[c] = true
		}
	}
	if a.req.Policy.Outlines {
		p.outlines(order)
	}
	return p
}

// minFloor is the least any of cs could cost (memoized: the cost floor only
// falls as more paths are seen, and it is checked against a shrinking
// budget).
func (p *packer) minFloor(cs []*cand) int {
	if p.floorSeen == nil {
		p.floorSeen = map[string]bool{}
		p.floor = math.MaxInt
		for _, c := range cs {
			if !p.floorSeen[c.Path] {
				p.floorSeen[c.Path] = true
				p.floor = min(p.floor, p.a.emptyPartCost(c.Path))
			}
		}
	}
	return p.floor
}

// guess is the cost of showing c's lines rs in full, from the producer's
// token count (exact for the lines it counted, else by its per-line rate)
// plus the cheapest header: 0 when the producer gave no count.
func (p *packer) guess(c *cand, rs []ranges.Range) int {
	floor := p.a.emptyPartCost(c.Path)
	switch {
	case c.Tokens > 0 && ranges.Equal(rs, c.Ranges):
		return c.Tokens + floor
	case c.rate > 0:
		return floor + int(c.rate*float64(ranges.Total(rs)))
	}
	return 0
}

// estimate is c's full cost: the guess when there is one, else counted.
func (p *packer) estimate(c *cand) int {
	if g := p.guess(c, c.Ranges); g > 0 {
		return g
	}
	return p.cost(p.a.draftFor(c, option{LevelFull, c.Ranges}, ranges.Span(c.Ranges)))
}

// outlines (summary substitution) replaces each file's candidates
// that were left out for budget reasons by one part holding their
// declaration lines, when it fits.
func (p *packer) outlines(order []*cand) {
	a := p.a
	var files []string
	dropped := map[string][]*cand{}
	for _, c := range order {
		if r := a.omitReason[c]; r == ReasonOverBudget || r == ReasonOverPerFile || r == ReasonOverPerPart {
			if _, ok := dropped[c.Path]; !ok {
				files = append(files, c.Path)
			}
			dropped[c.Path] = append(dropped[c.Path], c)
		}
	}
	for _, path := range files {
		cs := dropped[path]
		var decl []ranges.Range
		for _, c := range cs {
			s := signatureOf(c, c.Ranges)
			decl = append(decl, ranges.Range{Start: s.Start, End: s.Start})
		}
		decl = ranges.Subtract(ranges.Normalize(decl, cs[0].file.lines), p.lines[path])
		if len(decl) == 0 {
			continue
		}
		d := a.draftFor(cs[0], option{LevelOutline, decl}, ranges.Span(decl))
		d.shown = cs
		d.score = cs[0].Score / 2
		d.symbol = ""
		var srcs []string
		for _, c := range cs {
			srcs = append(srcs, c.Sources...)
		}
		d.sources = sortedUnique(srcs)
		if cost := p.cost(d); p.check(path, cost, p.remaining) == "" {
			p.admit(d, cost)
			for _, c := range cs {
				a.omitLater(c, ReasonReduced)
			}
		}
	}
}

// renderOrder (step 3 and 6) orders the admitted parts for rendering.
func renderOrder(parts []*draft, s Strategy) []*draft {
	out := slices.Clone(parts)
	byScore := func(x, y *draft) int {
		if x.score != y.score {
			if x.score > y.score {
				return -1
			}
			return 1
		}
		if c := strings.Compare(x.path(), y.path()); c != 0 {
			return c
		}
		return ranges.Compare(x.rs[0], y.rs[0])
	}
	slices.SortFunc(out, byScore)
	if s == ByScore {
		return out
	}
	// Leading parts (Candidate.Lead) first; the rest of their files goes
	// where its own scores put it.
	lead := slices.DeleteFunc(slices.Clone(out), func(d *draft) bool { return !d.lead })
	rest := slices.DeleteFunc(out, func(d *draft) bool { return d.lead })
	var files []string
	byFile := map[string][]*draft{}
	for _, d := range rest {
		if _, ok := byFile[d.path()]; !ok {
			files = append(files, d.path())
		}
		byFile[d.path()] = append(byFile[d.path()], d)
	}
	out = lead
	if s == Interleaved {
		for round := 0; len(out) < len(parts); round++ {
			for _, f := range files {
				if q := byFile[f]; round < len(q) {
					out = append(out, q[round])
				}
			}
		}
		return out
	}
	for _, f := range files { // Grouped: files by best score, parts in line order
		q := byFile[f]
		slices.SortFunc(q, func(x, y *draft) int { return ranges.Compare(x.rs[0], y.rs[0]) })
		out = append(out, q...)
	}
	return out
}
