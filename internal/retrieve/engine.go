package retrieve

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/history"
	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/index/chunk"
	"github.com/ctxls/ctxls/internal/ranges"
	"github.com/ctxls/ctxls/internal/tokens"
)

// DefaultEncoding is the encoding used when a request names none.
const DefaultEncoding = "cl100k_base"

// DefaultWeights are the per-channel weights of the rank fusion.
func DefaultWeights() map[string]float64 {
	return map[string]float64{
		ChanLexical: 1.0,
		// Symbol ranks the definitions of the names a request spells; at
		// the lexical channel's weight a name that several files define
		// put all of them ahead of the file the question is about (0.5:
		// MRR +0.005 … +0.012 on the eval and the held-out check,
		// docs/tuning-log.md, "The component a question names").
		ChanSymbol: 0.5,
		ChanPath:   0.7,
		ChanFocus:  2.0,
		// Diff ranks the units a diff changes and their callers. The
		// changed units are the reviewer's own (ranked down further by
		// Options.DiffSelfPenalty); since the history channel brings the
		// files that change together, 2.0 put them first and cost the
		// diff task's MRR 0.07 (docs/tuning-log.md, the diff channel's
		// weight: 0.478 at 2.0, 0.546 at 0.25).
		ChanDiff:  0.25,
		ChanGraph: 0.4,
		// Neighbor is not a ranked channel: a neighbor gets half of its
		// parent's fused score, times this weight (0.5: the
		// eval finds full weight crowds out other files).
		ChanNeighbor: 0.5,
		// Overview fills what room the other channels leave with the
		// workspace's most-referenced definitions (a repo map).
		ChanOverview: 0.2,
		// History weighs the co-change channel of a diff; times
		// Options.HistoryPrior it is the recency prior's strength.
		ChanHistory: 1.0,
		// Semantic is the workspace embedder's channel (when the request
		// brings vectors).
		ChanSemantic: 0.5,
		// Activity: the edited ranges' chunks as candidates; times
		// Options.ActivityPrior, the open buffers' prior.
		ChanActivity: 1.0,
		// Conversation: earlier turns, searched like the query at this
		// weight.
		ChanConversation: 0.3,
	}
}

