package retrieve

import (
	"cmp"
	"math"
	"path"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/internal/history"
	"github.com/ctxls/ctxls/internal/index/chunk"
)

// FileModelOptions are the file model's knobs (rankFiles): the order of a
// request's best files and the depth of the budget in each.
type FileModelOptions struct {
	// FileRank (a, 0 … 1): a question's best files are ordered again by
	// the file model (filerank.go): each file's utility is (1 − a) times
	// its best score's log plus a times the model's, and the files take
	// the channels' best scores in that order (0: not).
	FileRank float64
	// FileRankDiff is FileRank for a request with a diff, with or without
	// a question (not with a cursor: a cursor's ranking is the focus
	// channel's), by the model's diff weights (the features of the diff's
	// own files, directories and tests count there).
	FileRankDiff float64
	// FileDepth (d ≥ 0): with a budget of at least FileDepthFrom tokens,
	// the budget's depth follows the file model's confidence. Each ranked
	// file's other units' scores relative to its best, ρ, become
	// ρ^(1/(1 + d·p)), p the file's share of the model's softmax over the
	// ranked files: a file the model is sure of shows more of its units
	// before the next files' best (0: not). Under a tight budget breadth
	// wins (docs/tuning-log.md, "Depth by the file model's confidence":
	// at 2 000 the held-out cases lost lines, 0.508 → 0.503).
	FileDepth     float64
	FileDepthFrom int
	// FileHeaderShare: with FileDepth running, the header (package clause
	// and imports) of the file model's first file joins the candidates at
	// this share of the file's best score, unless it costs more than
	// FileHeaderMaxShare of the budget (0: not). A change to a file often
	// changes its imports; a model writing in it needs them.
	FileHeaderShare    float64
	FileHeaderMaxShare float64
}

// fileModelState is the file model's per-request state.
type fileModelState struct {
	// fileFeats are the file model's features of the best files, for
	// --explain (Options.FileRank).
	fileFeats map[string]map[string]float64
}

// The file rank (Options.FileRank, Options.FileRankDiff) orders a
// question's or a diff's best files again by a linear model over what
// the channels found in each file: its best score, how many of its units
// they found and which channels, its role (test, docs, …), its place in
// the tree and, for a diff, its place relative to the diff's files. The
// channels score units; the model weighs the evidence per file — a file
// that the lexical, semantic and history channels all point at outranks
// one that a single strong hit put first. A question and a diff have
// weights of their own, fitted offline on the eval's question cases and
// diff cases (a listwise softmax over each case's 40 best files, gold
// files the targets; docs/tuning-log.md, "A learned file model" and "The
// file model for diffs") and checked on the held-out cases.

// fileRankFiles is how many of the best files the model orders again;
// the rest keep their order after them.
const fileRankFiles = 40

// File features, in the order of fileFeatureNames and of the weights of
// filemodel.json (fileModels).
const (
	ffRelScore   = iota // ln(file's best score / the request's best)
	ffRank              // ln(1 + the file's place by its best score, 0-based)
	ffUnits             // ln(1 + units found in the file)
	ffLexUnits          // ln(1 + units the lexical channel found)
	ffSumRatio          // the file's summed scores / its best
	ffMaxLexical        // the best unit's share from each channel, × 20 (≈ 1 for a channel's first)
	ffMaxSymbol
	ffMaxPath
	ffMaxGraph
	ffMaxOverview
	ffMaxHistory
	ffMaxSemantic
	ffMaxDiff
	ffSumLexical // the file's summed shares from each channel, × 20
	ffSumSymbol
	ffSumPath
	ffSumGraph
	ffSumOverview
	ffSumHistory
	ffSumSemantic
	ffSumDiff
	ffTest      // a test, fixture or example
	ffVendor    // vendored or generated
	ffTooling   // build, CI or docs tooling
	ffProse     // prose or configuration
	ffLiteral   // a unit of it ranked down as mostly string literals
	ffTopDir    // in the directory of the best file (not that file)
	ffDepth     // directories above the file
	ffOwn       // a file the diff changes
	ffDiffDir   // in a directory of the diff's files (not one of them)
	ffDiffStem  // named as a diff's file, but for test affixes and extension, anywhere in the tree (its test, its header…; not a module index, not a dotfile)
	ffDiffIndex // the module index (__init__.py, index.ts, mod.rs…) of a diff's file's directory
	ffMessage   // how strongly the past commits whose messages read like the question changed the file (history.Log.MessageMatches, relative to the best file)
	nFileFeatures
)

