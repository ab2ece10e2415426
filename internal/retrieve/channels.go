package retrieve

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/index/chunk"
)

// lexical is BM25 over chunk text, symbol names, paths and doc comments.
func (r *run) lexical() ([]index.ChunkID, error) { return r.lexicalOf(r.q) }

// lexicalOf is the lexical channel for the analyzed text aq.
func (r *run) lexicalOf(aq Analyzed) ([]index.ChunkID, error) {
	if aq.Empty() {
		return nil, nil
	}
	o := r.e.opts
	q := index.Query{Identifiers: aq.Identifiers, Words: aq.Words, Text: strings.Join(aq.Paths, " "),
		SymbolBoost: o.LexSymbolBoost, PathBoost: o.LexPathBoost, DocBoost: o.LexDocBoost, IdentifierBoost: o.LexIdentifierBoost}
	if len(r.req.Include)+len(r.req.Exclude) > 0 {
		q.Filter = r.allowed // k hits that pass include/exclude, not k before filtering
	}
	hits, err := r.snap.Search(r.ctx, q, r.e.opts.LexicalK)
	if err != nil {
		return nil, err
	}
	ids := make([]index.ChunkID, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids, nil
}

// symbol maps identifiers of the request to the chunks that define them,
// most specific names first: long camelCase/snake_case names rank high
// (aider weights them ×10), names defined in many places rank low.
func (r *run) symbol() ([]index.ChunkID, error) { return r.symbolOf(r.q) }

// symbolOf is the symbol channel for the analyzed text aq.
func (r *run) symbolOf(aq Analyzed) ([]index.ChunkID, error) {
	type named struct {
		name   string
		weight float64
		defs   []index.ChunkID
	}
	var names []named
	seen := map[string]bool{}
	var pathWords map[string]bool // pathMatchWords(aq), when first needed
	consider := func(name string, base float64) {
		if seen[name] || len(name) < 2 {
			return
		}
		seen[name] = true
		defs, ok := r.snap.DefsAtMost(name, 30)
		if !ok || len(defs) == 0 {
			return // unknown, or too common to point anywhere
		}
		w := base
		if len(name) >= 8 && codeLike(name) {
			w *= 2
		}
		if len(defs) > 5 {
			w /= float64(len(defs)) / 5
			if r.req.Diff == "" { // a diff's words name paths it does not mean
				if pathWords == nil {
					pathWords = pathMatchWords(aq)
				}
				defs = byPathMatch(defs, aq.Paths, pathWords)
			}
			defs = defs[:min(len(defs), 10)]
		}
		names = append(names, named{name, w, defs})
	}
	for _, id := range aq.Identifiers {
		consider(id, 1)
	}
	for _, w := range aq.Words {
		if len(w) >= 4 && r.e.opts.SymbolWords {
			consider(w, 0.5)
			consider(capitalize(w), 0.5)
		}
	}
	slices.SortStableFunc(names, func(a, b named) int { return cmp.Compare(b.weight, a.weight) })
	var ids []index.ChunkID
	added := map[index.ChunkID]bool{}
	for _, n := range names {
		for _, d := range n.defs {
			if !added[d] {
				added[d] = true
				ids = append(ids, d)
			}
		}
	}
	return ids, nil
}

// byPathMatch orders the definitions of one name (a method every driver
// defines: clearDatabase) by how well their file's path matches the
// request's paths and words (pathMatchWords; the postgres driver's for
// "postgres: … clearDatabase"), stably: it is the order the symbol
// channel ranks them in and keeps the first few of. defs is not modified.
func byPathMatch(defs []index.ChunkID, qpaths []string, words map[string]bool) []index.ChunkID {
	type def struct {
		id    index.ChunkID
		score float64
	}
	ds := make([]def, len(defs))
	ms := newPathMentions(qpaths)
	for i, id := range defs {
		p, _, _ := id.Split()
		ds[i] = def{id, ms.score(p, words, true)}
	}
	slices.SortStableFunc(ds, func(a, b def) int { return cmp.Compare(b.score, a.score) })
	out := make([]index.ChunkID, len(ds))
	for i, d := range ds {
		out[i] = d.id
	}
	return out
}

// pathMatchWords are the lower-cased words and identifiers of aq (three
// letters or more) that pathScore matches file paths against.
func pathMatchWords(aq Analyzed) map[string]bool {
	words := map[string]bool{}
	for _, w := range aq.Words {
		if len(w) >= 3 {
			words[w] = true
		}
	}
	for _, id := range aq.Identifiers {
		if len(id) >= 3 {
			words[strings.ToLower(id)] = true
		}
	}
	return words
}

func capitalize(s string) string {
	rs := []rune(s)
	rs[0] = unicode.ToUpper(rs[0])
	return string(rs)
}

// path matches request words and paths against file paths; each matching
// file contributes its best chunk: the one that defines or mentions most
// request terms, else its header.
func (r *run) path() ([]index.ChunkID, error) {
	if len(r.q.Paths)+len(r.q.Words)+len(r.q.Identifiers) == 0 {
		return nil, nil
	}
	type fileScore struct {
		path  string
		score float64
	}
	var files []fileScore
	words := pathMatchWords(r.q)
	// Only paths that share a word with the query can score: the index
	// finds them (PathWords keys on a path's lower-cased stem, its parts
	// and its directory names, a superset of what pathScore rewards).
	keys := make([]string, 0, len(words)+len(r.q.Paths))
	for w := range words {
		keys = append(keys, w)
	}
	for _, qp := range r.q.Paths {
		base := qp[strings.LastIndexByte(qp, '/')+1:]
		keys = append(keys, lowerASCII(strings.TrimSuffix(base, pathExt(base))))
	}
	mentions := slices.Clone(r.q.Paths)
	if m, ok := subjectComponent(r.req.Query); ok && !slices.Contains(mentions, m) && !r.isDir(m) {
		mentions = append(mentions, m)
	}
	for _, id := range r.q.Identifiers {
		if m, ok := moduleMention(id); ok && !slices.Contains(mentions, m) {
			mentions = append(mentions, m)
		}
	}
	ms := newPathMentions(mentions)
	for _, p := range r.snap.PathsWithWords(keys) {
		if s := ms.score(p, words, r.req.Diff == ""); s > 0 && r.allowed(p) {
			files = append(files, fileScore{p, s})
		}
	}
	slices.SortStableFunc(files, func(a, b fileScore) int { return cmp.Compare(b.score, a.score) })
	if len(files) > 20 {
		files = files[:20]
	}
	ids := make([]index.ChunkID, 0, len(files))
	r.pathStrength = make(map[index.ChunkID]float64, len(files))
	for _, f := range files {
		if id, ok := r.bestChunk(f.path, words); ok {
			ids = append(ids, id)
			r.pathStrength[id] = f.score
		}
	}
	return ids, nil
}

func pathExt(p string) string {
	base := p[strings.LastIndexByte(p, '/')+1:]
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		return base[i:]
	}
	return ""
}

