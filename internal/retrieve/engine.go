package retrieve

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/tokens"
)

// DefaultEncoding is the encoding used when a request names none.
const DefaultEncoding = "cl100k_base"

// Engine runs requests. It is safe for concurrent use.
type Engine struct {
	tokens *tokens.Registry
	opts   Options
	files  fileModels // the file model's weights (filemodel.json)
	// channels are the engine's channels, in the order they run
	// (builtinChannels).
	channels []channel
}

// NewEngine returns an engine counting tokens with reg.
func NewEngine(reg *tokens.Registry) *Engine { return NewEngineWith(reg, DefaultOptions()) }

// NewEngineWith returns an engine with explicit options.
func NewEngineWith(reg *tokens.Registry, opts Options) *Engine {
	return &Engine{tokens: reg, opts: opts, files: mustFileModels(), channels: builtinChannels()}
}

// ErrNothingAsked is Validate's error for a request with no query, focus
// or diff (a face may say it in its own words: errors.Is finds it).
var ErrNothingAsked = &assemble.ParamError{Field: "query", Msg: "give at least one of query, focus and diff"}

// Validate checks a request's parameters without running it, and
// normalises them (the default format, strategy and encoding filled in):
// the one check every face makes before it waits for an index. Errors are
// *assemble.ParamError naming the field. A face that keeps the Plan
// (Engine.Plan, then AssemblePlan) has its request checked once.
func (e *Engine) Validate(req *Request) error {
	p, err := e.Plan(*req)
	if err != nil {
		return err
	}
	*req = p.Request
	return nil
}

// Plan is a request Validate checked: its parameters normalised, its diff
// parsed, its channels' weights resolved. AssemblePlan runs it without
// checking it again.
type Plan struct {
	// Request is the checked request, normalised (format, strategy,
	// encoding and mode filled in). The workspace's state — History,
	// Semantic, Activity — may be set on it after the check.
	Request
	// diff is Request.Diff parsed (nil without one).
	diff []FileDiff
	// weights are the channels' weights for the request: the defaults,
	// the diff's graph weight (Options.DiffGraphWeight), the semantic
	// channel's (semanticWeight), then the request's own.
	weights map[string]float64
}

// Plan checks req (as Validate does) and returns its plan.
func (e *Engine) Plan(req Request) (*Plan, error) {
	diff, err := e.validate(&req)
	if err != nil {
		return nil, err
	}
	w := weightsOf(e.channels)
	if req.Diff != "" && e.opts.DiffGraphWeight > 0 {
		w[ChanGraph] = e.opts.DiffGraphWeight
	}
	w[ChanSemantic] = e.semanticWeight(&req)
	for k, v := range req.Weights {
		w[k] = v
	}
	return &Plan{Request: req, diff: diff, weights: w}, nil
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
	if err := checkWeights(weightsOf(e.channels), req.Weights); err != nil {
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

// SemanticUnasked says why the semantic channel has nothing to add to req
// ("" when it has: WantsSemantic): the request has no text to compare
// with the vectors (a cursor alone), or the channel's weight for it is 0
// (the request's weights, or a diff's scale, Options.SemanticDiffScale).
// --explain prints it instead of calling the vectors missing.
func (e *Engine) SemanticUnasked(req *Request) string {
	switch {
	case e.WantsSemantic(req):
		return ""
	case strings.TrimSpace(req.Query) == "" && strings.TrimSpace(req.Diff) == "":
		return "not asked (a cursor alone has no text to compare with the vectors)"
	case func() bool { _, ok := req.Weights[ChanSemantic]; return ok }():
		return "not asked (its weight is 0 by --weights)"
	case req.Diff != "" && e.opts.SemanticDiffScale <= 0:
		return "not asked (a diff's weight for it is 0: the vectors add nothing the diff's own channels do not find)"
	}
	return "not asked (its weight is 0)"
}

// semanticWeight is the semantic channel's weight for req: the default,
// for a diff times Options.SemanticDiffScale, unless the request gives
// its own.
func (e *Engine) semanticWeight(req *Request) float64 {
	if v, ok := req.Weights[ChanSemantic]; ok {
		return v
	}
	w := weightsOf(e.channels)[ChanSemantic]
	if req.Diff != "" {
		w *= e.opts.SemanticDiffScale
	}
	return w
}

// Assemble retrieves candidates for req from snap and assembles them.
func (e *Engine) Assemble(ctx context.Context, snap *index.Snapshot, req Request) (*Response, error) {
	p, err := e.Plan(req)
	if err != nil {
		return nil, err
	}
	return e.AssemblePlan(ctx, snap, p)
}

// AssemblePlan retrieves candidates for a checked request from snap and
// assembles them. The plan's focus file must be in snap (or snap still
// indexing: it is answered without the focus, and says so).
func (e *Engine) AssemblePlan(ctx context.Context, snap *index.Snapshot, p *Plan) (*Response, error) {
	req := p.Request
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
	r := &run{e: e, ctx: ctx, snap: snap, req: req, diffFiles: p.diff, weights: maps.Clone(p.weights), scores: map[index.ChunkID]*scored{}}
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
	if req.Mode == ModeReview {
		if n := removedNote(r.removedUnits()); n != "" {
			res.Stats.Note = strings.TrimPrefix(res.Stats.Note+"; "+n, "; ")
		}
	}
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