// fileFeatureNames name the features (for --explain and the offline fit).
var fileFeatureNames = [nFileFeatures]string{
	"relScore", "rank", "units", "lexUnits", "sumRatio",
	"maxLexical", "maxSymbol", "maxPath", "maxGraph", "maxOverview", "maxHistory", "maxSemantic", "maxDiff",
	"sumLexical", "sumSymbol", "sumPath", "sumGraph", "sumOverview", "sumHistory", "sumSemantic", "sumDiff",
	"test", "vendor", "tooling", "prose", "literal", "topDir", "depth",
	"own", "diffDir", "diffStem", "diffIndex", "message",
}

// fileFeatureChannels are the channels of the max… and sum… features.
var fileFeatureChannels = [...]string{ChanLexical, ChanSymbol, ChanPath, ChanGraph, ChanOverview, ChanHistory, ChanSemantic, ChanDiff}

// fileRank is one file's features, best score and utility.
type fileRank struct {
	path string
	best float64
	x    [nFileFeatures]float64
	util float64
}

// fileRankModel is the request's weights and share of the model
// (Options.FileRank for a question, Options.FileRankDiff for a diff);
// nil for a cursor, whose ranking the focus channel leads.
func (r *run) fileRankModel() (w *[nFileFeatures]float64, a float64) {
	switch {
	case r.req.Focus != nil:
		return nil, 0
	case len(r.diffFiles) > 0:
		return &r.e.files.diff, min(1, r.e.opts.FileRankDiff)
	case strings.TrimSpace(r.req.Query) != "":
		return &r.e.files.question, min(1, r.e.opts.FileRank)
	}
	return nil, 0
}

// fileFeatures computes the features of the request's best files (by
// their best unit's score), best first.
func (r *run) fileFeatures() []*fileRank {
	ranked := r.ranked()
	if len(ranked) == 0 || ranked[0].score <= 0 {
		return nil
	}
	top := ranked[0].score
	byPath := map[string]*fileRank{}
	var files []*fileRank
	for _, s := range ranked {
		f := byPath[s.c.Path]
		if f == nil {
			if len(files) == fileRankFiles {
				continue
			}
			f = &fileRank{path: s.c.Path, best: s.score}
			byPath[s.c.Path] = f
			files = append(files, f)
			f.x[ffRelScore] = math.Log(max(s.score, top*1e-9) / top)
			f.x[ffRank] = math.Log1p(float64(len(files) - 1))
			switch pathRole(s.c.Path) {
			case roleTest:
				f.x[ffTest] = 1
			case roleVendor:
				f.x[ffVendor] = 1
			case roleTooling:
				f.x[ffTooling] = 1
			}
			if isProse(s.c) {
				f.x[ffProse] = 1
			}
			f.x[ffDepth] = float64(strings.Count(s.c.Path, "/"))
		}
		f.x[ffUnits]++
		if s.channels[ChanLexical] > 0 {
			f.x[ffLexUnits]++
		}
		f.x[ffSumRatio] += s.score
		for i, ch := range fileFeatureChannels {
			v := s.channels[ch] * 20
			f.x[ffMaxLexical+i] = max(f.x[ffMaxLexical+i], v)
			f.x[ffSumLexical+i] += v
		}
		if s.literal {
			f.x[ffLiteral] = 1
		}
	}
	if len(r.diffFiles) > 0 {
		r.diffFeatures(files)
	}
	r.messageFeatures(files)
	topDir := path.Dir(files[0].path)
	for i, f := range files {
		f.x[ffUnits] = math.Log1p(f.x[ffUnits])
		f.x[ffLexUnits] = math.Log1p(f.x[ffLexUnits])
		if f.best > 0 {
			f.x[ffSumRatio] /= f.best
		}
		if i > 0 && path.Dir(f.path) == topDir {
			f.x[ffTopDir] = 1
		}
	}
	return files
}