// Options tune an Engine.
type Options struct {
	// RRFK is the rank offset of reciprocal rank fusion: a channel's i-th
	// result (1-based) contributes weight/(RRFK+i).
	RRFK float64
	// MaxCandidates is how many fused candidates go to the assembler.
	MaxCandidates int
	// LexicalK is how many BM25 hits the lexical channel asks for.
	LexicalK int
	// Neighbors is how many top candidates get their adjacent chunks added.
	Neighbors int
	// TestPenalty multiplies the fused score of test, vendored and
	// generated-looking files (zoekt ranks them down).
	TestPenalty float64
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
	// ToolingPenalty multiplies the fused score of build, CI and release
	// scripts and of code kept with the docs (0: none).
	ToolingPenalty float64
	// LiteralPenalty multiplies the fused score of a code unit whose
	// non-blank text is at least LiteralShare string literals (0 or 1:
	// none).
	LiteralPenalty, LiteralShare float64
	// PathStrength scales the path channel's share of each file by how
	// strongly the question names it: its path score / 3, between 0.5 and
	// PathStrength (0: by rank alone). Not for a diff, whose text names
	// paths and words that are not a question's (measured: a loss).
	PathStrength float64
	// LexSymbolBoost, LexPathBoost, LexDocBoost and LexIdentifierBoost are
	// the lexical search's field boosts (index.Query; 0: the index's
	// defaults).
	LexSymbolBoost, LexPathBoost, LexDocBoost, LexIdentifierBoost float64
	// DocPenalty multiplies the fused score of prose and configuration
	// files (Markdown, reStructuredText, HTML, YAML, …): the reader asked
	// about code.
	DocPenalty float64
	// OverviewMaxFiles bounds the overview channel's work: it is skipped
	// on workspaces with more files.
	OverviewMaxFiles int
	// PerFileShare, when a request sets no per-file cap, caps each file at
	// this share of the budget (0: no cap), so one large file cannot
	// crowd out the others; CursorPerFileShare is the share for a request
	// with a cursor (the definitions the next line needs are in many
	// files; a question's or a diff's changed lines are deep in a few).
	PerFileShare, CursorPerFileShare float64
	// PerFileMinBudget: PerFileShare applies only to budgets of at least
	// this many tokens. Under a tight budget depth in the best file beats
	// breadth (line recall drops by 0.1 with a cap at 2 000 tokens); with
	// room, breadth wins (docs/quality.md).
	PerFileMinBudget int
	// SymbolWords lets the symbol channel look up plain query words (and
	// their capitalized forms) as definition names, not only identifiers.
	SymbolWords bool
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
	// ReviewCallerDefs: under review (ModeReview), the callers of a
	// changed unit are looked up while its name has at most this many
	// definitions (5 otherwise: a name defined more often says little).
	ReviewCallerDefs int
	// QueryMapBelow: under budgets smaller than this, a question's or a
	// diff's next-best files are offered as compact maps (queryMaps):
	// QueryMapFiles files per 4 000 tokens (at least QueryMapFiles) beyond
	// those the ranking fills 1 − QueryMapShare of the budget with,
	// QueryMapLines declarations each, scored up to 1 + QueryMapScore
	// times the cut's score (0 files: never).
	QueryMapBelow, QueryMapFiles, QueryMapLines int
	QueryMapShare, QueryMapScore                float64
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
	// DiffChangedShare is the share of the budget the units a diff
	// changes may take before anything else, whole, or trimmed around
	// their changed lines when they do not fit (0: they are ranked like
	// any other candidate, by DiffSelfPenalty). Below DiffChangedFullFrom
	// tokens the share shrinks in proportion to the budget: a small
	// budget goes to what the diff does not show (measured: 0.3 of 2 000
	// tokens cost the diff task 0.04 of its file recall, 0.1 of it 0.006).
	DiffChangedShare    float64
	DiffChangedFullFrom int
	// DiffChangedFrom: in the default mode, under budgets smaller than
	// this the changed units have no reserve and are ranked like any
	// other candidate (a review's always have one).
	DiffChangedFrom int
	// CoChangeFiles is how many files the history channel brings for a
	// diff: those that changed most often with the diff's files (0: none).
	CoChangeFiles int
	// CoChangeHalfLife: in a request with a diff, co-changed files count
	// the commits they share with the diff's (or its best) files less the
	// older they are (half-life in commits; 0: all alike). A question's
	// seeded co-change counts them alike (measured).
	CoChangeHalfLife float64
	// CoChangeSeeds: a request without a diff seeds the history channel
	// with its best files so far, this many (0: no history channel).
	CoChangeSeeds int
	// CoChangeSeedWeight scales the history channel's weight when it is
	// seeded so (the request's own files say more than the best guesses).
	CoChangeSeedWeight float64
	// CoChangeSeedDiff seeds the history channel with a diff's best files
	// too (beside the diff's own files). Off by default: measured, it cost
	// the diff task lines on the eval and files and lines on the held-out
	// check (docs/heldout.md).
	CoChangeSeedDiff bool
	// LexicalFileOrder (w, 0 … 1): in a request without a cursor, each
	// file's chunks take the file's fused scores again, in an order that
	// weighs their lexical share by w and their fused score by 1 − w
	// (0: the fused order). Every channel decides which file; within a
	// file the others point at units the question is not about — the
	// path channel at the file's header, the graph and overview channels
	// at its most-referenced definitions (docs/tuning-log.md, "Which unit
	// of the right file": query lines at 2 000 0.468 → 0.488 at w 0.5).
	LexicalFileOrder float64
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
	// MessageCommits: with the workspace's history, the file model reads
	// how strongly the past commits whose messages read most like the
	// question (this many) changed each file (0: not).
	MessageCommits int
	// MessageFiles: with a budget of at least MessageFilesFrom tokens,
	// that many of those commits' files, most voted first, join the
	// history channel as candidates at MessageWeight of its weight (0:
	// none) — a file no other channel found by its first definition — so
	// that the file model can weigh what the past messages point at.
	// Under a tight budget they displace better-founded parts (measured:
	// line recall fell at 2 000 tokens, docs/quality.md).
	MessageFiles     int
	MessageWeight    float64
	MessageFilesFrom int
	// HistoryPrior: a chunk's score is raised by this share times its
	// file's recency prior (history.Log.Recency; 0: not).
	HistoryPrior float64
	// SemanticDiffScale scales the semantic channel's weight in a request
	// with a diff (0: the channel is off for diffs, the default: measured,
	// it costs a diff's files).
	SemanticDiffScale float64
	// ActivityPrior: a chunk of an open buffer's file is raised by this
	// share (halved for each buffer used more lately than its own), times
	// the activity weight.
	ActivityPrior float64
	// SemanticK is how many chunks the semantic channel brings, and
	// SemanticFloor the cosine similarity they need at least.
	SemanticK     int
	SemanticFloor float64
	// Levels and Outlines set the assembler's policy flags (detail levels
	// under a tight budget; summary substitution of dropped candidates)
	// for requests that bring no Policy of their own.
	Levels, Outlines bool
}

// DefaultOptions returns the tuned defaults (see docs/quality.md).
func DefaultOptions() Options {
	return Options{RRFK: 20, MaxCandidates: 150, LexicalK: 120, Neighbors: 8, TestPenalty: 0.3, ToolingPenalty: 0.4, DiffSelfPenalty: 0.3, DiffGraphWeight: 1, DocPenalty: 0.6, LiteralPenalty: 0.7, LiteralShare: 0.8, PathStrength: 3, LexSymbolBoost: 2, OverviewMaxFiles: 3000,
		PerFileShare: 0.6, CursorPerFileShare: 0.3, PerFileMinBudget: 4000, Levels: true, FocusNearest: true, FocusSkeletonBelow: 4000, FocusMapBelow: 10000,
		FocusMapFiles: 8, FocusMapLines: 12, FocusMapScore: 2, FocusImportMap: 0.5, FocusHop: 0.1, CursorShare: 0.25, DiffChangedShare: 0.3, DiffChangedFullFrom: 6000, DiffChangedFrom: 4000,
		FocusAbove: 1 << 20, FocusBelow: 1 << 20,
		ReviewCallerDefs: 12, QueryMapBelow: 10000, QueryMapFiles: 16, QueryMapLines: 1, QueryMapShare: 0.2, QueryMapScore: 0.1, FocusBreadthFrom: 4000,
		LexicalFileOrder: 0.5, FileRank: 1, FileRankDiff: 1, FileDepth: 3, FileDepthFrom: 4000, FileHeaderShare: 0.6, FileHeaderMaxShare: 0.1, MessageCommits: 20, MessageFiles: 20, MessageWeight: 0.2, MessageFilesFrom: 4000, DiffDirPrior: 0.3, DiffDirIndexPrior: 0.5, CoChangeFiles: 20, CoChangeSeeds: 3, CoChangeSeedWeight: 0.3, CoChangeHalfLife: 150, HistoryPrior: 0.5,
		SemanticK: 50, SemanticFloor: 0.2, SemanticDiffScale: 0, ActivityPrior: 0.3}
}

