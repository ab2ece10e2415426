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
	// resolver resolves names by types where it can (WithResolver; nil:
	// by name only).
	resolver Resolver
}

// NewEngine returns an engine counting tokens with reg.
func NewEngine(reg *tokens.Registry) *Engine { return NewEngineWith(reg, DefaultOptions()) }

// NewEngineWith returns an engine with explicit options.
func NewEngineWith(reg *tokens.Registry, opts Options) *Engine {
	return &Engine{tokens: reg, opts: opts, files: mustFileModels(), channels: builtinChannels()}
}

// ErrNothingAsked is Plan's error for a request with no query, focus
// or diff (a face may say it in its own words: errors.Is finds it).
var ErrNothingAsked = &assemble.ParamError{Field: "query", Msg: "give at least one of query, focus and diff"}

// Plan checks req and returns its plan: the one check every face makes
// before it waits for an index. Errors are *assemble.ParamError naming
// the field.
func (e *Engine) Plan(req Request) (*Plan, error) {
	diff, out, err := e.validate(&req)
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
	return &Plan{req: req, diff: diff, weights: w, out: out, made: true}, nil
}

// validate checks req and normalises it, returning its diff parsed (nil
// without one) and the assembler's request checked.
func (e *Engine) validate(req *Request) ([]FileDiff, assemble.Checked, error) {
	var none assemble.Checked
	if err := checkSizes(req); err != nil {
		return nil, none, err
	}
	if strings.TrimSpace(req.Query) == "" && req.Focus == nil && strings.TrimSpace(req.Diff) == "" {
		return nil, none, ErrNothingAsked
	}
	out, err := assemble.Request{Budget: req.Budget, Format: req.Format, Strategy: req.Strategy}.Check()
	if err != nil {
		return nil, none, err
	}
	req.Format, req.Strategy = out.Request().Format, out.Request().Strategy
	if req.Encoding == "" {
		req.Encoding = DefaultEncoding
	}
	if err := e.tokens.Check(req.Encoding); err != nil {
		return nil, none, &assemble.ParamError{Field: "encoding", Msg: err.Error()}
	}
	if f := req.Focus; f != nil {
		if f.Path == "" {
			return nil, none, &assemble.ParamError{Field: "focus", Msg: "focus needs a path"}
		}
		if f.Line < 1 {
			return nil, none, &assemble.ParamError{Field: "focus", Msg: fmt.Sprintf("focus line must be ≥ 1, got %d", f.Line)}
		}
	}
	for _, g := range append(slices.Clone(req.Include), req.Exclude...) {
		if !doublestar.ValidatePattern(g) {
			field := "include"
			if slices.Contains(req.Exclude, g) {
				field = "exclude"
			}
			return nil, none, &assemble.ParamError{Field: field, Msg: fmt.Sprintf("bad glob %q", g)}
		}
	}
	var diff []FileDiff
	if req.Diff != "" {
		if diff, err = ParseDiff(req.Diff); err != nil {
			return nil, none, &assemble.ParamError{Field: "diff", Msg: err.Error()}
		}
	}
	if req.Mode, err = ParseMode(string(req.Mode)); err != nil {
		return nil, none, &assemble.ParamError{Field: "mode", Msg: err.Error()}
	}
	if req.Mode == ModeReview && len(diff) == 0 {
		return nil, none, &assemble.ParamError{Field: "mode", Msg: "mode review needs a diff"}
	}
	if err := checkWeights(weightsOf(e.channels), req.Weights); err != nil {
		return nil, none, &assemble.ParamError{Field: "weights", Msg: err.Error()}
	}
	return diff, out, nil
}

// WantsSemantic reports whether the semantic channel can add to req: it
// has text (a question or a diff) and the channel's weight for it (the
// default, for a diff times Options.SemanticDiffScale, or the request's
// own) is above 0. A caller loads or computes the vectors only then.
func (e *Engine) WantsSemantic(req *Request) bool {
	return e.semanticWeight(req) > 0 && hasText(req)
}

// hasText reports whether req has words to search: a question or a diff.
func hasText(req *Request) bool {
	return strings.TrimSpace(req.Query) != "" || strings.TrimSpace(req.Diff) != ""
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
	if p == nil || !p.made {
		return nil, errNoPlan
	}
	req := p.req
	counter, err := e.tokens.Get(req.Encoding)
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", req.Encoding, err)
	}
	focus, note, err := p.focusIn(snap)
	if err != nil {
		return nil, err
	}
	req.Focus = focus
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
	out := p.out.WithPolicy(policy)
	maxTokens := out.Request().Budget.MaxTokens
	share := e.opts.PerFileShare
	if req.Focus != nil {
		share = e.opts.CursorPerFileShare
	}
	if share > 0 && maxTokens >= e.opts.PerFileMinBudget {
		out = out.WithPerFileCap(int(share * float64(maxTokens)))
	}
	// The cursor's own code and the units a diff changes are paid for
	// first (trimmed around the cursor or the changed lines when they are
	// long); what they leave goes to the rest.
	for _, rs := range []struct {
		name string
		n    int
	}{
		{cursorReserve, cursorBudget(maxTokens, e.opts.CursorShare)},
		{changedReserve, changedBudget(maxTokens, e.opts.DiffChangedShare, e.opts.DiffChangedFullFrom)},
	} {
		name, n := rs.name, rs.n
		if n > 0 && slices.ContainsFunc(cands, func(c assemble.Candidate) bool { return c.Reserve == name }) {
			out = out.WithReserve(name, n)
		}
	}
	res, err := assemble.AssembleChecked(ctx, out, cands, r.files(), counter)
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
	for _, n := range req.Notes {
		note = strings.TrimPrefix(note+"; "+n, "; ")
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
