package retrieve

import (
	"cmp"
	"math"
	"path"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/index/chunk"
	"github.com/ctxls/ctxls/internal/ranges"
)

// QueryMapOptions are the next-best maps' knobs (queryMaps).
type QueryMapOptions struct {
	// QueryMapBelow: under budgets smaller than this, a question's or a
	// diff's next-best files are offered as compact maps (queryMaps):
	// QueryMapFiles files per 4 000 tokens (at least QueryMapFiles) beyond
	// those the ranking fills 1 − QueryMapShare of the budget with,
	// QueryMapLines declarations each, scored up to 1 + QueryMapScore
	// times the cut's score (0 files: never).
	QueryMapBelow, QueryMapFiles, QueryMapLines int
	QueryMapShare, QueryMapScore                float64
}

// focusDef is a definition the focus channel offers, with its weight and
// why it is there.
type focusDef struct {
	id    index.ChunkID
	score float64
	why   string
	order int // first seen: ties keep the names' order
}

// Factors of a definition's weight beside its name's nearness (tuned on
// the cursor task, docs/quality.md).
const (
	focusImported = 2.0 // in a file the focus file imports
	focusSameDir  = 1.5 // in the focus file's directory (its package)
	focusTested   = 1.5 // a file the focus file's path names (the file under test)
	focusOwnFile  = 0.4 // in the focus file itself: mostly on screen already
	focusMember   = 0.5 // a container listing the name among its members
	focusPrefix   = 4.0 // named with the prefix typed at the cursor
	focusNoPrefix = 0.5 // not named with it

	focusHopDefs = 8  // the best definitions whose own uses are followed (Options.FocusHop)
	focusHopRefs = 16 // names followed per definition
)

// typedPrefix is the identifier being typed at the cursor (cmd.Ha| gives
// "Ha"): the end of the cursor's line up to its column, if it ends in an
// identifier; with no column, the end of the line if it is a member
// access being typed.
func typedPrefix(text string, f *Focus) string {
	line := ""
	for i, l := 1, text; l != ""; i++ {
		cur, rest, _ := strings.Cut(l, "\n")
		if i == f.Line {
			line = strings.TrimRight(cur, "\r")
			break
		}
		l = rest
	}
	if f.Col > 0 && f.Col-1 <= len(line) {
		line = line[:f.Col-1]
	} else {
		line = strings.TrimRight(line, " \t")
	}
	i := len(line)
	for i > 0 && (line[i-1] == '_' || line[i-1] >= 'a' && line[i-1] <= 'z' || line[i-1] >= 'A' && line[i-1] <= 'Z' || line[i-1] >= '0' && line[i-1] <= '9') {
		i--
	}
	p := line[i:]
	if p == "" || p[0] >= '0' && p[0] <= '9' {
		return ""
	}
	if f.Col <= 0 && !strings.HasSuffix(line[:i], ".") && !strings.HasSuffix(line[:i], "::") && !strings.HasSuffix(line[:i], "->") {
		// Without a column a line's last word is a prefix only when it
		// names a member being typed (x.Ha); "return n" is a whole line.
		return ""
	}
	return p
}