// bestChunk is the chunk of path that names most request words (by symbol
// and identifiers), else the header chunk, else the first chunk.
func (r *run) bestChunk(path string, words map[string]bool) (index.ChunkID, bool) {
	cs := r.files().ChunksOf(path)
	if len(cs) == 0 {
		return "", false
	}
	best, bestScore := -1, 0
	header := -1
	for i, c := range cs {
		if c.Kind == chunk.KindHeader && header < 0 {
			header = i
		}
		n := 0
		if words[strings.ToLower(c.Symbol)] {
			n += 3
		}
		for _, d := range c.Defines {
			if words[strings.ToLower(d)] {
				n++
			}
		}
		if n > bestScore {
			best, bestScore = i, n
		}
	}
	switch {
	case best >= 0:
		return cs[best].ID, true
	case header >= 0:
		return cs[header].ID, true
	}
	return cs[0].ID, true
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

// nearestNames lists the identifiers of the focus file's text around the
// cursor, each once, weightiest first (ties: nearest first, lines above
// the cursor before lines below at the same distance), at most
// focusMaxNames.
func (r *run) nearestNames(encl chunk.Chunk, text string) []nearName {
	f := r.req.Focus
	if text == "" {
		return nil
	}
	lo, hi := f.Line-r.e.opts.FocusAbove, f.Line+r.e.opts.FocusBelow
	if encl.EndLine > 0 {
		lo, hi = min(lo, encl.StartLine), max(hi, encl.EndLine)
	}
	lo = max(lo, 1)
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

// diff is the chunks a diff touches, the callers of the symbols they
// define and the definitions they use — what a reviewer needs to see.
func (r *run) diff(files []FileDiff) []index.ChunkID {
	var touched []index.ChunkID
	r.diffChanged = map[index.ChunkID][]int{}
	for _, fd := range files {
		if fd.Path == "" {
			continue
		}
		for _, c := range r.files().ChunksOf(fd.Path) {
			if c.Kind == chunk.KindHeader {
				continue
			}
			var lines []int
			for _, ch := range fd.Changed {
				for l := max(ch.Start, c.StartLine); l <= min(ch.End, c.EndLine); l++ {
					lines = append(lines, l)
				}
			}
			if len(lines) > 0 {
				touched = append(touched, c.ID)
				r.diffChanged[c.ID] = lines
			}
		}
	}
	seen := map[index.ChunkID]bool{}
	for _, id := range touched {
		seen[id] = true
	}
	var callers, used []index.ChunkID
	r.callSites = map[index.ChunkID][]string{}
	sure := map[index.ChunkID]bool{}
	for _, id := range touched {
		c, _ := r.snap.Chunk(id)
		if r.req.Mode == ModeReview && c.Kind != chunk.KindFunction && c.Kind != chunk.KindMethod {
			// Under review the callers are those of changed code; the
			// users of a changed type or variable are everywhere.
			continue
		}
		refs, ambiguous := r.callersOf(c, r.req.Mode == ModeReview)
		for _, u := range refs {
			if !slices.Contains(r.callSites[u], c.Symbol) {
				r.callSites[u] = append(r.callSites[u], c.Symbol)
			}
			if !ambiguous {
				sure[u] = true
			}
			if !seen[u] {
				seen[u] = true
				callers = append(callers, u)
			}
		}
	}
	for _, u := range callers {
		if !sure[u] {
			if r.ambiguousCallers == nil {
				r.ambiguousCallers = map[index.ChunkID]bool{}
			}
			r.ambiguousCallers[u] = true
		}
	}
	// The definitions the changed lines use, resolved by the rules a
	// bare name, a selector, a builtin and a comment follow (mayRefer):
	// not every name of the changed units, whose bare `len(x)` met a
	// method called len elsewhere.
	// Every file's used definitions before any file's fields: a type one
	// file's lines name is that, whatever the order of the diff's files.
	var fields []index.ChunkID
	fileNames := make([]changedNames, len(files))
	for i, fd := range files {
		if fd.Path != "" {
			fileNames[i] = namesOfLines(fd.Added)
			used = append(used, r.usedByChanges(fd, fileNames[i], chunk.LanguageOf(fd.Path), 3, seen)...)
		}
	}
	for i, fd := range files {
		if fd.Path != "" {
			fields = append(fields, r.fieldsUsedBy(fd, fileNames[i], seen)...)
		}
	}
	// What the change reaches (its callers, the definitions its lines
	// use) is kept from the diff's own files' penalty (diffPriors): the
	// reviewer has the changed lines, not the rest of their files.
	r.diffReached = map[index.ChunkID]bool{}
	for _, id := range slices.Concat(callers, used, fields) {
		r.diffReached[id] = true
	}
	// Other files first: the reviewer has the diff already. The types
	// whose fields the change selects are not ranked by it (measured: the
	// diff task's file recall −0.006 at 2 000 tokens): where they are
	// candidates anyway, they show those fields (fieldLines).
	return slices.Concat(callers, used, touched)
}

// graph is a one-step personalized PageRank over the reference graph,
// seeded by the best candidates so far: code that the seeds use, or that
// uses them, gains score in proportion to the seeds' scores.
func (r *run) graph() []index.ChunkID {
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
	return topIDs(all, 50, func(x kv) index.ChunkID { return x.id })
}

// topIDs returns the ids of the first n of a ranked list.
func topIDs[T any](ranked []T, n int, id func(T) index.ChunkID) []index.ChunkID {
	ids := make([]index.ChunkID, 0, min(n, len(ranked)))
	for _, x := range ranked[:min(n, len(ranked))] {
		ids = append(ids, id(x))
	}
	return ids
}

// overview ranks the definitions of source files by how many chunks refer
// to their name: the workspace's central code, for requests whose terms
// match little. Names defined in many places (String, New) count less.
// It is skipped on large workspaces (Options.OverviewMaxFiles). The
// ranking depends only on the snapshot: it is computed once per snapshot
// (Snapshot.Memo) and each request takes the best of it that its include
// and exclude globs allow.
func (r *run) overview() []index.ChunkID {
	if len(r.snap.Paths()) > r.e.opts.OverviewMaxFiles {
		return nil
	}
	all := r.snap.Memo(overviewKey{}, func() any { return overviewRanking(r.snap) }).([]overviewEntry)
	ids := make([]index.ChunkID, 0, 60)
	for _, x := range all {
		if len(ids) == 60 {
			break
		}
		if r.allowed(x.path) {
			ids = append(ids, x.id)
		}
	}
	return ids
}

// overviewKey names the overview ranking among a snapshot's memos.
type overviewKey struct{}

// overviewEntry is one definition of the overview ranking.
type overviewEntry struct {
	id    index.ChunkID
	path  string
	line  int
	score float64
}

// overviewRanking is every named definition of the snapshot's source files
// (not tests, vendored or generated code, not prose), best first: score
// refs/defs of its name, ties by path and line.
func overviewRanking(snap *index.Snapshot) []overviewEntry {
	var all []overviewEntry
	// A name is scored once however many chunks it names (New, String).
	scores := map[string]float64{}
	score := func(name string) float64 {
		if v, ok := scores[name]; ok {
			return v
		}
		v := 0.0
		if refs := snap.NumRefs(name); refs > 0 {
			v = float64(refs) / float64(max(1, snap.NumDefs(name)))
		}
		scores[name] = v
		return v
	}
	for _, p := range snap.Paths() {
		if isSecondary(p) {
			continue
		}
		for _, c := range snap.ChunksOf(p) {
			if c.Symbol == "" || isProse(c.Chunk) || c.Kind == chunk.KindHeader || c.Kind == chunk.KindWindow {
				continue
			}
			if v := score(c.Symbol); v > 0 {
				all = append(all, overviewEntry{c.ID, p, c.StartLine, v})
			}
		}
	}
	slices.SortFunc(all, func(a, b overviewEntry) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.path, b.path), cmp.Compare(a.line, b.line))
	})
	return all
}