// Engine runs requests. It is safe for concurrent use.
type Engine struct {
	tokens *tokens.Registry
	opts   Options
	files  fileModels // the file model's weights (filemodel.json)
}

// NewEngine returns an engine counting tokens with reg.
func NewEngine(reg *tokens.Registry) *Engine { return NewEngineWith(reg, DefaultOptions()) }

// NewEngineWith returns an engine with explicit options.
func NewEngineWith(reg *tokens.Registry, opts Options) *Engine {
	return &Engine{tokens: reg, opts: opts, files: mustFileModels()}
}

// ErrNothingAsked is Validate's error for a request with no query, focus
// or diff (a face may say it in its own words: errors.Is finds it).
var ErrNothingAsked = &assemble.ParamError{Field: "query", Msg: "give at least one of query, focus and diff"}

// Validate checks a request's parameters without running it, and
// normalises them (the default format, strategy and encoding filled in):
// the one check every face makes before it waits for an index. Errors are
// *assemble.ParamError naming the field.
func (e *Engine) Validate(req *Request) error {
	_, err := e.validate(req)
	return err
}

// validate is Validate, returning the parsed diff (nil without one) so
// that the request does not parse it again.
func (e *Engine) validate(req *Request) ([]FileDiff, error) {
	if err := checkSizes(req); err != nil {
		return nil, err
	}
	if strings.TrimSpace(req.Query) == "" && req.Focus == nil && strings.TrimSpace(req.Diff) == "" {
		return nil, ErrNothingAsked
	}
	if err := req.Budget.Validate(); err != nil {
		return nil, err
	}
	var err error
	if req.Format, err = assemble.ParseFormat(string(req.Format)); err != nil {
		return nil, err
	}
	if req.Strategy, err = assemble.ParseStrategy(string(req.Strategy)); err != nil {
		return nil, err
	}
	if req.Encoding == "" {
		req.Encoding = DefaultEncoding
	}
	if err := e.tokens.Check(req.Encoding); err != nil {
		return nil, &assemble.ParamError{Field: "encoding", Msg: err.Error()}
	}
	if f := req.Focus; f != nil {
		if f.Path == "" {
			return nil, &assemble.ParamError{Field: "focus", Msg: "focus needs a path"}
		}
		if f.Line < 1 {
			return nil, &assemble.ParamError{Field: "focus", Msg: fmt.Sprintf("focus line must be ≥ 1, got %d", f.Line)}
		}
	}
	for _, g := range append(slices.Clone(req.Include), req.Exclude...) {
		if !doublestar.ValidatePattern(g) {
			field := "include"
			if slices.Contains(req.Exclude, g) {
				field = "exclude"
			}
			return nil, &assemble.ParamError{Field: field, Msg: fmt.Sprintf("bad glob %q", g)}
		}
	}
	var diff []FileDiff
	switch {
	case req.Diff != "" && req.parsedFrom == req.Diff && req.parsed != nil:
		diff = req.parsed // validated before (Validate, then Assemble)
	case req.Diff != "":
		if diff, err = ParseDiff(req.Diff); err != nil {
			return nil, &assemble.ParamError{Field: "diff", Msg: err.Error()}
		}
		req.parsed, req.parsedFrom = diff, req.Diff
	}
	if req.Mode, err = ParseMode(string(req.Mode)); err != nil {
		return nil, &assemble.ParamError{Field: "mode", Msg: err.Error()}
	}
	if req.Mode == ModeReview && len(diff) == 0 {
		return nil, &assemble.ParamError{Field: "mode", Msg: "mode review needs a diff"}
	}
	if err := CheckWeights(req.Weights); err != nil {
		return nil, &assemble.ParamError{Field: "weights", Msg: err.Error()}
	}
	return diff, nil
}

// WantsSemantic reports whether the semantic channel can add to req: it
// has text (a question or a diff) and the channel's weight for it (the
// default, for a diff times Options.SemanticDiffScale, or the request's
// own) is above 0. A caller loads or computes the vectors only then.
func (e *Engine) WantsSemantic(req *Request) bool {
	return e.semanticWeight(req) > 0 && (strings.TrimSpace(req.Query) != "" || strings.TrimSpace(req.Diff) != "")
}

// semanticWeight is the semantic channel's weight for req: the default,
// for a diff times Options.SemanticDiffScale, unless the request gives
// its own.
func (e *Engine) semanticWeight(req *Request) float64 {
	if v, ok := req.Weights[ChanSemantic]; ok {
		return v
	}
	w := DefaultWeights()[ChanSemantic]
	if req.Diff != "" {
		w *= e.opts.SemanticDiffScale
	}
	return w
}