// rankFocusDefs weighs the definitions of the names around the cursor: the
// name's nearness and frequency, divided by how ambiguous it is, times
// where the definition is as seen from the focus file (imported, same
// package, the file under test, the file itself).
func (r *run) rankFocusDefs(encl chunk.Chunk) []focusDef {
	f := r.req.Focus
	text, _ := r.files().Text(f.Path)
	im := parseImports(f.Path, text)
	words := focusPathWords(f.Path)
	prefix := typedPrefix(text, f)
	r.focusPrefix = prefix
	r.focusImports = im
	dir := path.Dir(f.Path)
	isImported := map[string]bool{}
	imported := func(p string) bool {
		v, ok := isImported[p]
		if !ok {
			v = im.has(p)
			isImported[p] = v
		}
		return v
	}
	best := map[index.ChunkID]*focusDef{}
	var out []*focusDef
	var typed map[string][]index.ChunkID
	typesAsked, byTypes := false, false
	for _, n := range r.nearestNames(encl, text) {
		defs, ok := r.snap.DefsAtMost(n.name, 5)
		if !ok {
			// A name defined in many places (Close, String) says
			// nothing by name; by types (Go) it is the definition it
			// resolves to. Names with fewer definitions stay by name:
			// on the cursor task their definitions, right or wrong,
			// make the maps of the files that hold the definition the
			// next line needs (measured: resolving them all by types
			// lost gorilla/mux 0.12 of its MRR at 2 000 tokens).
			if !typesAsked {
				lo, hi := r.nearLines(encl)
				typed, _, byTypes = r.typedUses(f.Path, []ranges.Range{{Start: lo, End: hi}})
				typesAsked = true
			}
			if byTypes {
				defs, ok = typed[n.name], true
			}
		}
		if !ok || len(defs) == 0 {
			continue
		}
		base := n.score / math.Sqrt(float64(len(defs)))
		for _, d := range defs {
			p, _, _ := d.Split()
			s, why := base, n.why
			switch {
			case p == f.Path:
				s, why = s*focusOwnFile, "defined in the file"
			case imported(p):
				s, why = s*focusImported, n.why+", imported"
			case path.Dir(p) == dir:
				s, why = s*focusSameDir, n.why+", same package"
			case words[stemOf(p)]:
				s, why = s*focusTested, n.why+", the file under test"
			}
			c, ok := r.snap.Chunk(d)
			if ok && p != f.Path && !refers(chunk.LanguageOf(f.Path), f.Path, n.dotted, n.name, c) {
				continue // a bare next( is Python's, not a method called next
			}
			if ok && c.Symbol != n.name {
				s *= focusMember
			}
			if prefix != "" {
				if ok && strings.HasPrefix(c.Symbol, prefix) {
					s, why = s*focusPrefix, why+", starts with the typed "+prefix
				} else {
					s *= focusNoPrefix
				}
			}
			if old := best[d]; old != nil {
				if s > old.score {
					old.score, old.why = s, why
				}
				continue
			}
			fd := &focusDef{id: d, score: s, why: why, order: len(out)}
			best[d] = fd
			out = append(out, fd)
		}
	}
	byScore := func(a, b *focusDef) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.order, b.order))
	}
	slices.SortFunc(out, byScore)
	if hop := r.e.opts.FocusHop; hop > 0 {
		out = append(out, r.hopDefs(out, best, hop)...)
		slices.SortFunc(out, byScore)
	}
	res := make([]focusDef, len(out))
	for i, d := range out {
		res[i] = *d
	}
	return res
}

// hopDefs goes one step further from the best of ranked: the definitions
// of the names they refer to (got = create(defaults) sends the reader to
// create), at hop times the referrer's weight, ÷ √(definitions of the
// name), each once (best holds those ranked already and gets the new
// ones).
func (r *run) hopDefs(ranked []*focusDef, best map[index.ChunkID]*focusDef, hop float64) []*focusDef {
	var more []*focusDef
	for _, d := range ranked[:min(len(ranked), focusHopDefs)] {
		c, ok := r.snap.Chunk(d.id)
		if p, _, _ := d.id.Split(); !ok || p == r.req.Focus.Path {
			continue
		}
		sym := c.Symbol
		if sym == "" {
			sym = "a definition"
		}
		for _, name := range c.References[:min(len(c.References), focusHopRefs)] {
			if name == c.Symbol || len(name) < 3 {
				continue
			}
			defs, _ := r.snap.DefsAtMost(name, 3)
			for _, id := range defs {
				if best[id] != nil {
					continue
				}
				fd := &focusDef{id: id, score: d.score * hop / math.Sqrt(float64(len(defs))), why: "used by " + sym + ", " + d.why, order: len(ranked) + len(more)}
				best[id] = fd
				more = append(more, fd)
			}
		}
	}
	return more
}

// focusPathWords are the lower-case words of the focus file's directories
// and name, minus those that name tests: __tests__/response/back.test.js
// gives response and back, so lib/response.js is the file under test.
func focusPathWords(p string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(strings.TrimSuffix(p, path.Ext(p))), func(r rune) bool {
		return r == '/' || r == '.' || r == '_' || r == '-'
	}) {
		switch w {
		case "test", "tests", "spec", "specs", "src", "lib", "index", "main", "mod", "init", "util", "utils":
			continue
		}
		out[w] = true
	}
	return out
}