// callers are up to 40 chunks that refer to c's own name, unless the name
// is defined in many places (String, New, Close): then who "calls" it is
// noise, and on a big tree an expensive question. Loose (a review's
// changed units) a name defined up to Options.ReviewCallerDefs times still
// finds its callers
// (route.Match among eight Match methods), marked ambiguous: a reviewer
// misses a caller more than a reader of a related question does, but
// some of them call another Match.
func (r *run) callers(c chunk.Chunk, loose bool) (refs []index.ChunkID, ambiguous bool) {
	if c.Symbol == "" || len(c.Symbol) < 3 {
		return nil, false
	}
	if _, ok := r.snap.DefsAtMost(c.Symbol, 5); !ok {
		if !loose {
			return nil, false
		}
		if _, ok := r.snap.DefsAtMost(c.Symbol, r.e.opts.ReviewCallerDefs); !ok {
			return nil, false
		}
		ambiguous = true
	}
	refs, ok := r.snap.RefsAtMost(c.Symbol, 200)
	if !ok {
		return nil, false // too common to mean anything
	}
	if len(refs) > 40 {
		refs = refs[:40]
	}
	return refs, ambiguous
}

// pathScore scores how well path p matches the request's paths and words:
// a whole path or suffix 10, the same path without extension 5, a base name
// equal to a word 3, a word part of the base name 1 (with camel, camel-case
// parts too: index.StemParts), a directory named by a word 0.5 each. A
// diff's words are its code's: camel-case parts of file names match them
// by accident (measured: the diff task's MRR −0.005 on the eval and the
// held-out check), a question's name the component it is about.
func pathScore(p string, qpaths []string, words map[string]bool, camel bool) float64 {
	return newPathMentions(qpaths).score(p, words, camel)
}

