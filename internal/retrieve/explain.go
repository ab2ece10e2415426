package retrieve

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/ranges"
)

// explain lists, for every part and omitted candidate, the channels that
// brought it and their contributions.
func (r *run) explain(res *assemble.Result) []Explanation {
	byHandle := map[string]*scored{}
	for _, s := range r.scores {
		byHandle[assemble.Handle(s.c.Path, []ranges.Range{{Start: s.c.StartLine, End: s.c.EndLine}})] = s
	}
	for h, s := range r.candHandles {
		if _, ok := byHandle[h]; !ok {
			byHandle[h] = s
		}
	}
	// A reached unit cut around its calls (reviewShape) or a long unit
	// cut to its matched lines (Options.CutShare), then stitched by the
	// assembler, has a handle of its own: the smallest
	// unit of its file that holds its lines explains it.
	var byPath map[string][]*scored
	within := func(handle string) *scored {
		p, rs, err := assemble.ParseHandle(handle)
		if err != nil || len(rs) == 0 {
			return nil
		}
		if byPath == nil {
			byPath = map[string][]*scored{}
			for _, s := range r.scores {
				byPath[s.c.Path] = append(byPath[s.c.Path], s)
			}
		}
		lo, hi := rs[0].Start, rs[len(rs)-1].End
		var best *scored
		for _, s := range byPath[p] {
			if s.c.StartLine > lo || s.c.EndLine < hi {
				continue
			}
			span, bestSpan := s.c.EndLine-s.c.StartLine, 0
			if best != nil {
				bestSpan = best.c.EndLine - best.c.StartLine
			}
			if best == nil || span < bestSpan || (span == bestSpan && s.id < best.id) {
				best = s
			}
		}
		return best
	}
	var out []Explanation
	add := func(handle, part, reason string, score float64) {
		s := byHandle[handle]
		if s == nil && (r.req.Mode == ModeReview || r.shaped) && !r.mapHandles[handle] {
			s = within(handle)
		}
		e := Explanation{Handle: handle, Part: part, Reason: reason, Score: score, Channels: map[string]float64{}}
		if s != nil {
			e.Path, e.Symbol = s.c.Path, symbolOf(s.c)
			for k, v := range s.channels {
				e.Channels[k] = v
			}
			e.Priors = slices.Clone(s.priors)
			e.FileFeatures = maps.Clone(r.fileFeats[s.c.Path])
			switch {
			case s.id == r.focusChunk:
				e.Focus = "the unit under the cursor"
			case r.focusDefs[s.id] != "":
				e.Focus = r.focusDefs[s.id]
			}
		}
		if p, _, err := assemble.ParseHandle(handle); err == nil && e.Path == "" {
			e.Path = p
			if why, ok := r.mapFiles[p]; ok && s == nil {
				e.Focus = why
			}
		}
		out = append(out, e)
	}
	for _, p := range res.Parts {
		for _, h := range p.Handles {
			add(h, p.ID, "", p.Score)
		}
	}
	for _, o := range res.Omitted {
		add(o.Handle, "", o.Reason, o.Score)
	}
	return out
}

// ExpandRequest asks for parts in full: by handles from an earlier result's
// omitted list (or part handles), or by a path and line ranges.
type ExpandRequest struct {
	Handles  []string
	Path     string
	Ranges   []ranges.Range
	Budget   assemble.Budget
	Format   assemble.Format
	Encoding string
}

// ExpandPlan is an expand request Engine.PlanExpand checked: its
// handles parsed, its budget and format checked for the assembler, its
// encoding known. Only PlanExpand makes one; ExpandPlan runs it without
// checking it again.
type ExpandPlan struct {
	req   ExpandRequest
	wants []expandWant
	out   assemble.Checked
	made  bool
}

// expandWant is one thing an expand asks for: a path's lines.
type expandWant struct {
	path string
	rs   []ranges.Range
}

// PlanExpand checks an expand request's parameters without running it,
// and normalises them (default format and encoding): handles that parse,
// or a path with lines; a budget, format and encoding the engine knows.
// Errors are *assemble.ParamError naming the field.
func (e *Engine) PlanExpand(req ExpandRequest) (*ExpandPlan, error) {
	if req.Encoding == "" {
		req.Encoding = DefaultEncoding
	}
	if err := e.tokens.Check(req.Encoding); err != nil {
		return nil, &assemble.ParamError{Field: "encoding", Msg: err.Error()}
	}
	var err error
	if req.Format, err = assemble.ParseFormat(string(req.Format)); err != nil {
		return nil, err
	}
	policy := assemble.DefaultPolicy()
	policy.Levels = false
	out, err := assemble.Request{Budget: req.Budget, Format: req.Format, Strategy: assemble.ByScore, Policy: policy}.Check()
	if err != nil {
		return nil, err
	}
	var wants []expandWant
	for _, h := range req.Handles {
		p, rs, err := assemble.ParseHandle(h)
		if err != nil {
			return nil, err
		}
		wants = append(wants, expandWant{p, rs})
	}
	if req.Path != "" && len(req.Ranges) == 0 {
		return nil, &assemble.ParamError{Field: "range", Msg: "give the lines to expand"}
	}
	if req.Path == "" && len(req.Handles) == 0 {
		return nil, &assemble.ParamError{Field: "handles", Msg: "give handles, or a uri and a range"}
	}
	if req.Path != "" {
		wants = append(wants, expandWant{req.Path, req.Ranges})
	}
	return &ExpandPlan{req: req, wants: wants, out: out, made: true}, nil
}

// Expand returns the named lines in full (as far as the budget allows), in
// the order asked: PlanExpand, then ExpandPlan.
func (e *Engine) Expand(ctx context.Context, snap *index.Snapshot, req ExpandRequest) (*assemble.Result, error) {
	p, err := e.PlanExpand(req)
	if err != nil {
		return nil, err
	}
	return e.ExpandPlan(ctx, snap, p)
}

// ExpandPlan runs a checked expand request on snap.
func (e *Engine) ExpandPlan(ctx context.Context, snap *index.Snapshot, p *ExpandPlan) (*assemble.Result, error) {
	if p == nil || !p.made {
		return nil, errNoPlan
	}
	counter, err := e.tokens.Get(p.req.Encoding)
	if err != nil {
		return nil, &assemble.ParamError{Field: "encoding", Msg: err.Error()}
	}
	wants := p.wants
	cands := make([]assemble.Candidate, 0, len(wants))
	for i, w := range wants {
		if _, ok := snap.Stat(w.path); !ok {
			return nil, &assemble.ParamError{Field: "handles", Msg: fmt.Sprintf("%s is not in the index", w.path)}
		}
		cands = append(cands, assemble.Candidate{Path: w.path, Ranges: slices.Clone(w.rs), Score: 1 - float64(i)/float64(len(wants)+1), Sources: []string{"expand"}})
	}
	res, err := assemble.AssembleChecked(ctx, p.out, cands, newSnapFiles(snap), counter)
	if err != nil {
		return nil, err
	}
	res.Stats.IndexState = snap.StateRoot()
	res.Stats.IndexComplete = snap.Complete()
	return res, nil
}