// Assemble retrieves candidates for req from snap and assembles them.
func (e *Engine) Assemble(ctx context.Context, snap *index.Snapshot, req Request) (*Response, error) {
	diff, err := e.validate(&req)
	if err != nil {
		return nil, err
	}
	counter, err := e.tokens.Get(req.Encoding)
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", req.Encoding, err)
	}
	note := ""
	if f := req.Focus; f != nil {
		if _, ok := snap.Stat(f.Path); !ok {
			if snap.Complete() {
				return nil, &assemble.ParamError{Field: "focus", Msg: fmt.Sprintf("%s is not indexed (missing, outside the workspace, ignored, binary or too large)", f.Path)}
			}
			// Still indexing: answer from what is indexed, without the focus.
			note = fmt.Sprintf("the focus file %s is not indexed yet (indexing in progress); answered without it", f.Path)
			req.Focus = nil
		}
	}
	r := &run{e: e, ctx: ctx, snap: snap, req: req, diffFiles: diff, weights: DefaultWeights(), scores: map[index.ChunkID]*scored{}}
	if req.Diff != "" && e.opts.DiffGraphWeight > 0 {
		r.weights[ChanGraph] = e.opts.DiffGraphWeight
	}
	r.weights[ChanSemantic] = e.semanticWeight(&req)
	for k, v := range req.Weights {
		r.weights[k] = v
	}
	if err := r.collect(); err != nil {
		return nil, err
	}
	cands := r.candidates()
	policy := assemble.DefaultPolicy()
	policy.Levels, policy.Outlines = e.opts.Levels, e.opts.Outlines
	if req.Policy != nil {
		policy = *req.Policy
	}
	budget := req.Budget
	share := e.opts.PerFileShare
	if req.Focus != nil {
		share = e.opts.CursorPerFileShare
	}
	if budget.PerFileMaxTokens == 0 && share > 0 && budget.MaxTokens >= e.opts.PerFileMinBudget {
		budget.PerFileMaxTokens = max(1, int(share*float64(budget.MaxTokens)))
	}
	// The cursor's own code and the units a diff changes are paid for
	// first (trimmed around the cursor or the changed lines when they are
	// long); what they leave goes to the rest.
	for _, rs := range []struct {
		name string
		n    int
	}{
		{cursorReserve, cursorBudget(budget.MaxTokens, e.opts.CursorShare)},
		{changedReserve, changedBudget(budget.MaxTokens, e.opts.DiffChangedShare, e.opts.DiffChangedFullFrom)},
	} {
		name, n := rs.name, rs.n
		if n > 0 && slices.ContainsFunc(cands, func(c assemble.Candidate) bool { return c.Reserve == name }) {
			budget.Reserves = maps.Clone(budget.Reserves)
			if budget.Reserves == nil {
				budget.Reserves = map[string]int{}
			}
			budget.Reserves[name] = n
		}
	}
	res, err := assemble.Assemble(ctx, assemble.Request{Budget: budget, Format: req.Format, Strategy: req.Strategy, Policy: policy},
		cands, r.files(), counter)
	if err != nil {
		return nil, err
	}
	res.Omitted = slices.DeleteFunc(res.Omitted, func(o assemble.Omitted) bool { return r.mapHandles[o.Handle] })
	if req.Mode == ModeReview && len(res.Parts) == 0 && len(r.diffChanged) == 0 {
		res.Stats.Note = strings.TrimPrefix(res.Stats.Note+"; mode review: the diff changes no indexed unit and reaches none (a deletion, or files the index leaves out); what its words match is listed in omitted", "; ")
	}
	if len(res.Parts) == 0 && len(cands) == 0 && res.Stats.Note == "" {
		res.Stats.Note = noCandidateNote(len(snap.Paths()), len(req.Include)+len(req.Exclude) > 0)
	}
	res.Stats.IndexState = r.indexState()
	res.Stats.IndexComplete = snap.Complete()
	if n := snap.Unavailable(); n > 0 {
		note = strings.TrimPrefix(note+"; "+unavailableNote(n), "; ")
	}
	if note != "" {
		res.Stats.Note = strings.TrimPrefix(res.Stats.Note+"; "+note, "; ")
	}
	resp := &Response{Result: res}
	if req.Explain {
		resp.Explain = r.explain(res)
	}
	return resp, nil
}

// snapFiles serves file texts and chunk records from a snapshot, each
// file's read once per request.
type snapFiles struct {
	snap   *index.Snapshot
	cache  map[string]fileText
	chunks map[string][]index.IndexedChunk
}

type fileText struct {
	text string
	ok   bool
}

func newSnapFiles(snap *index.Snapshot) *snapFiles {
	return &snapFiles{snap: snap, cache: map[string]fileText{}, chunks: map[string][]index.IndexedChunk{}}
}

// ChunksOf is the snapshot's ChunksOf, decoded once: the channels,
// neighbors and maps of a request read the same files' chunks again and
// again. Callers must not change the slice.
func (f *snapFiles) ChunksOf(path string) []index.IndexedChunk {
	if cs, ok := f.chunks[path]; ok {
		return cs
	}
	cs := f.snap.ChunksOf(path)
	f.chunks[path] = cs
	return cs
}

// Text implements assemble.Files.
func (f *snapFiles) Text(path string) (string, bool) {
	if t, ok := f.cache[path]; ok {
		return t.text, t.ok
	}
	var t fileText
	t.text, t.ok = f.snap.Text(path)
	f.cache[path] = t
	return t.text, t.ok
}

// files is the run's file reader (shared by the channels, hit lines and
// the assembler).
func (r *run) files() *snapFiles {
	if r.fileCache == nil {
		r.fileCache = newSnapFiles(r.snap)
	}
	return r.fileCache
}

// scored is one chunk's fused state.
type scored struct {
	id       index.ChunkID
	c        chunk.Chunk
	score    float64
	channels map[string]float64
	// priors are the steps after fusion that changed the score, for
	// --explain (filled only when the request asks for it).
	priors []string
	// literal: ranked down as mostly string literals (a file feature).
	literal bool
}

