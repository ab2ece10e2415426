package lsp

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/retrieve"
	"github.com/ctxls/ctxls/internal/wire"
	"github.com/ctxls/ctxls/internal/workspace"
)

// AssembleResult is context/assemble's result: the engine's response
// (parts, rendered, stats, omitted, explain) plus timing.
type AssembleResult struct {
	*retrieve.Response
	// Parts are the response's parts with their uri and range.
	Parts  []wire.Part `json:"parts"`
	Timing Timing      `json:"timing"`
}

// Timing says how long the server took; it is the only part of a result
// that is not deterministic.
type Timing struct {
	ElapsedMs float64 `json:"elapsedMs"`
}

// contextAssemble handles the protocol's "context/assemble" request
// (docs/protocol.md): it checks the
// params (InvalidParams naming the field), picks the folder (the focus's,
// else the last edited document's, else the first), reads one snapshot
// that includes every change sent before the request, and runs the engine.
// The snapshot is then held for context/expand.
func (s *session) contextAssemble(ctx *requestCtx, params json.RawMessage) (any, error) {
	start := time.Now()
	settings := s.currentSettings()
	var p AssembleParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	plan, f, err := s.assembleRequest(ctx, p, settings)
	if err != nil {
		return nil, err
	}
	v, err := f.acquire(ctx, settings.IndexWait)
	if err != nil {
		return nil, err
	}
	kept := false
	defer func() {
		if !kept { // an error, or a panic in the engine
			v.Done()
		}
	}()
	v.Attach(ctx, plan, workspace.Signals{
		History:    !settings.NoGitHistory,
		Embeddings: cmp.Or(settings.Embeddings, s.opts.Embeddings),
		Endpoint:   cmp.Or(settings.EmbeddingsEndpoint, s.opts.EmbeddingsEndpoint),
		Logf: func(format string, args ...any) {
			msg := fmt.Sprintf("ctxls: %s: "+format, append([]any{f.name}, args...)...)
			s.logf("%s", msg)
			s.logMessage(messageTypeInfo, msg)
		},
	})
	if !settings.NoActivity && (p.Activity == nil || *p.Activity) && ctx.act != nil {
		plan.SetActivity(ctx.act.snapshot(func(abs string) (string, bool) {
			g, r, ok := ctx.folderOf(abs)
			return r, ok && g == f
		}))
	}
	resp, err := s.opts.Engine.AssemblePlan(ctx, v.Snap, plan)
	if err != nil {
		return nil, err
	}
	v.Keep(resultHandles(resp.Result))
	kept = true
	return AssembleResult{Response: resp, Parts: wireParts(f, resp.Result), Timing: elapsed(start)}, nil
}

// assembleRequest turns context/assemble's params into a request over
// the session's settings, checked by the engine (its plan), and picks the
// folder that answers (the focus's, else the default one). The focus is
// an editor's position: the plan converts and checks it in the text the
// client meant, the open buffer as it was when the request arrived, else
// the indexed file (retrieve.EditorPosition).
func (s *session) assembleRequest(ctx *requestCtx, p AssembleParams, settings Settings) (*retrieve.Plan, *folder, error) {
	req := retrieve.Request{
		Query: orDefault(p.Query, ""), Diff: orDefault(p.Diff, ""), Explain: p.Explain, Weights: settings.Weights, Conversation: p.History,
		Encoding: orDefault(p.Encoding, settings.Encoding),
		Format:   assemble.Format(orDefault(p.Format, string(settings.Format))),
		Strategy: assemble.Strategy(orDefault(p.Strategy, string(settings.Strategy))),
		Mode:     retrieve.Mode(orDefault(p.Mode, "")),
		Include:  settings.Include,
		Exclude:  append(append([]string(nil), settings.Exclude...), p.Exclude...),
	}
	if p.Include != nil {
		req.Include = p.Include
	}
	focus, err := decodeFocus(p.Focus)
	if err != nil {
		return nil, nil, err
	}
	if req.Budget, err = decodeBudget(p.Budget, settings.Budget); err != nil {
		return nil, nil, err
	}
	var f *folder
	if p.Repo != nil || p.Repos != nil {
		if f, err = s.repoFolder(ctx, p.Repo, p.Repos); err != nil {
			return nil, nil, err
		}
	}
	if focus != nil {
		if f == nil && s.opts.Repos != nil && strings.HasPrefix(focus.URI, storeScheme) {
			// A store's file by its ctxls-store: URI.
			if f, err = s.storeFolderOfURI(ctx, focus.URI, "focus.uri"); err != nil {
				return nil, nil, err
			}
		}
		var rel string
		if f, rel, err = requestFolderIn(ctx, focus, f); err != nil {
			return nil, nil, err
		}
		buf, open := ctx.docs[joinPath(f.root, rel)]
		req.Focus = &retrieve.Focus{Path: rel, Line: focus.Position.Line + 1, Col: focus.Position.Character + 1,
			Editor: &retrieve.EditorPosition{Line: focus.Position.Line, Character: focus.Position.Character, URI: focus.URI, Buffer: buf, Open: open}}
	}
	plan, err := s.opts.Engine.Plan(req)
	if err != nil {
		return nil, nil, err
	}
	if f == nil {
		if f, _, err = requestFolder(ctx, nil); err != nil {
			return nil, nil, err
		}
	}
	return plan, f, nil
}