// stemOf is a file's lower-case name without extension.
func stemOf(p string) string {
	b := path.Base(p)
	return strings.ToLower(strings.TrimSuffix(b, path.Ext(b)))
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Focus maps: under a tight budget, the files holding the best definitions
// around the cursor are each shown as one compact part — the declaration
// lines of the definitions found there and of their neighbours in the
// file (members of the same type first) — like a repository map, so that
// a method the next line calls but the lines above never used is there
// too, one line each.
// focusMapSig is how many lines of a long signature a map shows.
const focusMapSig = 2

// focusMaps returns the map candidates; maxScore normalizes scores as in
// candidates.
func (r *run) focusMaps(maxScore float64) []assemble.Candidate {
	var imported []string
	if r.e.opts.FocusImportMap > 0 && r.req.Focus != nil {
		imported = r.importedFiles(r.focusImports, r.req.Focus.Path, r.e.opts.FocusMapFiles)
	}
	if maxScore <= 0 || len(r.focusDefs)+len(imported) == 0 {
		return nil
	}
	type fileBest struct {
		path  string
		score float64
		defs  []index.ChunkID
	}
	byPath := map[string]*fileBest{}
	var files []*fileBest
	for id := range r.focusDefs {
		p, _, _ := id.Split()
		if p == r.req.Focus.Path {
			continue
		}
		s := r.scores[id]
		if s == nil {
			continue
		}
		fb := byPath[p]
		if fb == nil {
			fb = &fileBest{path: p}
			byPath[p] = fb
			files = append(files, fb)
		}
		fb.score = max(fb.score, s.score)
		fb.defs = append(fb.defs, id)
	}
	byScore := func(a, b *fileBest) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.path, b.path)) }
	slices.SortFunc(files, byScore)
	if len(imported) > 0 {
		// Imported files no name led to: a map each, below the best file.
		top := maxScore
		if len(files) > 0 {
			top = files[0].score
		}
		for _, p := range imported {
			if byPath[p] == nil && p != r.req.Focus.Path {
				fb := &fileBest{path: p, score: top * r.e.opts.FocusImportMap}
				byPath[p] = fb
				files = append(files, fb)
			}
		}
		slices.SortFunc(files, byScore)
	}
	if len(files) > r.e.opts.FocusMapFiles {
		files = files[:r.e.opts.FocusMapFiles]
	}
	var out []assemble.Candidate
	for _, fb := range files {
		why := "imported by the file"
		if len(fb.defs) > 0 {
			// Best first (declMap keeps the first when it has fewer lines
			// than defs), in a total order: focusDefs is a map.
			slices.SortFunc(fb.defs, func(a, b index.ChunkID) int {
				return cmp.Or(cmp.Compare(r.scores[b].score, r.scores[a].score), cmp.Compare(a, b))
			})
			why = r.focusDefs[fb.defs[0]]
		}
		n := r.e.opts.FocusMapLines * max(1, r.req.Budget.MaxTokens/2000)
		if c, ok := r.mapCandidate(fb.path, fb.defs, n, mapScore(fb.score/maxScore*r.e.opts.FocusMapScore), ChanFocus, why); ok {
			out = append(out, c)
		}
	}
	return out
}

// mapCandidate is the candidate of a file's map (declMap of defs, at most
// n lines), with its score and source, and why it is there for --explain;
// false when the file has no declaration to show.
func (r *run) mapCandidate(p string, defs []index.ChunkID, n int, score float64, source, why string) (assemble.Candidate, bool) {
	rs, hits := r.declMap(p, defs, n)
	if len(rs) == 0 {
		return assemble.Candidate{}, false
	}
	if r.mapFiles == nil {
		r.mapFiles = map[string]string{}
	}
	r.mapFiles[p] = "map of the file's declarations (" + why + ")"
	if r.mapHandles == nil {
		r.mapHandles = map[string]bool{}
	}
	r.mapHandles[assemble.Handle(p, rs)] = true
	return assemble.Candidate{ID: "map:" + p, Path: p, Ranges: rs, Score: score, Sources: []string{source}, Kind: "code", Hits: hits}, true
}