// prior multiplies s's score by f, a step after fusion named what (for
// --explain: "test, example or vendored file ×0.30").
func (r *run) prior(s *scored, f float64, what string) {
	s.score *= f
	if r.req.Explain {
		s.priors = append(s.priors, what+" ×"+strconv.FormatFloat(f, 'f', 2, 64))
	}
}

// run is the state of one request.
type run struct {
	e         *Engine
	ctx       context.Context
	snap      *index.Snapshot
	req       Request
	diffFiles []FileDiff // req.Diff, parsed
	weights   map[string]float64
	q         Analyzed
	scores    map[index.ChunkID]*scored
	// focusChunk seeds the graph channel with the request's own code.
	focusChunk index.ChunkID
	// hits is the hit-line search's scratch space, kept between candidates.
	hits hitScratch
	// focusDefs are the definitions the focus channel found near the
	// cursor, with why (for --explain).
	focusDefs map[index.ChunkID]string
	// focusPrefix is the identifier typed at the cursor, if any.
	focusPrefix string
	// focusImports are the focus file's imports (for the maps of the
	// files they name, Options.FocusImportMap).
	focusImports imports
	// mapFiles says why each map (path → reason) is offered.
	mapFiles map[string]string
	// mapHandles are the maps' handles: a map the budget leaves out is
	// not listed as omitted (expanding it gives its few lines; the file's
	// own candidates are listed).
	mapHandles map[string]bool
	// candHandles are the handles of compact candidates, whose ranges are
	// not their chunk's (for --explain).
	candHandles map[string]*scored
	fileCache   *snapFiles
	// pathStrength is the path channel's file score of each chunk it
	// ranked (Options.PathStrength).
	pathStrength map[index.ChunkID]float64
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
	// diffCoChanged: the history channel brought files that changed
	// together with the diff's (Options.DiffDirPrior stands in otherwise).
	diffCoChanged bool
	// messages are the files of the past commits whose messages read like
	// the question (history.Log.MessageMatches), read once (messageVotes).
	messages     []history.Scored
	messagesRead bool
	// fileFeats are the file model's features of the best files, for
	// --explain (Options.FileRank).
	fileFeats map[string]map[string]float64
}

// collect runs every channel and fuses their rankings.
func (r *run) collect() error {
	text, diff := r.req.Query, r.diffFiles
	if r.req.Diff != "" {
		text += "\n" + diffQueryText(diff)
	}
	r.q = Analyze(text)
	// The semantic channel's search reads every vector of the snapshot:
	// it runs beside the other channels and is fused in its turn.
	var semIDs []index.ChunkID
	var semDone chan struct{}
	if r.weights[ChanSemantic] > 0 && r.req.Semantic != nil {
		semDone = make(chan struct{})
		go func() {
			defer close(semDone)
			semIDs = r.semantic(text)
		}()
		defer func() { <-semDone }()
	}
	type channel struct {
		name  string
		fn    func() ([]index.ChunkID, error)
		scale func(index.ChunkID) float64 // each entry's share times this; nil: by rank alone
	}
	chans := []channel{
		{ChanLexical, r.lexical, nil},
		{ChanSymbol, r.symbol, nil},
		{ChanPath, r.path, r.pathScale()},
	}
	if r.req.Focus != nil {
		chans = append(chans, channel{ChanFocus, r.focus, nil})
	}
	if len(diff) > 0 {
		chans = append(chans, channel{ChanDiff, func() ([]index.ChunkID, error) { return r.diff(diff), nil }, nil})
	}
	for _, ch := range chans {
		if r.weights[ch.name] == 0 {
			continue
		}
		ids, err := ch.fn()
		if err != nil {
			return fmt.Errorf("%s channel: %w", ch.name, err)
		}
		r.fuseScaled(ch.name, r.weights[ch.name], ids, ch.scale)
		if err := r.ctx.Err(); err != nil {
			return err
		}
	}
	if r.weights[ChanGraph] > 0 {
		r.fuse(ChanGraph, r.graph())
	}
	if r.weights[ChanOverview] > 0 {
		r.fuse(ChanOverview, r.overview())
	}
	if semDone != nil {
		<-semDone
		r.fuse(ChanSemantic, semIDs)
	}
	if r.weights[ChanConversation] > 0 && len(r.req.Conversation) > 0 {
		r.conversation()
	}
	if r.weights[ChanActivity] > 0 && r.req.Activity != nil {
		r.fuse(ChanActivity, r.activityEdits())
	}
	if r.weights[ChanHistory] > 0 && r.req.History != nil {
		r.history()
	}
	if r.e.opts.LexicalFileOrder > 0 && r.req.Focus == nil {
		r.lexicalFileOrder()
	}
	r.penalize()
	if r.weights[ChanActivity] > 0 && r.req.Activity != nil {
		r.activityPrior()
	}
	if len(diff) > 0 {
		r.diffPriors(diff)
	}
	r.rankFiles()
	if r.weights[ChanNeighbor] > 0 {
		r.neighbors()
	}
	return nil
}

