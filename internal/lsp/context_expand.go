package lsp

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/retrieve"
	"github.com/ctxls/ctxls/internal/wire"
)

// ExpandResult is context/expand's result: the parts in full, stats (whose
// indexState names the state read), timing, and whether that state is the
// one the handles came from.
type ExpandResult struct {
	*assemble.Result
	// Parts are the result's parts with their uri and range.
	Parts []wire.Part `json:"parts"`
	// FromHeldState is true when the answer was read from a state held
	// since an earlier context/assemble (the one named by indexState, or
	// the newest whose results listed the handles), false when from the
	// current state.
	FromHeldState bool   `json:"fromHeldState"`
	Timing        Timing `json:"timing"`
}

// contextExpand handles "context/expand": handles from an earlier result
// (or a uri and lines) come back in full, under the budget, from the same
// index state when it is still held, else from the current one.
func (s *session) contextExpand(ctx *requestCtx, params json.RawMessage) (any, error) {
	start := time.Now()
	settings := s.currentSettings()
	var p ExpandParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	req := retrieve.ExpandRequest{Handles: p.Handles, Encoding: orDefault(p.Encoding, settings.Encoding)}
	req.Format = assemble.Format(orDefault(p.Format, string(settings.Format)))
	var err error
	if req.Budget, err = decodeBudget(p.Budget, settings.Budget); err != nil {
		return nil, err
	}
	var f *folder
	if p.Repo != nil || p.Repos != nil {
		if f, err = s.repoFolder(ctx, p.Repo, p.Repos); err != nil {
			return nil, err
		}
	}
	if p.URI != "" && f == nil {
		// A store's file: by the URI of a folder naming its repository,
		// or by its ctxls-store: URI.
		f = storeFolderIn(ctx.folders, p.URI)
		if f == nil && s.opts.Repos != nil && strings.HasPrefix(p.URI, storeScheme) {
			if f, err = s.storeFolderOfURI(ctx, p.URI, "uri"); err != nil {
				return nil, err
			}
		}
	}
	if p.URI != "" && f != nil {
		var ok bool
		if req.Path, ok = f.relOf(p.URI); !ok {
			return nil, paramError("uri", "%s is not in %s (%s)", p.URI, f.name, f.uriHint())
		}
		if req.Ranges, err = decodeExpandRange(p.Range); err != nil {
			return nil, err
		}
		req.Ranges = append(req.Ranges, p.Ranges...)
	} else if p.URI != "" {
		path, err := uriToPath(p.URI)
		if err != nil {
			return nil, paramError("uri", "%v", err)
		}
		var ok bool
		if f, req.Path, ok = ctx.folderOf(path); !ok {
			return nil, paramError("uri", "%s is outside every workspace folder (folders: %s)", p.URI, ctx.folderNames())
		}
		if req.Ranges, err = decodeExpandRange(p.Range); err != nil {
			return nil, err
		}
		req.Ranges = append(req.Ranges, p.Ranges...)
	}
	plan, err := s.opts.Engine.PlanExpand(req)
	if err != nil {
		return nil, err
	}

	v, err := s.expandView(ctx, f, p.IndexState, p.Handles, settings)
	if err != nil {
		return nil, err
	}
	defer v.Done()
	res, err := s.opts.Engine.ExpandPlan(ctx, v.Snap, plan)
	if err != nil {
		return nil, err
	}
	if p.IndexState != "" && !v.Borrowed() {
		note := "index state " + p.IndexState + " is no longer held: answered from the current state"
		if res.Stats.Note != "" {
			note = res.Stats.Note + "; " + note
		}
		res.Stats.Note = note
	}
	return ExpandResult{Result: res, Parts: wireParts(v.f, res), FromHeldState: v.Borrowed(), Timing: elapsed(start)}, nil
}

// expandView picks the snapshot an expand reads: a held state (named, or
// the newest whose results listed the handles) of f — or of any of the
// request's folders when f is nil — else f's current state (f defaults to
// the folder whose index has the first handle's file, else the default
// folder).
func (s *session) expandView(ctx *requestCtx, f *folder, state string, handles []string, settings Settings) (*view, error) {
	candidates := ctx.folders
	if f != nil {
		candidates = []*folder{f}
	}
	for _, g := range candidates {
		if v := g.acquireHeld(ctx, state, handles); v != nil {
			return v, nil
		}
	}
	if f == nil && len(handles) > 0 {
		path, _, _ := assemble.ParseHandle(handles[0])
		for _, g := range candidates {
			v, err := g.acquire(ctx, settings.IndexWait)
			if err != nil {
				continue
			}
			if _, ok := v.Snap.Stat(path); ok {
				return v, nil
			}
			v.Done()
		}
	}
	if f == nil {
		if f = ctx.defaultFolder(); f == nil {
			return nil, errNoFolder(methodContextExpand, ctx.folderNotes)
		}
	}
	return f.acquire(ctx, settings.IndexWait)
}