// messageFeatures sets each file's share of the past commits whose
// messages read like the question (Options.MessageCommits of them;
// history.Log.MessageMatches): the workspace's history says where changes
// described in these words went before.
func (r *run) messageFeatures(files []*fileRank) {
	ms := r.messageVotes()
	if len(ms) == 0 {
		return
	}
	votes := make(map[string]float64, len(ms))
	for _, m := range ms {
		votes[m.Path] = m.Score
	}
	for _, f := range files {
		f.x[ffMessage] = votes[f.path]
	}
}

// messageVotes are the files of the past commits whose messages read
// most like the question (Options.MessageCommits of them,
// history.Log.MessageMatches), strongest first; nil without history, a
// question or the option. Read once per request.
func (r *run) messageVotes() []history.Scored {
	if !r.messagesRead {
		r.messagesRead = true
		if n := r.e.opts.MessageCommits; n > 0 && r.req.History != nil && strings.TrimSpace(r.req.Query) != "" {
			r.messages = r.req.History.MessageMatches(r.req.Query, n, 4*fileRankFiles)
		}
	}
	return r.messages
}

// diffFeatures sets the files' features of their place relative to the
// diff's files. A deleted or renamed file's old path counts for its
// directory and its name (its test may stay behind), not as a file of the
// tree.
func (r *run) diffFeatures(files []*fileRank) {
	own, dirs, stems := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, fd := range r.diffFiles {
		if fd.Path != "" {
			own[fd.Path] = true
		}
		for _, p := range []string{fd.Path, fd.OldPath} {
			if p != "" {
				dirs[path.Dir(p)] = true
				if st := coreStem(p); st != "" && !isModuleIndex(p) {
					stems[st] = true
				}
			}
		}
	}
	for _, f := range files {
		if own[f.path] {
			f.x[ffOwn] = 1
			continue
		}
		index := isModuleIndex(f.path)
		if dirs[path.Dir(f.path)] {
			f.x[ffDiffDir] = 1
			if index {
				f.x[ffDiffIndex] = 1
			}
		}
		if st := coreStem(f.path); st != "" && stems[st] && !index {
			f.x[ffDiffStem] = 1
		}
	}
}

// rankFiles orders the best files again by the model and records the
// features for --explain. A file's utility is (1 − a) × its relScore +
// a × the model's (a: Options.FileRank, or FileRankDiff for a diff); in
// the new order the i-th file takes the best score the i-th file had, and
// its units keep their scores relative to its best. So the scores'
// profile — how far the best file is ahead of the next, which the
// budget's depth and breadth follow — stays the one the channels gave;
// only which file holds each place changes. The files after the ranked
// ones keep theirs.
func (r *run) rankFiles() {
	weights, a := r.fileRankModel()
	if weights == nil || (a <= 0 && !r.req.Explain) {
		return
	}
	files := r.fileFeatures()
	if len(files) == 0 {
		return
	}
	if r.req.Explain {
		r.fileFeats = make(map[string]map[string]float64, len(files))
		for _, f := range files {
			m := make(map[string]float64, nFileFeatures)
			for i, v := range f.x {
				m[fileFeatureNames[i]] = v
			}
			r.fileFeats[f.path] = m
		}
	}
	if a <= 0 || len(files) < 2 {
		return
	}
	for _, f := range files {
		u := 0.0
		for j, v := range f.x {
			u += weights[j] * v
		}
		f.util = (1-a)*f.x[ffRelScore] + a*u
	}
	order := slices.Clone(files)
	// Stable: equal utilities keep the channels' order.
	slices.SortStableFunc(order, func(x, y *fileRank) int { return cmp.Compare(y.util, x.util) })
	factor := make(map[string]float64, len(files))
	for i, f := range order {
		if f.best > 0 { // files[i].best: the i-th best score, files being best first
			factor[f.path] = files[i].best / f.best
		}
	}
	for _, s := range r.scores {
		if f, ok := factor[s.c.Path]; ok && f != 1 {
			r.prior(s, f, "the file's place by the file model")
		}
	}
	if d := r.e.opts.FileDepth; d > 0 && r.req.Budget.MaxTokens >= r.e.opts.FileDepthFrom {
		r.fileDepth(order, files, d)
		if sh := r.e.opts.FileHeaderShare; sh > 0 && len(order) > 0 {
			r.fileHeader(order[0].path, files[0].best*sh)
		}
	}
}

