package lsp

import (
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/refs"
	"github.com/ctxls/ctxls/internal/retrieve"
)

// ReferencesParams are context/references' params: a symbol, or a focus
// (a document's URI and a 0-based position, as context/assemble's).
type ReferencesParams struct {
	Symbol   *string         `json:"symbol"`
	Focus    json.RawMessage `json:"focus"`
	Budget   json.RawMessage `json:"budget"`
	Encoding *string         `json:"encoding"`
	Repo     *string         `json:"repo"`
	Repos    []string        `json:"repos"`
}

// ImpactParams are context/impact's params: a unified diff and how many
// hops of callers to follow (default 1).
type ImpactParams struct {
	Diff     *string         `json:"diff"`
	Depth    *int            `json:"depth"`
	Budget   json.RawMessage `json:"budget"`
	Encoding *string         `json:"encoding"`
	Repo     *string         `json:"repo"`
	Repos    []string        `json:"repos"`
}

// ReferenceSite is one reference of context/references' result.
type ReferenceSite struct {
	URI    string `json:"uri"`
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column,omitempty"`
	Symbol string `json:"symbol,omitempty"`
	Kind   string `json:"kind"`
	Exact  bool   `json:"exact"`
	Handle string `json:"handle"`
}

// ReferencesResult is context/references' result.
type ReferencesResult struct {
	Target       refs.Target     `json:"target"`
	Exact        bool            `json:"exact"`
	References   []ReferenceSite `json:"references"`
	Total        int             `json:"total"`
	Text         string          `json:"text"`
	Tokens       int             `json:"tokens"`
	Omitted      []refs.Omitted  `json:"omitted"`
	OmittedTotal int             `json:"omittedTotal"`
	IndexState   string          `json:"indexState"`
	Timing       Timing          `json:"timing"`
}

// ImpactResult is context/impact's result.
type ImpactResult struct {
	Exact        bool           `json:"exact"`
	Reached      []refs.Reached `json:"reached"`
	Total        int            `json:"total"`
	Text         string         `json:"text"`
	Tokens       int            `json:"tokens"`
	Omitted      []refs.Omitted `json:"omitted"`
	OmittedTotal int            `json:"omittedTotal"`
	IndexState   string         `json:"indexState"`
	Timing       Timing         `json:"timing"`
}

// refsFolder picks the folder a context/references or context/impact
// request reads: the named repository's, the focus's, else the default.
func (s *session) refsFolder(ctx *requestCtx, repo *string, repos []string, focus *FocusParam) (*folder, string, error) {
	var f *folder
	var err error
	if repo != nil || repos != nil {
		if f, err = s.repoFolder(ctx, repo, repos); err != nil {
			return nil, "", err
		}
	}
	if focus == nil {
		if f == nil {
			if f, _, err = requestFolder(ctx, nil); err != nil {
				return nil, "", err
			}
		}
		return f, "", nil
	}
	if f == nil && s.opts.Repos != nil && strings.HasPrefix(focus.URI, storeScheme) {
		if f, err = s.storeFolderOfURI(ctx, focus.URI, "focus.uri"); err != nil {
			return nil, "", err
		}
	}
	return requestFolderIn(ctx, focus, f)
}

