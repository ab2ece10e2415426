package retrieve

import (
	"cmp"
	"slices"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/index/chunk"
)

// FocusOptions are the focus channel's knobs: what it reads around the
// cursor, and how a cursor request's budget is shaped (its reserve,
// skeletons and maps).
type FocusOptions struct {
	// FocusNearest ranks, in the focus channel, the definitions of the
	// identifiers nearest the cursor first (docs/quality.md, cursor task).
	FocusNearest bool
	// FocusSkeletonBelow: under budgets smaller than this, a definition
	// the focus channel brought is offered as its doc and signature first,
	// its body as a second, lower candidate (0: never).
	FocusSkeletonBelow int
	// FocusMapBelow: under budgets smaller than this, the files of the
	// best definitions around the cursor are offered as compact maps of
	// their declarations (0: never).
	FocusMapBelow int
	// FocusMapFiles and FocusMapLines bound the maps: files mapped,
	// declarations per file for each 2 000 tokens of budget; FocusMapScore is a map's score relative to
	// its file's best definition.
	FocusMapFiles, FocusMapLines int
	FocusMapScore                float64
	// FocusImportMap: the files the focus file imports that no name near
	// the cursor leads to are mapped too, at this share of the best
	// mapped file's score (0: not).
	FocusImportMap float64
	// FocusHop: the definitions that the best focus definitions refer to
	// (got = create(defaults) leads to create) are offered too, at this
	// share of the referring definition's weight (0: not).
	FocusHop float64
	// FocusBreadthFrom: a cursor request of at least this many tokens
	// gets the same next-best maps beyond its focus maps (0: never).
	FocusBreadthFrom int
	// FocusAbove and FocusBelow are how many lines above and below the
	// cursor (beyond its enclosing unit) the focus channel reads names
	// from; the defaults read the whole file (the farther a name, the
	// less it weighs, but a file's frequent names tell where it lives).
	FocusAbove, FocusBelow int
	// CursorShare is the share of the budget the unit under the cursor
	// may take before anything else.
	CursorShare float64
}

// focusState is the focus channel's per-request state.
type focusState struct {
	// focusChunk seeds the graph channel with the request's own code.
	focusChunk index.ChunkID
	// focusDefs are the definitions the focus channel found near the
	// cursor, with why (for --explain).
	focusDefs map[index.ChunkID]string
	// focusPrefix is the identifier typed at the cursor, if any.
	focusPrefix string
	// focusImports are the focus file's imports (for the maps of the
	// files they name, Options.FocusImportMap).
	focusImports imports
}

// focus is the chunk around the cursor, its file's header, and the
// definitions the next line is likely to need: those of the identifiers
// nearest the cursor first (the enclosing unit's, then the lines around
// it), in other files before the focus file's own; then what the
// enclosing unit uses.
func (r *run) focus() ([]index.ChunkID, error) {
	f := r.req.Focus
	cs := r.files().ChunksOf(f.Path)
	var enclosing, header index.ChunkID
	var encl chunk.Chunk
	bestSpan := -1
	for _, c := range cs {
		if c.Kind == chunk.KindHeader {
			if header == "" {
				header = c.ID
			}
			continue
		}
		if c.StartLine <= f.Line && f.Line <= c.EndLine {
			if span := c.EndLine - c.StartLine; bestSpan < 0 || span < bestSpan {
				enclosing, bestSpan, encl = c.ID, span, c.Chunk
			}
		}
	}
	var ids []index.ChunkID
	seen := map[index.ChunkID]bool{}
	add := func(id index.ChunkID) {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	if enclosing != "" {
		add(enclosing)
		r.focusChunk = enclosing
	}
	if header != "" {
		add(header)
	}
	if r.e.opts.FocusNearest {
		r.focusDefs = map[index.ChunkID]string{}
		for _, d := range r.rankFocusDefs(encl) {
			if !seen[d.id] {
				add(d.id)
				r.focusDefs[d.id] = d.why
			}
		}
	}
	if enclosing != "" {
		for _, d := range r.snap.Uses(enclosing, 5) {
			add(d)
		}
	}
	return ids, nil
}

// focusMaxNames bounds the names whose definitions the focus channel
// looks up: the best by weight (a long file has thousands).
const focusMaxNames = 200

// nearName is an identifier near the cursor and why it is there.
type nearName struct {
	name string
	dist int
	line int
	why  string
	// dotted: the name is written after a '.' somewhere (x.name,
	// pkg.Name), so it may name a method or another package's definition
	// (refers).
	dotted bool
	// score sums the occurrences of the name, each weighted by its
	// nearness to the cursor: a name used on several of the lines just
	// above is what the next line most likely needs.
	score float64
}

// nearLines are the lines of the focus file whose names nearestNames
// reads: the enclosing unit and Options.FocusAbove and FocusBelow lines
// around the cursor.
func (r *run) nearLines(encl chunk.Chunk) (lo, hi int) {
	f := r.req.Focus
	lo, hi = f.Line-r.e.opts.FocusAbove, f.Line+r.e.opts.FocusBelow
	if encl.EndLine > 0 {
		lo, hi = min(lo, encl.StartLine), max(hi, encl.EndLine)
	}
	return max(lo, 1), hi
}

// nearestNames lists the identifiers of the focus file's text around the
// cursor, each once, weightiest first (ties: nearest first, lines above
// the cursor before lines below at the same distance), at most
// focusMaxNames.
func (r *run) nearestNames(encl chunk.Chunk, text string) []nearName {
	f := r.req.Focus
	if text == "" {
		return nil
	}
	lo, hi := r.nearLines(encl)
	// Line starts up to the end of line hi; identifiers come from the
	// lexer (comments and string literals left out: the words of a test's
	// description are no names the next line needs).
	starts := []int{0}
	endOff := len(text)
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			if len(starts) == hi {
				endOff = i
				break
			}
			starts = append(starts, i+1)
		}
	}
	best := map[string]nearName{}
	var order []string
	for _, id := range chunk.Identifiers(f.Path, []byte(text), endOff) {
		if len(id.Name) < 3 {
			continue
		}
		line, _ := slices.BinarySearch(starts, id.Offset+1) // starts[line-1] <= Offset
		if line < lo {
			continue
		}
		dist := 2 * (f.Line - line)
		if line >= f.Line {
			dist = 2*(line-f.Line) + 1
		}
		inside := encl.EndLine > 0 && encl.StartLine <= line && line <= encl.EndLine
		if !inside {
			dist += 1000
		}
		w := 1 / (1 + float64(abs(line-f.Line))/8)
		if line > f.Line {
			w /= 2
		}
		if !inside {
			w *= 0.3
		}
		old, ok := best[id.Name]
		if !ok {
			order = append(order, id.Name)
		}
		if j := id.Offset - 1; j >= 0 && text[j] == '.' {
			old.dotted = true
		}
		old.score += w
		if !ok || dist < old.dist {
			why := "used near the cursor"
			if !inside {
				why = "used in the lines around"
			}
			old.name, old.dist, old.line, old.why = id.Name, dist, line, why
		}
		best[id.Name] = old
	}
	out := make([]nearName, 0, len(order))
	for _, id := range order {
		out = append(out, best[id])
	}
	slices.SortStableFunc(out, func(a, b nearName) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.dist, b.dist)) })
	if len(out) > focusMaxNames {
		out = out[:focusMaxNames]
	}
	return out
}