// fileHeader makes the header of path — its package clause and imports —
// a candidate at score x, unless it is that already or costs more than
// Options.FileHeaderMaxShare of the budget (a header holding a file's
// constants can be hundreds of lines).
func (r *run) fileHeader(path string, x float64) {
	for _, c := range r.files().ChunksOf(path) {
		if c.Kind != chunk.KindHeader {
			continue
		}
		if t, ok := r.snap.TokenCount(c.ID, r.req.Encoding); !ok || float64(t) > r.e.opts.FileHeaderMaxShare*float64(r.req.Budget.MaxTokens) {
			return
		}
		if n := r.get(c.ID); n != nil && n.score < x {
			// A neighbor of the file's units, as the neighbor channel's
			// are, by the step's own option.
			n.channels[ChanNeighbor] += x - n.score
			n.score = x
			if r.req.Explain {
				n.priors = append(n.priors, "the imports of the file model's first file")
			}
		}
		return
	}
}

// fileDepth lifts the other units of each ranked file towards its best by
// the model's confidence in the file (Options.FileDepth): order is the
// model's order, best first, files the channels' (whose i-th best score
// the i-th of order now holds).
func (r *run) fileDepth(order, files []*fileRank, d float64) {
	type depth struct{ best, k float64 }
	byPath := make(map[string]depth, len(order))
	for i, p := range softmaxShares(order) {
		byPath[order[i].path] = depth{files[i].best, 1 / (1 + d*p)}
	}
	for _, s := range r.scores {
		dp, ok := byPath[s.c.Path]
		if !ok || dp.best <= 0 || s.score <= 0 || s.score >= dp.best || dp.k >= 1 {
			continue
		}
		rho := s.score / dp.best
		r.prior(s, math.Pow(rho, dp.k-1), "depth by the file model's confidence")
	}
}

// softmaxShares is each file's share of the softmax of the files'
// utilities, order best first.
func softmaxShares(order []*fileRank) []float64 {
	out := make([]float64, len(order))
	z := 0.0
	for i, f := range order {
		out[i] = math.Exp(f.util - order[0].util)
		z += out[i]
	}
	for i := range out {
		out[i] /= z
	}
	return out
}

// FileFeatureNames are the names of the file model's features, in the
// order of FileRankWeights (the offline fit, eval/cmd/fitrank, reads them
// from --explain's fileFeatures).
func FileFeatureNames() []string { return slices.Clone(fileFeatureNames[:]) }

// FileRankWeights are the file model's weights for a question (diff
// false) or a diff, in the order of FileFeatureNames.
func FileRankWeights(diff bool) []float64 {
	m := mustFileModels()
	if diff {
		return slices.Clone(m.diff[:])
	}
	return slices.Clone(m.question[:])
}

// coreStem is a file's lower-case name without extension and without the
// affixes that name a test of it (foo_test, test_foo, foo.spec, and
// FooTest, FooTests as Java and C# name them — a capital T, so that
// latest.go keeps its name): a test and the code it tests share it. A
// dotfile (.gitignore) has none: "".
func coreStem(p string) string {
	b := path.Base(p)
	name := strings.TrimSuffix(b, path.Ext(b))
	if name == "" { // a dotfile (.gitignore, .eslintrc): no name of its own
		return ""
	}
	for _, suf := range []string{"Tests", "Test"} {
		if t, ok := strings.CutSuffix(name, suf); ok && t != "" {
			return strings.ToLower(t)
		}
	}
	s := strings.ToLower(name)
	for _, suf := range []string{"_test", ".test", "-test", "_spec", ".spec", "-spec", "_tests"} {
		if t, ok := strings.CutSuffix(s, suf); ok && t != "" {
			return t
		}
	}
	if t, ok := strings.CutPrefix(s, "test_"); ok && t != "" {
		return t
	}
	return s
}