// contextReferences handles "context/references": the places that use a
// symbol or the name at a position (package refs), listed within the
// budget.
func (s *session) contextReferences(ctx *requestCtx, params json.RawMessage) (any, error) {
	start := time.Now()
	settings := s.currentSettings()
	var p ReferencesParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	focus, err := decodeFocus(p.Focus)
	if err != nil {
		return nil, err
	}
	symbol := strings.TrimSpace(orDefault(p.Symbol, ""))
	switch {
	case symbol != "" && focus != nil:
		return nil, paramError("symbol", "give symbol or focus, not both")
	case symbol == "" && focus == nil:
		return nil, paramError("symbol", "give a symbol (e.g. ranges.Normalize) or a focus (uri and position)")
	}
	maxTokens, count, f, rel, v, err := s.listView(ctx, p.Budget, p.Encoding, p.Repo, p.Repos, focus, settings)
	if err != nil {
		return nil, err
	}
	defer v.Done()
	q := refs.Query{Symbol: symbol}
	if focus != nil {
		buf, open := ctx.docs[joinPath(f.root, rel)]
		fc, note, err := retrieve.CheckFocus(v.Snap, &retrieve.Focus{Path: rel, Line: focus.Position.Line + 1, Col: focus.Position.Character + 1,
			Editor: &retrieve.EditorPosition{Line: focus.Position.Line, Character: focus.Position.Character, URI: focus.URI, Buffer: buf, Open: open}})
		switch {
		case err != nil:
			return nil, err
		case fc == nil:
			return nil, paramError("focus.uri", "%s", note) // no position to ask about yet
		}
		q.Path, q.Line, q.Column = fc.Path, fc.Line, fc.Col
	}
	res, err := refs.Find(ctx, v.Snap, q)
	var pe *assemble.ParamError
	if errors.As(err, &pe) && pe.Field == refs.FieldAt {
		return nil, paramError("focus", "%s", pe.Msg) // the position is the focus
	} else if err != nil {
		return nil, err
	}
	l := res.List(maxTokens, count)
	out := ReferencesResult{Target: res.Target, Exact: res.Exact, References: []ReferenceSite{}, Total: len(res.Sites),
		Text: l.Text, Tokens: l.Tokens, Omitted: l.Omitted, OmittedTotal: l.OmittedTotal, IndexState: v.Snap.StateRoot()}
	for _, st := range res.Sites[:l.Listed] {
		out.References = append(out.References, ReferenceSite{URI: f.partURI(st.Path), Path: st.Path, Line: st.Line, Column: st.Column,
			Symbol: st.Symbol, Kind: st.Kind, Exact: st.Exact, Handle: st.Handle()})
	}
	if out.Omitted == nil {
		out.Omitted = []refs.Omitted{}
	}
	out.Timing = elapsed(start)
	return out, nil
}

// contextImpact handles "context/impact": what a diff reaches (package
// refs), listed within the budget.
func (s *session) contextImpact(ctx *requestCtx, params json.RawMessage) (any, error) {
	start := time.Now()
	settings := s.currentSettings()
	var p ImpactParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	diff := orDefault(p.Diff, "")
	if strings.TrimSpace(diff) == "" {
		return nil, paramError("diff", "required: a unified diff (git diff)")
	}
	if len(diff) > retrieve.MaxDiffBytes {
		return nil, paramError("diff", "longer than the %s a request may hold", retrieve.SizeText(retrieve.MaxDiffBytes))
	}
	depth := 1
	if p.Depth != nil {
		depth = *p.Depth
	}
	maxTokens, count, _, _, v, err := s.listView(ctx, p.Budget, p.Encoding, p.Repo, p.Repos, nil, settings)
	if err != nil {
		return nil, err
	}
	defer v.Done()
	res, err := refs.Impact(ctx, v.Snap, diff, depth)
	if err != nil {
		return nil, err
	}
	l := res.List(maxTokens, count)
	out := ImpactResult{Exact: res.Exact, Reached: append([]refs.Reached{}, res.Reached[:l.Listed]...), Total: len(res.Reached),
		Text: l.Text, Tokens: l.Tokens, Omitted: l.Omitted, OmittedTotal: l.OmittedTotal, IndexState: v.Snap.StateRoot()}
	if out.Omitted == nil {
		out.Omitted = []refs.Omitted{}
	}
	out.Timing = elapsed(start)
	return out, nil
}

// listView is what context/references and context/impact do before
// asking package refs: the request's budget (the session's by default)
// and its encoding's counter, the folder it reads (refsFolder; rel is the
// focus's path in it), and a view of that folder's index, which the
// caller releases (Done).
func (s *session) listView(ctx *requestCtx, raw json.RawMessage, encoding, repo *string, repos []string, focus *FocusParam, settings Settings) (maxTokens int, count func(string) int, f *folder, rel string, v *view, err error) {
	budget, err := decodeBudget(raw, settings.Budget)
	if err != nil {
		return 0, nil, nil, "", nil, err
	}
	counter, err := s.tokens.Get(orDefault(encoding, settings.Encoding))
	if err != nil {
		return 0, nil, nil, "", nil, paramError("encoding", "%v", err)
	}
	if f, rel, err = s.refsFolder(ctx, repo, repos, focus); err != nil {
		return 0, nil, nil, "", nil, err
	}
	if v, err = f.acquire(ctx, settings.IndexWait); err != nil {
		return 0, nil, nil, "", nil, err
	}
	return budget.MaxTokens, counter.Count, f, rel, v, nil
}