// diffPriors ranks the chunks of the diff's own files down
// (Options.DiffSelfPenalty) and, when the history brought no file that
// changed with them, those of the other files in their directories up
// (Options.DiffDirPrior; a directory's module index by
// Options.DiffDirIndexPrior more), in one pass over the scored chunks.
func (r *run) diffPriors(diff []FileDiff) {
	o := r.e.opts
	self, dir := o.DiffSelfPenalty, o.DiffDirPrior
	if self <= 0 {
		self = 1
	}
	if r.diffCoChanged {
		dir = 0
	}
	if self == 1 && dir <= 0 {
		return
	}
	own, dirs := map[string]int{}, map[string]bool{}
	for _, fd := range diff {
		if fd.Path != "" {
			own[fd.Path]++ // a file a diff names twice is ranked down twice
			dirs[path.Dir(fd.Path)] = true
		}
	}
	for _, s := range r.scores {
		switch n := own[s.c.Path]; {
		case n > 0 && r.diffReached[s.id] && r.req.Mode == ModeReview:
			// Under review, the callers and definitions in the diff's own
			// files are what the reviewer needs most: no penalty.
		case n > 0 && r.diffReached[s.id]:
			// A caller of the change or a definition its lines use, in a
			// file the diff changes: a reviewer needs it, though less
			// than what the diff does not show at all (the fourth root
			// of the penalty; the square root cost the review task 0.05
			// of its line recall at 8 000 tokens, the diff task nothing).
			for range n {
				r.prior(s, math.Sqrt(math.Sqrt(self)), "a file the diff changes, reached by the change")
			}
		case n > 0:
			for range n {
				r.prior(s, self, "a file the diff changes")
			}
		case dir > 0 && dirs[path.Dir(s.c.Path)]:
			r.prior(s, 1+dir, "in a directory of the diff (no co-change known)")
			if q := o.DiffDirIndexPrior; q > 0 && isModuleIndex(s.c.Path) {
				r.prior(s, 1+q, "the directory's module index")
			}
		}
	}
}

// lexicalFileOrder gives each file's chunks the file's fused scores again
// (Options.LexicalFileOrder = w), best first in the order of
// w × lexical share / the file's best lexical share + (1 − w) × score /
// the file's best score: the file keeps its scores, and so its place in
// the ranking, while its best score goes to a unit the words match.
func (r *run) lexicalFileOrder() {
	w := min(1, r.e.opts.LexicalFileOrder)
	byFile := map[string][]*scored{}
	for _, s := range r.ranked() {
		byFile[s.c.Path] = append(byFile[s.c.Path], s)
	}
	for _, chunks := range byFile { // each file on its own: the order of files does not matter
		if len(chunks) < 2 {
			continue
		}
		scores := make([]float64, len(chunks)) // descending: chunks is ranked
		maxLex := 0.0
		for i, s := range chunks {
			scores[i] = s.score
			maxLex = max(maxLex, s.channels[ChanLexical])
		}
		if maxLex <= 0 || scores[0] <= 0 {
			continue
		}
		key := func(s *scored) float64 { return w*s.channels[ChanLexical]/maxLex + (1-w)*s.score/scores[0] }
		// Stable: equal keys keep the ranked order.
		slices.SortStableFunc(chunks, func(a, b *scored) int { return cmp.Compare(key(b), key(a)) })
		for i, s := range chunks {
			if r.req.Explain && s.score != scores[i] {
				s.priors = append(s.priors, fmt.Sprintf("ordered within its file by the question's words: the file's score %d of %d", i+1, len(chunks)))
			}
			s.score = scores[i]
		}
	}
}

// fuse adds a channel's ranking with reciprocal rank fusion.
func (r *run) fuse(name string, ids []index.ChunkID) { r.fuseWeighted(name, r.weights[name], ids) }

// fuseWeighted adds a channel's ranking at weight w.
func (r *run) fuseWeighted(name string, w float64, ids []index.ChunkID) {
	r.fuseScaled(name, w, ids, nil)
}

// fuseScaled adds a channel's ranking at weight w, each entry's share
// times scale(id) when scale is not nil.
func (r *run) fuseScaled(name string, w float64, ids []index.ChunkID, scale func(index.ChunkID) float64) {
	for i, id := range ids {
		s := r.get(id)
		if s == nil {
			continue
		}
		x := w / (r.e.opts.RRFK + float64(i+1))
		if scale != nil {
			x *= scale(id)
		}
		s.score += x
		s.channels[name] += x
	}
}

// pathScale scales the path channel's share of each file by how strongly
// the question names it (Options.PathStrength): a file the question names
// outright (sphinx.theming, init.py, a path) counts more than one whose
// name shares a word with it. Nil — by rank alone — for a diff.
func (r *run) pathScale() func(index.ChunkID) float64 {
	k := r.e.opts.PathStrength
	if k <= 0 || r.req.Diff != "" {
		return nil
	}
	return func(id index.ChunkID) float64 { return min(k, max(0.5, r.pathStrength[id]/3)) }
}

func (r *run) get(id index.ChunkID) *scored {
	if s, ok := r.scores[id]; ok {
		return s
	}
	c, ok := r.snap.Chunk(id)
	if !ok || !r.allowed(c.Path) {
		return nil
	}
	s := &scored{id: id, c: c, channels: map[string]float64{}}
	r.scores[id] = s
	return s
}

func (r *run) allowed(path string) bool {
	if len(r.req.Include) > 0 {
		ok := false
		for _, g := range r.req.Include {
			if m, _ := doublestar.Match(g, path); m {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	for _, g := range r.req.Exclude {
		if m, _ := doublestar.Match(g, path); m {
			return false
		}
	}
	return true
}

// ranked returns the fused chunks by score, ties by path then line.
func (r *run) ranked() []*scored {
	out := make([]*scored, 0, len(r.scores))
	for _, s := range r.scores {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *scored) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.c.Path, b.c.Path),
			cmp.Compare(a.c.StartLine, b.c.StartLine), cmp.Compare(a.c.EndLine, b.c.EndLine), cmp.Compare(a.id, b.id))
	})
	return out
}

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
}

