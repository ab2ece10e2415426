package retrieve

import (
	"slices"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/index/chunk"
)

// DiffOptions are the diff channel's knobs: its priors on the diff's own
// files and directories, its reach under review and the changed units'
// reserve.
type DiffOptions struct {
	// DiffSelfPenalty multiplies the fused score of chunks of the files a
	// request's diff changes: the reader has the diff already and needs
	// the code around it.
	DiffSelfPenalty float64
	// DiffDirPrior raises the fused score of the chunks of the other files
	// in the directory of a file the diff changes by this share, when the
	// history channel has no file that changed together with the diff's
	// (no git history, or none for these files): 62 % of the eval's diff
	// gold files are in the diff's directory — the same change goes to a
	// file's siblings — and the history says which ones when it can
	// (measured: with history the prior costs files; 0: none).
	DiffDirPrior float64
	// DiffDirIndexPrior: with DiffDirPrior, the module index of such a
	// directory (__init__.py, mod.rs, lib.rs, index.js, …) is raised by
	// this share more: in the eval's diff task it is a gold file in 26 %
	// of the cases that have one, a sibling in 5.7 %.
	DiffDirIndexPrior float64
	// DiffGraphWeight replaces the graph channel's weight in requests with
	// a diff (unless the request sets it): the reference graph around
	// changed code is what a reviewer needs.
	DiffGraphWeight float64
	// ReviewCallerDefs: under review (ModeReview), the callers of a
	// changed unit are looked up while its name has at most this many
	// definitions (5 otherwise: a name defined more often says little).
	ReviewCallerDefs int
	// ResolvePackages bounds, per request, the distinct packages the
	// engine's Resolver may need checked for all of its answers together
	// (ResolveBudget): the first time on a tree, checking costs seconds
	// per hundred packages, and a review of a change of a hundred files
	// (a review bot's pull request) checked several hundred, 10 s on Go's
	// src, where a review by name takes 0.4 s (docs/benchmarks.md).
	ResolvePackages int
	// DiffChangedShare is the share of the budget the units a diff
	// changes may take before anything else, whole, or trimmed around
	// their changed lines when they do not fit (0: they are ranked like
	// any other candidate, by DiffSelfPenalty). Below DiffChangedFullFrom
	// tokens the share shrinks in proportion to the budget: a small
	// budget goes to what the diff does not show (measured: 0.3 of 2 000
	// tokens cost the diff task 0.04 of its file recall, 0.1 of it 0.006).
	DiffChangedShare    float64
	DiffChangedFullFrom int
	// DiffChangedFrom: in the related mode, under budgets smaller than
	// this the changed units have no reserve and are ranked like any
	// other candidate (a review's always have one).
	DiffChangedFrom int
	// (DiffSignpostContext 6: the review task in the related mode lost
	// 0.029 of its line recall and 0.043 of its MRR at 8 000 tokens with
	// no lines around the changed ones — their units declare much of what
	// the change uses — and nothing with six; docs/quality.md.)
	// DiffSignpostFrom: in the related mode, from this budget a changed
	// unit is a signpost — its signature, its changed lines with
	// DiffSignpostContext lines around each, and the lines of the unit
	// declaring the names they use — since the asker has the change;
	// under it the unit is shown as any other candidate (a small budget
	// ranks it down anyway, and its other lines are often what the change
	// uses). The review mode shows changed units whole.
	DiffSignpostFrom    int
	DiffSignpostContext int
	// DiffQueryComments: a diff's comment lines in code files feed its
	// query text too (false: a word the change writes only in a comment
	// brings no file by itself; measured on the review task in the
	// related mode, leaving them out cost 0.02 of the line recall at
	// 2 000 tokens, so they stay).
	DiffQueryComments bool
	// RelatedReach: in the related mode too, from RelatedReachFrom
	// tokens, what the change reaches (the review mode's reach: callers
	// of the changed units, the definitions their changed lines use)
	// ranks above the rest, shaped as under review (its calls and
	// declarations, a long unit cut to them); 0: ranked like any other
	// candidate. The value is the score tier it starts from (the review
	// mode's is reviewTier). Measured on the review task in the related
	// mode at 8 000 tokens: line recall 0.760 → 0.875, noise 0.782 →
	// 0.766; at 2 000 the reach takes the room of the co-changed files
	// (the diff task's file recall −0.03 with a tier of 0.5, its line
	// recall −0.013 with 0.2), so it starts at RelatedReachFrom.
	RelatedReach     float64
	RelatedReachFrom int
}