// pathMention is a path the request mentions, with the forms pathScore
// compares a file's path and stem with, made once per request rather
// than once per file scored (a diff mentions every changed file, and
// thousands of paths are scored against them).
type pathMention struct {
	path, stem string
	slashStem  string // "/" + stem
	// isPackageInit's forms of stem; bare: stem has no '/'.
	initExact, initSuffix, dunderSuffix, dunderExact string
	bare                                             bool
}

// pathMentions are the paths a request mentions, in order.
type pathMentions []pathMention

func newPathMentions(qpaths []string) pathMentions {
	ms := make(pathMentions, len(qpaths))
	for i, qp := range qpaths {
		qstem := strings.TrimSuffix(qp, pathExt(qp))
		ms[i] = pathMention{
			path: qp, stem: qstem, slashStem: "/" + qstem,
			initExact: qstem + "/__init__", initSuffix: "/" + qstem + "/__init__",
			dunderSuffix: "/__" + qstem + "__", dunderExact: "__" + qstem + "__",
			bare: !strings.Contains(qstem, "/"),
		}
	}
	return ms
}

// isPackageInit reports whether file stem is the package file of the
// module path m.stem: Python's m/__init__ or, for a bare file name, its
// dunder form (init.py names __init__.py).
func (m *pathMention) isPackageInit(stem string) bool {
	return stem == m.initExact || strings.HasSuffix(stem, m.initSuffix) ||
		m.bare && strings.HasSuffix(stem, m.dunderSuffix) || stem == m.dunderExact
}

