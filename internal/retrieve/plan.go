package retrieve

import (
	"errors"
	"fmt"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/history"
	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/semantic"
	"github.com/ctxls/ctxls/internal/textpos"
)

// Plan is a request Engine.Plan checked: its parameters normalised, its
// diff parsed, its channels' weights resolved, its budget, format and
// strategy checked for the assembler. Only Engine.Plan makes one, and
// AssemblePlan runs it without checking it again: each face checks a
// request once. What a face adds after the check — the workspace's
// history and vectors, the session's activity — goes through the plan's
// setters; the checked parameters cannot be changed.
type Plan struct {
	req Request
	// diff is the request's diff parsed (nil without one).
	diff []FileDiff
	// weights are the channels' weights for the request: the defaults,
	// the diff's graph weight (Options.DiffGraphWeight), the semantic
	// channel's (semanticWeight), then the request's own.
	weights map[string]float64
	// out is the assembler's request, checked (budget, format, strategy).
	out assemble.Checked
	// made is set by Engine.Plan: a Plan built elsewhere is refused.
	made bool
}

// Request returns the checked request, normalised (format, strategy,
// encoding and mode filled in), with what the setters added.
func (p *Plan) Request() Request { return p.req }

// WantsHistory reports whether the request's weights leave the history
// channel on (Request.WantsHistory).
func (p *Plan) WantsHistory() bool { return p.req.WantsHistory() }

// WantsSemantic reports whether the semantic channel can add to the
// request (Engine.WantsSemantic): a caller loads or computes the vectors
// only then.
func (p *Plan) WantsSemantic() bool {
	return p.weights[ChanSemantic] > 0 && hasText(&p.req)
}

// SemanticUnasked says why the semantic channel has nothing to add to the
// request ("" when it has: WantsSemantic): the request has no text to
// compare with the vectors (a cursor alone), or the channel's weight for
// it is 0 (the request's weights, or a diff's scale,
// Options.SemanticDiffScale). --explain prints it instead of calling the
// vectors missing.
func (p *Plan) SemanticUnasked() string {
	_, own := p.req.Weights[ChanSemantic]
	switch {
	case p.WantsSemantic():
		return ""
	case !hasText(&p.req):
		return "not asked (a cursor alone has no text to compare with the vectors)"
	case own:
		return "not asked (its weight is 0 by --weights)"
	case p.req.Diff != "":
		return "not asked (a diff's weight for it is 0: the vectors add nothing the diff's own channels do not find)"
	}
	return "not asked (its weight is 0)"
}

// SetHistory gives the request the workspace's git history (nil: none).
func (p *Plan) SetHistory(h *history.Log) { p.req.History = h }

// SetSemantic gives the request the workspace's chunk vectors (nil: none).
func (p *Plan) SetSemantic(s *semantic.Store) { p.req.Semantic = s }

// AddNote adds what the caller says of the workspace besides the index
// (a signal it cannot give) to the answer's note (Request.Notes).
func (p *Plan) AddNote(note string) { p.req.Notes = append(p.req.Notes, note) }

// SetActivity gives the request the editor session's activity (nil: none).
func (p *Plan) SetActivity(a *Activity) { p.req.Activity = a }

// TakeTokens narrows the request's budget by n tokens that the face
// spends on text of its own around the context (kept at 1 token at
// least).
func (p *Plan) TakeTokens(n int) {
	p.out = p.out.WithMaxTokens(p.req.Budget.MaxTokens - n)
	p.req.Budget.MaxTokens = p.out.Request().Budget.MaxTokens
}

// errNoPlan is AssemblePlan's error for a Plan that Engine.Plan did not
// make.
var errNoPlan = errors.New("retrieve: the plan was not made by Engine.Plan")

// focusIn is the one check of a request's focus, made on the snapshot the
// request reads: the focus that runs (nil: answered without it, with the
// note saying why), or a *assemble.ParamError naming the field.
//
// An editor's focus (Focus.Editor) is converted first, in the open buffer
// as it was sent, else in the indexed file: a line past the end is
// refused, the UTF-16 character becomes a byte column. Then the file must
// be indexed (a snapshot still indexing answers without the focus), and a
// focus given as path:line must be within its file's lines.
func (p *Plan) focusIn(snap *index.Snapshot) (*Focus, string, error) {
	return CheckFocus(snap, p.req.Focus)
}

// CheckFocus is the one check of a focus in snap (the plan's, and any
// other request's that names a position, such as a references query):
// the focus that runs (nil: answered without it, the note saying why), or
// a *assemble.ParamError naming the field. See Plan.focusIn.
func CheckFocus(snap *index.Snapshot, f *Focus) (*Focus, string, error) {
	if f == nil {
		return nil, "", nil
	}
	out := *f
	out.Editor = nil
	if e := f.Editor; e != nil {
		text, ok := e.Buffer, e.Open
		if !ok {
			file, err := snap.File(f.Path)
			switch {
			case err == nil:
				text, ok = file.Text, true
			case errors.Is(err, index.ErrNotFound) && snap.Complete():
				return nil, "", &assemble.ParamError{Field: "focus.uri", Msg: fmt.Sprintf("%s is not indexed (ignored, excluded, binary or too large)", e.URI)}
			}
			// Otherwise not indexed yet, stale or unreadable: the check
			// below answers without it, or runs with the column as given.
		}
		if ok {
			start, in := textpos.LineStart(text, e.Line)
			if !in {
				return nil, "", &assemble.ParamError{Field: "focus.position.line", Msg: fmt.Sprintf("line %d is past the end of %s (%d lines, 0-based)", e.Line, f.Path, textpos.LineCount(text))}
			}
			out.Col = textpos.LineColumn(text, start, e.Character) + 1
		}
	}
	if _, ok := snap.Stat(f.Path); !ok {
		if snap.Complete() {
			return nil, "", &assemble.ParamError{Field: "focus", Msg: fmt.Sprintf("%s is not indexed (missing, outside the workspace, ignored, binary or too large)", f.Path)}
		}
		// Still indexing: answer from what is indexed, without the focus.
		return nil, fmt.Sprintf("the focus file %s is not indexed yet (indexing in progress); answered without it", f.Path), nil
	}
	if f.Editor == nil {
		if file, err := snap.File(f.Path); err == nil {
			if n, past := f.PastEnd(file.Text); past {
				return nil, "", &assemble.ParamError{Field: "focus", Msg: fmt.Sprintf("line %d is past the end of %s (%d lines)", f.Line, f.Path, n)}
			}
		}
	}
	return &out, "", nil
}