// changedUnits are the units the diff changes that the request allows, by
// their ids, when they have a reserve of their own
// (Options.DiffChangedShare). A unit whose changed lines all lie in
// smaller changed units (a class around a changed method) is left to
// them.
func (r *run) changedUnits() []changedUnit {
	if r.e.opts.DiffChangedShare <= 0 || len(r.diffChanged) == 0 {
		return nil
	}
	if r.req.Mode != ModeReview && r.req.Budget.MaxTokens < r.e.opts.DiffChangedFrom {
		return nil
	}
	var all []changedUnit
	for _, id := range slices.Sorted(maps.Keys(r.diffChanged)) {
		if s := r.get(id); s != nil {
			all = append(all, changedUnit{s, r.diffChanged[id]})
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

// changedFloor is the least reserve of the units a diff changes.
const changedFloor = 120

// cursorContext is how many lines around the cursor a trimmed unit keeps
// as its hits.
const cursorContext = 3

// penalize ranks test, vendored and generated-looking files down — but for
// the unit under the cursor, which is what the request is about whatever
// its file.
func (r *run) penalize() {
	p := r.e.opts.TestPenalty
	if p <= 0 {
		p = 1
	}
	for id, s := range r.scores {
		if id == r.focusChunk {
			continue
		}
		switch pathRole(s.c.Path) {
		case roleTest:
			r.prior(s, p, "a test, fixture or example")
		case roleVendor:
			r.prior(s, p, "vendored or generated code")
		case roleTooling:
			if t := r.e.opts.ToolingPenalty; t > 0 {
				r.prior(s, t, "build, CI or docs tooling")
			}
		}
		if d := r.e.opts.DocPenalty; d > 0 && d != 1 && isProse(s.c) {
			r.prior(s, d, "prose or configuration")
		}
	}
	r.penalizeLiterals()
}

// literalMinLines: a unit shorter than this is not ranked down for its
// literals — a constant that small costs the budget little.
const literalMinLines = 16

// penalizeLiterals ranks down the best candidates that are mostly string
// literals (Options.LiteralPenalty): a license template or an embedded
// page matches many words of a question and takes the room of the code it
// is about. Only the candidates that can reach the assembler are read.
func (r *run) penalizeLiterals() {
	lp := r.e.opts.LiteralPenalty
	if lp <= 0 || lp == 1 {
		return
	}
	top := r.ranked()
	top = top[:min(len(top), r.e.opts.MaxCandidates)]
	for _, s := range top {
		c := s.c
		if s.id == r.focusChunk || isProse(c) || c.EndLine-c.StartLine+1 < literalMinLines {
			continue
		}
		text, ok := r.files().Text(c.Path)
		if !ok || c.StartByte < 0 || c.EndByte > len(text) || c.StartByte >= c.EndByte {
			continue
		}
		if literalShare(text[c.StartByte:c.EndByte]) >= r.e.opts.LiteralShare {
			r.prior(s, lp, "mostly string literals")
			s.literal = true
		}
	}
}

// isProse reports whether a chunk is from a prose, markup or configuration
// file rather than source code.
func isProse(c chunk.Chunk) bool { return !chunk.IsCode(c.Language) }

func isSecondary(path string) bool {
	r := pathRole(path)
	return r == roleTest || r == roleVendor
}

// neighbors adds the chunks before and after the best candidates at half
// their score times the neighbor weight, so that a neighbor ranks below
// the candidate it borders.
func (r *run) neighbors() {
	top := r.ranked()
	if len(top) > r.e.opts.Neighbors {
		top = top[:r.e.opts.Neighbors]
	}
	w := r.weights[ChanNeighbor]
	for _, s := range top {
		cs := r.files().ChunksOf(s.c.Path)
		i := slices.IndexFunc(cs, func(c index.IndexedChunk) bool { return c.ID == s.id })
		if i < 0 {
			continue
		}
		for _, j := range []int{i - 1, i + 1} {
			if j < 0 || j >= len(cs) || cs[j].Kind == chunk.KindHeader {
				continue
			}
			// Skip chunks that contain or are contained in s (nesting).
			if cs[j].StartLine <= s.c.StartLine && cs[j].EndLine >= s.c.EndLine ||
				cs[j].StartLine >= s.c.StartLine && cs[j].EndLine <= s.c.EndLine {
				continue
			}
			n := r.get(cs[j].ID)
			if n == nil {
				continue
			}
			if x := s.score / 2 * w; x > n.score {
				n.channels[ChanNeighbor] += x - n.score
				n.score = x
			}
		}
	}
}

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
	for _, u := range r.changedUnits() {
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
			if r.ambiguousCallers[s.id] || (r.usedOnValue[s.id] && len(r.callSites[s.id]) == 0) {
				// A caller of another unit of that name, or another
				// type's method of that name, maybe: after the sure ones.
				cand.Score *= reviewTier
			} else {
				cand.Score = reviewTier + (1-reviewTier)*cand.Score
			}
			r.reviewShape(s, &cand, refs)
		} else if r.req.Mode == ModeReview {
			cand.Score *= reviewTier
			if _, ok := r.diffChanged[s.id]; !ok && s.id != r.focusChunk {
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
	note := "under review: reached by the change ("
	if r.ambiguousCallers[s.id] {
		note = "under review: reached by the change through a name other units define too ("
	}
	return note + strings.Join(why, "; ") + ")"
}

// reviewPartShare and reviewContext shape a long unit the change reaches
// (reviewShape).
const (
	reviewPartShare = 0.15
	reviewContext   = 3
)

// reviewReach are, under review (ModeReview), the units the change
// reaches (the diff channel's callers of the changed functions and the
// definitions its changed lines use, a type then carrying the fields they
// select) that are not changed units themselves nor tests, best first.
func (r *run) reviewReach(changed map[*scored][]int) []*scored {
	if r.req.Mode != ModeReview {
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
		if _, ok := changed[s]; !ok {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b *scored) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.id, b.id)) })
	return out
}

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

// hitTerms are the lower-cased terms whose lines a trimmed part keeps.
func hitTerms(q Analyzed) []string {
	var out []string
	for _, t := range q.Terms() {
		if len(t) >= 3 {
			out = append(out, strings.ToLower(t))
		}
	}
	return out
}

// hitLines returns the lines of s's chunk that contain one of the terms r.hits
// was reset with (at most maxHitLines, the first ones), whatever their case.
func (r *run) hitLines(s *scored) []int {
	text, ok := r.files().Text(s.c.Path)
	if !ok {
		return nil
	}
	return r.hits.lines(text, s.c.StartLine, s.c.EndLine, s.c.StartByte)
}

// maxHitLines is how many hit lines a candidate carries at most.
const maxHitLines = 16

// hitScratch finds the lines of a chunk that hold a term. It is reset with
// a request's terms and keeps its buffers between the candidates.
type hitScratch struct {
	terms   []string
	byFirst [256][]string // the terms by their first byte
	lower   []byte        // a line, its ASCII letters lower-cased
}

// reset sets the terms (lower-case) the next calls of lines look for.
func (h *hitScratch) reset(terms []string) {
	h.terms = terms
	for i := range h.byFirst {
		h.byFirst[i] = h.byFirst[i][:0]
	}
	for _, t := range terms {
		if t != "" && strings.IndexByte(t, '\n') < 0 { // no line holds a line break
			h.byFirst[t[0]] = append(h.byFirst[t[0]], t)
		}
	}
}

// lines returns the chunk's lines — startLine to endLine of text, the first
// found from the line holding startByte when that is known, else by
// counting lines — that contain a term, at most maxHitLines, in order. A
// line with ASCII bytes only matches a term when its letters lower-cased
// contain it; any other line when strings.ToLower of it does. An ASCII
// line is read once, each byte against the terms that start with it, not
// once per term.
func (h *hitScratch) lines(text string, startLine, endLine, startByte int) []int {
	if len(h.terms) == 0 {
		return nil
	}
	var hits []int
	rest := fromLine(text, startLine, startByte)
	for l := startLine; l <= endLine && rest != "" && len(hits) < maxHitLines; l++ {
		var line string
		line, rest = nextLine(rest)
		if h.holds(line) {
			hits = append(hits, l)
		}
	}
	return hits
}

// fromLine returns text from the first byte of line startLine on ("" past
// its end): from the line holding startByte when that is known (> 0),
// else by counting lines.
func fromLine(text string, startLine, startByte int) string {
	rest, l := text, 1
	if b := startByte; b > 0 && b <= len(text) {
		rest = text[strings.LastIndexByte(text[:b], '\n')+1:]
		l = startLine
	}
	for ; l < startLine && rest != ""; l++ {
		i := strings.IndexByte(rest, '\n')
		if i < 0 {
			return ""
		}
		rest = rest[i+1:]
	}
	return rest
}

// nextLine splits rest's first line (without its line break) from the rest.
func nextLine(rest string) (line, after string) {
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		return rest[:i], rest[i+1:]
	}
	return rest, ""
}