// declMap is the map of one file: the declaration lines of the
// definitions found there (defs, best first: so they are kept when n is
// smaller) and of their neighbours in the file — members of the same type
// first, then the nearest — at most n, in file order; hits are the lines
// of the found ones.
func (r *run) declMap(p string, defs []index.ChunkID, n int) (rs []ranges.Range, hits []int) {
	found := map[index.ChunkID]int{} // → its place among defs, best first
	var owners []string
	var defLines []int
	for i, id := range defs {
		if _, dup := found[id]; !dup {
			found[id] = i
		}
		if c, ok := r.snap.Chunk(id); ok {
			defLines = append(defLines, c.StartLine)
			if i := strings.LastIndexByte(c.QualifiedName, '.'); i > 0 {
				owners = append(owners, c.QualifiedName[:i])
			}
		}
	}
	type decl struct {
		rg    ranges.Range
		rank  int // -1 named with the typed prefix, 0 found, 1 same owner, 2 other
		place int // a found one's place among defs (the best first)
		dist  int
		start int
	}
	var decls []decl
	seenLine := map[int]bool{}
	text, _ := r.files().Text(p)
	for _, c := range r.files().ChunksOf(p) {
		if c.Signature == "" || c.Kind == chunk.KindHeader || c.Kind == chunk.KindWindow || c.Kind == chunk.KindSection {
			continue
		}
		start := sigStartOf(c.Chunk)
		if seenLine[start] || !namesSomething(lineOfChunk(text, c.Chunk, start)) {
			// A declaration line that names nothing (`const (`, `var (`)
			// says nothing in a map.
			continue
		}
		seenLine[start] = true
		d := decl{rg: ranges.Range{Start: start, End: min(c.SigEndLine, start+focusMapSig-1)}, rank: 2, start: start, dist: math.MaxInt}
		for _, l := range defLines {
			d.dist = min(d.dist, abs(l-c.StartLine))
		}
		place, isFound := found[c.ID]
		switch {
		case r.focusPrefix != "" && strings.HasPrefix(c.Symbol, r.focusPrefix):
			d.rank = -1
		case isFound:
			d.rank, d.place = 0, place
		case slices.ContainsFunc(owners, func(o string) bool { return strings.HasPrefix(c.QualifiedName, o+".") || c.QualifiedName == o }):
			d.rank = 1
		}
		decls = append(decls, d)
	}
	slices.SortFunc(decls, func(a, b decl) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.place, b.place), cmp.Compare(a.dist, b.dist), cmp.Compare(a.start, b.start))
	})
	if len(decls) > n {
		decls = decls[:n]
	}
	for _, d := range decls {
		rs = append(rs, d.rg)
		if d.rank <= 0 {
			hits = append(hits, d.start)
		}
	}
	slices.Sort(hits)
	slices.SortFunc(rs, func(a, b ranges.Range) int { return cmp.Compare(a.Start, b.Start) })
	return rs, hits
}

// namesSomething reports whether a code line writes a name other than the
// language's keywords.
func namesSomething(line string) bool {
	found := false
	scanNames(line, func(string, bool) bool { found = true; return false })
	return found
}

// mapScore keeps a map's score below the cursor's own part (1), which the
// budget pays first, and monotone in s.
func mapScore(s float64) float64 {
	if s <= 0.9 {
		return s
	}
	return 0.9 + 0.09*(1-1/(1+10*(s-0.9)))
}

// NextBestMapFocus is the explanation's focus of a next-best file's map
// (queryMaps): what tells an explained candidate that is such a map from a
// unit of the ranking (eval/cmd/losses counts only the latter).
const NextBestMapFocus = "a next-best file: its matching definitions first"

// queryMaps: breadth before depth for a question or a diff. Walking the
// ranking until its parts would fill 1 − Options.QueryMapShare of the
// budget tells which files the context will show; the next
// Options.QueryMapFiles files (per 4 000 tokens) get a compact map each —
// the declaration lines of their best matching definitions — scored just
// above that cut, so that they take the place of the ranking's tail: the
// next-best files are named with their signatures, for context/expand,
// rather than left out.
func (r *run) queryMaps(top []*scored, maxScore float64) []assemble.Candidate {
	o := r.e.opts
	if o.QueryMapFiles <= 0 || maxScore <= 0 {
		return nil
	}
	fill := int(float64(r.req.Budget.MaxTokens) * (1 - o.QueryMapShare))
	shown := map[string]bool{}
	used, cut := 0, len(top)
	for i, s := range top {
		n, ok := r.snap.TokenCount(s.id, r.req.Encoding)
		if !ok {
			n = (s.c.EndLine - s.c.StartLine + 1) * 10
		}
		if used+n > fill {
			if used >= fill/2 {
				cut = i
				break
			}
			continue // too big to fit: the assembler shows a part of it, or skips it
		}
		used += n
		shown[s.c.Path] = true
	}
	if cut >= len(top) {
		return nil // everything fits: nothing to map
	}
	cutScore := top[cut].score
	type fileBest struct {
		path string
		defs []index.ChunkID
	}
	var files []*fileBest
	byPath := map[string]*fileBest{}
	for _, s := range top[cut:] {
		if shown[s.c.Path] || isProse(s.c) {
			continue
		}
		fb := byPath[s.c.Path]
		if fb == nil {
			if len(files) == o.QueryMapFiles*max(1, r.req.Budget.MaxTokens/4000) {
				continue
			}
			fb = &fileBest{path: s.c.Path}
			byPath[s.c.Path] = fb
			files = append(files, fb)
		}
		if s.c.Symbol != "" && len(fb.defs) < 3 {
			fb.defs = append(fb.defs, s.id)
		}
	}
	var out []assemble.Candidate
	for i, fb := range files {
		score := min(0.99, cutScore/maxScore*(1+o.QueryMapScore*float64(len(files)-i)/float64(len(files))))
		if c, ok := r.mapCandidate(fb.path, fb.defs, o.QueryMapLines, score, ChanOverview, NextBestMapFocus); ok {
			out = append(out, c)
		}
	}
	return out
}