// score is pathScore(p, the mentioned paths, words, camel).
func (ms pathMentions) score(p string, words map[string]bool, camel bool) float64 {
	s := 0.0
	stem := strings.TrimSuffix(p, pathExt(p))
	for i := range ms {
		m := &ms[i]
		qp := m.path
		switch {
		case p == qp || (strings.HasSuffix(p, qp) && len(p) > len(qp) && p[len(p)-len(qp)-1] == '/'):
			s += 10
		case stem == m.stem || strings.HasSuffix(stem, m.slashStem) || m.isPackageInit(stem):
			s += 5
		}
	}
	slash := strings.LastIndexByte(p, '/')
	base := p[slash+1:]
	base = strings.TrimSuffix(base, pathExt(base))
	if lower := lowerASCII(base); words[lower] || words[strings.Trim(lower, "_")] {
		s += 3
	} else {
		index.StemParts(base, camel, func(part string) {
			if len(part) >= 4 && words[part] {
				s++
			}
		})
	}
	if slash > 0 {
		for dirs := p[:slash]; dirs != ""; {
			d, rest, _ := strings.Cut(dirs, "/")
			if words[lowerASCII(d)] {
				s += 0.5
			}
			dirs = rest
		}
	}
	return s
}

// moduleMention turns a dotted name of the question whose parts are all
// lower-case — a Python or Java module path such as sphinx.theming — into
// the slash path it names (sphinx/theming), for pathScore to match against
// file stems. Names with an upper-case part (pkg.Func, obj.Method) are
// members, not modules.
func moduleMention(id string) (string, bool) {
	if !strings.Contains(id, ".") || strings.ContainsAny(id, "/") || lowerASCII(id) != id {
		return "", false
	}
	return strings.ReplaceAll(id, ".", "/"), true
}

// subjectComponent is the component a question's first line is labelled
// with, by the convention of commit subjects and issue titles
// ("pytester: pop TOX_ENV_DIR", "net/http: …", "core.router: …"): a path
// or module name before a colon that ends the first word, or a
// Conventional Commits scope ("fix(http): …"); module dots become slashes.
func subjectComponent(q string) (string, bool) {
	line, _, _ := strings.Cut(strings.TrimSpace(q), "\n")
	word, rest, ok := strings.Cut(line, ":")
	if !ok || word == "" || strings.ContainsAny(word, " \t") || !strings.HasPrefix(rest, " ") {
		return "", false
	}
	// A Conventional Commits scope names the component: "perf(postgres): …".
	if kind, scope, ok := strings.Cut(strings.TrimSuffix(word, "!"), "("); ok && strings.HasSuffix(scope, ")") {
		if !conventionalTypes[strings.ToLower(kind)] {
			return "", false
		}
		word = strings.TrimSuffix(scope, ")")
		if word == "" {
			return "", false
		}
	}
	for _, c := range word {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_-./", c)) {
			return "", false
		}
	}
	if conventionalTypes[strings.ToLower(word)] {
		return "", false
	}
	if strings.Contains(word, ".") && !strings.Contains(word, "/") && !slices.Contains(pathExts, pathExt(word)) {
		word = strings.ReplaceAll(word, ".", "/")
	}
	return word, true
}

// conventionalTypes are the labels of Conventional Commits and their
// kind ("fix: …", "docs: …"): kinds of change, not components.
var conventionalTypes = map[string]bool{"feat": true, "feature": true, "fix": true, "bugfix": true, "hotfix": true, "bug": true,
	"chore": true, "docs": true, "doc": true, "refactor": true, "test": true, "tests": true, "style": true, "perf": true,
	"build": true, "ci": true, "revert": true, "release": true, "wip": true, "deps": true, "misc": true, "cleanup": true}

// isDir reports whether some indexed path has a directory that the slash
// path m ends (a component label that names a directory names many files,
// not the one whose stem it is).
func (r *run) isDir(m string) bool {
	lm := lowerASCII(m)
	base := lm[strings.LastIndexByte(lm, '/')+1:]
	for _, p := range r.snap.PathsWithWords([]string{base}) {
		if i := strings.LastIndexByte(p, '/'); i >= 0 {
			if d := lowerASCII(p[:i]); d == lm || strings.HasSuffix(d, "/"+lm) {
				return true
			}
		}
	}
	return false
}

// lowerASCII lower-cases s, without allocating when it has no upper-case
// ASCII letter.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' || c >= 0x80 {
			return strings.ToLower(s)
		}
	}
	return s
}