// lineOfChunk is line n of text, read from c's start (n ≥ c.StartLine), ""
// past the text's end.
func lineOfChunk(text string, c chunk.Chunk, n int) string {
	rest := fromLine(text, c.StartLine, c.StartByte)
	for l := c.StartLine; l < n && rest != ""; l++ {
		_, rest = nextLine(rest)
	}
	line, _ := nextLine(rest)
	return line
}

// holds reports whether line holds a term: an ASCII line lower-cased
// letter by letter, any other folded by strings.ToLower.
func (h *hitScratch) holds(line string) bool {
	h.lower = h.lower[:0]
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		case c >= 0x80:
			folded := strings.ToLower(line)
			for _, t := range h.terms {
				if strings.Contains(folded, t) {
					return true
				}
			}
			return false
		}
		h.lower = append(h.lower, c)
	}
	for i, c := range h.lower {
		for _, t := range h.byFirst[c] {
			if len(t) <= len(h.lower)-i && string(h.lower[i:i+len(t)]) == t {
				return true
			}
		}
	}
	return false
}

// isASCII reports whether s has only ASCII bytes.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// unavailableNote says that n files are left out of the index because
// their source (an index store) could not be read: the answer is not
// complete, and they are indexed once it answers.
func unavailableNote(n int) string {
	return fmt.Sprintf("incomplete: %d files could not be read from the index store (it did not answer) and are left out; they are indexed once it answers", n)
}

// noCandidateNote says why a request found nothing at all to consider:
// an index with no file, or one where nothing matched the request (within
// its include / exclude globs, when it has some).
func noCandidateNote(files int, globs bool) string {
	if files == 0 {
		return "the index holds no file: the folder is empty, or its ignore rules and filters leave every file out"
	}
	unit := "files"
	if files == 1 {
		unit = "file"
	}
	note := fmt.Sprintf("no candidate: nothing in the index (%d %s) matches the request's words, focus or diff", files, unit)
	if globs {
		note += " within its include / exclude globs"
	}
	return note
}