// diffState is the diff channel's per-request state: what the change
// reaches, and how (read by the review's shaping, review.go).
type diffState struct {
	// diffReached are the diff channel's callers of the changed units
	// and the definitions their changed lines use (see diff).
	diffReached map[index.ChunkID]bool
	// diffChanged are the units the diff changes and the changed lines in
	// each (see diff): the changed units a reviewer reads first
	// (Options.DiffChangedShare).
	diffChanged map[index.ChunkID][]int
	// callSites are, for each caller the diff channel found, the names of
	// the changed units it calls: its lines naming them are its hit lines.
	callSites map[index.ChunkID][]string
	// fieldLines are, for each type unit declaring a field the changed
	// lines select, the declaring lines: its hit lines.
	fieldLines map[index.ChunkID][]int
	// ambiguousCallers are the callers the diff channel found only
	// through a changed unit's name that other units define too (under
	// review, Options.ReviewCallerDefs): they rank below the sure reach.
	ambiguousCallers map[index.ChunkID]bool
	// usedNames are, for each definition the diff channel found a changed
	// line using, the name it is used by (declLines).
	usedNames map[index.ChunkID]string
	// usedOnValue are the definitions found for a name the changed lines
	// write only as x.Name on a value (not on an imported package's name):
	// some other type's Name as often as not, so under review they rank
	// below the rest of the reach.
	usedOnValue map[index.ChunkID]bool
	// testReach are the units reached only from the changed lines of
	// tests (a test's calls of framework helpers, of fixtures): under
	// review they come after the change's own units.
	testReach map[index.ChunkID]bool
}

// diffChannel is the diff channel of the request's parsed diff.
func (r *run) diffChannel() ([]index.ChunkID, error) { return r.diff(r.diffFiles), nil }

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
	// The code's changes before the tests': what they reach is the
	// change's reach; what only the tests' changed lines reach is marked
	// (testReach).
	r.testReach = map[index.ChunkID]bool{}
	fromTest := func(path string, found []index.ChunkID) {
		if pathRole(path) == roleTest {
			for _, u := range found {
				r.testReach[u] = true
			}
		}
	}
	slices.SortStableFunc(touched, func(a, b index.ChunkID) int { return cmpTestLast(r.pathOf(a), r.pathOf(b)) })
	for _, id := range touched {
		c, _ := r.snap.Chunk(id)
		if r.req.Mode == ModeReview && c.Kind != chunk.KindFunction && c.Kind != chunk.KindMethod {
			// Under review the callers are those of changed code; the
			// users of a changed type or variable are everywhere.
			continue
		}
		refs, typed := r.typedCallers(index.IndexedChunk{ID: id, Chunk: c})
		ambiguous := false
		if !typed {
			refs, ambiguous = r.callersOf(c, r.req.Mode == ModeReview)
		}
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
				fromTest(c.Path, []index.ChunkID{u})
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
	files = slices.Clone(files)
	slices.SortStableFunc(files, func(a, b FileDiff) int { return cmpTestLast(a.Path, b.Path) })
	fileNames := make([]changedNames, len(files))
	for i, fd := range files {
		if fd.Path != "" {
			fileNames[i] = namesOfLines(fd.Added)
			found, typed := r.typedUsedByChanges(fd, seen)
			if !typed {
				found = r.usedByChanges(fd, fileNames[i], chunk.LanguageOf(fd.Path), 3, seen)
			}
			fromTest(fd.Path, found)
			used = append(used, found...)
		}
	}
	for i, fd := range files {
		if fd.Path != "" {
			found := r.fieldsUsedBy(fd, fileNames[i], seen)
			fromTest(fd.Path, found)
			fields = append(fields, found...)
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

// cmpTestLast orders a code file's path before a test's (pathRole), and
// keeps the order otherwise.
func cmpTestLast(a, b string) int {
	ta, tb := pathRole(a) == roleTest, pathRole(b) == roleTest
	switch {
	case ta == tb:
		return 0
	case tb:
		return -1
	}
	return 1
}

// pathOf is the path of a chunk of the snapshot ("" when it has none).
func (r *run) pathOf(id index.ChunkID) string {
	c, _ := r.snap.Chunk(id)
	return c.Path
}