// requestFolderIn is requestFolder when the request named its folder
// (named, not nil: a store's repository): the focus must be in it, by its
// URI (folder.relOf).
func requestFolderIn(ctx *requestCtx, focus *FocusParam, named *folder) (*folder, string, error) {
	if named == nil {
		return requestFolder(ctx, focus)
	}
	if rel, ok := named.relOf(focus.URI); ok {
		return named, rel, nil
	}
	return nil, "", paramError("focus.uri", "%s is not in %s (%s)", focus.URI, named.name, named.uriHint())
}

// relURI returns the slash path of uri below base ("dir" in base/dir).
func relURI(base, uri string) (string, bool) {
	rest, ok := strings.CutPrefix(uri, strings.TrimSuffix(base, "/")+"/")
	if !ok || rest == "" {
		return "", false
	}
	rel, err := url.PathUnescape(rest)
	if err != nil || path.Clean(rel) != rel || strings.HasPrefix(rel, "../") || rel == ".." {
		return "", false
	}
	return rel, true
}

// requestFolder picks the folder that answers, among those open when the
// request arrived: the focus's (an error when it is outside every folder),
// else the default folder.
func requestFolder(ctx *requestCtx, focus *FocusParam) (*folder, string, error) {
	if focus == nil {
		if f := ctx.defaultFolder(); f != nil {
			return f, "", nil
		}
		return nil, "", errNoFolder(methodContextAssemble, ctx.folderNotes)
	}
	// A store's repository is found by its URI, not by a local path.
	if f := storeFolderIn(ctx.folders, focus.URI); f != nil {
		rel, _ := f.relOf(focus.URI)
		return f, rel, nil
	}
	p, err := uriToPath(focus.URI)
	if err != nil {
		return nil, "", paramError("focus.uri", "%v", err)
	}
	f, rel, ok := ctx.folderOf(p)
	if !ok {
		return nil, "", paramError("focus.uri", "%s is outside every workspace folder (folders: %s)", focus.URI, ctx.folderNames())
	}
	return f, rel, nil
}

// wireParts are res's parts with their uri (the folder's URI and the
// part's path) and range; it makes res's lists non-nil arrays.
func wireParts(f *folder, res *assemble.Result) []wire.Part {
	if res.Omitted == nil {
		res.Omitted = []assemble.Omitted{}
	}
	return wire.Parts(res.Parts, f.partURI)
}

// resultHandles lists the handles a result names (parts and omissions):
// what a later context/expand may ask for.
func resultHandles(res *assemble.Result) []string {
	var hs []string
	for _, p := range res.Parts {
		hs = append(hs, p.Handles...)
	}
	for _, o := range res.Omitted {
		hs = append(hs, o.Handle)
	}
	return hs
}

// elapsed is the time since start, in milliseconds to 0.01.
func elapsed(start time.Time) Timing {
	ms := float64(time.Since(start).Microseconds()) / 1000
	return Timing{ElapsedMs: math.Round(ms*100) / 100}
}
