package mcp

import (
	"context"
	"errors"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/refs"
	"github.com/ctxls/ctxls/internal/retrieve"
)

// DefaultReferencesTokens is find_references' and impact's budget when
// they give none.
const DefaultReferencesTokens = 2000

// FindReferencesInput is find_references' arguments.
type FindReferencesInput struct {
	Symbol   string   `json:"symbol,omitempty" jsonschema:"the symbol: a name (Normalize), pkg.Func (ranges.Normalize), Type.Method (Index.Close) or Type.field; or give path and line"`
	Path     string   `json:"path,omitempty" jsonschema:"a position instead of symbol: the file, relative to the root"`
	Line     int      `json:"line,omitempty" jsonschema:"the position's 1-based line"`
	Column   int      `json:"column,omitempty" jsonschema:"the position's 1-based byte column (absent: the line's declaration, else its first name)"`
	Budget   *Budget  `json:"budget,omitempty" jsonschema:"token budget of the listing (maxTokens only; default 2000)"`
	Encoding string   `json:"encoding,omitempty" jsonschema:"the tokenizer the budget counts in (default cl100k_base)"`
	Root     string   `json:"root,omitempty" jsonschema:"which root to search when the server has several"`
	Repo     string   `json:"repo,omitempty" jsonschema:"on a server of an index store: the repository to read (list_repos lists them); required when the token may read several"`
	Repos    []string `json:"repos,omitempty" jsonschema:"on a server of an index store: several repositories read as one tree, each repository's paths under its name"`
}

// ReferenceSite is one reference.
type ReferenceSite struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column,omitempty" jsonschema:"1-based byte column of the name"`
	Symbol string `json:"symbol,omitempty" jsonschema:"the enclosing unit"`
	Kind   string `json:"kind" jsonschema:"call, use, or implementation (a call through an interface method it implements)"`
	Exact  bool   `json:"exact" jsonschema:"resolved by the language's types (false: by name)"`
	Handle string `json:"handle" jsonschema:"the enclosing unit: pass to expand_context to read it"`
}

// FindReferencesOutput is find_references' structured result.
type FindReferencesOutput struct {
	Root          string          `json:"root"`
	Target        refs.Target     `json:"target"`
	Exact         bool            `json:"exact" jsonschema:"every reference was resolved by types"`
	References    []ReferenceSite `json:"references" jsonschema:"best first: the definition's package, then code before tests"`
	Total         int             `json:"total"`
	Omitted       []refs.Omitted  `json:"omitted" jsonschema:"the best references the budget left out (at most 40), with handles"`
	OmittedTotal  int             `json:"omittedTotal"`
	Tokens        int             `json:"tokens" jsonschema:"tokens of the text listing"`
	IndexState    string          `json:"indexState"`
	IndexComplete bool            `json:"indexComplete"`
}

// ImpactInput is impact's arguments.
type ImpactInput struct {
	Diff     string   `json:"diff,omitempty" jsonschema:"the change: a unified diff (git diff)"`
	DiffRev  string   `json:"diff_rev,omitempty" jsonschema:"the change: a git revision or range whose diff to use, e.g. HEAD~1 or main...HEAD"`
	Depth    *int     `json:"depth,omitempty" jsonschema:"hops of callers to follow (0 to 5; default 1)"`
	Budget   *Budget  `json:"budget,omitempty" jsonschema:"token budget of the listing (maxTokens only; default 2000)"`
	Encoding string   `json:"encoding,omitempty" jsonschema:"the tokenizer the budget counts in (default cl100k_base)"`
	Root     string   `json:"root,omitempty" jsonschema:"which root to read when the server has several"`
	Repo     string   `json:"repo,omitempty" jsonschema:"on a server of an index store: the repository to read"`
	Repos    []string `json:"repos,omitempty" jsonschema:"on a server of an index store: several repositories read as one tree"`
}

// ImpactOutput is impact's structured result.
type ImpactOutput struct {
	Root          string         `json:"root"`
	Exact         bool           `json:"exact" jsonschema:"every entry was found by types"`
	Reached       []refs.Reached `json:"reached" jsonschema:"by hop: the changed units (0), their callers (a changed type's users) and the definitions the changed lines use"`
	Total         int            `json:"total"`
	Omitted       []refs.Omitted `json:"omitted" jsonschema:"the entries the budget left out (at most 40), with handles"`
	OmittedTotal  int            `json:"omittedTotal"`
	Tokens        int            `json:"tokens" jsonschema:"tokens of the text listing"`
	IndexState    string         `json:"indexState"`
	IndexComplete bool           `json:"indexComplete"`
}

// refsCall is what find_references and impact share: the encoding's
// counter, the budget and the view of the asked root.
func (s *Server) refsCall(ctx context.Context, req *sdk.CallToolRequest, encoding string, b *Budget, root, repo string, repos []string) (*view, string, func(string) int, int, error) {
	if encoding == "" {
		encoding = retrieve.DefaultEncoding
	}
	counter, err := s.opts.Tokens.Get(encoding)
	if err != nil {
		return nil, "", nil, 0, argError("encoding", "%v", err)
	}
	budget := budgetOf(b, DefaultReferencesTokens)
	if err := budget.Validate(); err != nil {
		return nil, "", nil, 0, paramErr(err)
	}
	roots, err := s.callRoots(ctx, req)
	if err != nil {
		return nil, "", nil, 0, err
	}
	target, err := s.target(roots, root, repo, repos, "")
	if err != nil {
		return nil, "", nil, 0, err
	}
	v, err := s.view(ctx, req, target)
	if err != nil {
		return nil, "", nil, 0, err
	}
	return v, target, counter.Count, budget.MaxTokens, nil
}

// findReferences is the find_references tool.
func (s *Server) findReferences(ctx context.Context, req *sdk.CallToolRequest, in FindReferencesInput) (*sdk.CallToolResult, FindReferencesOutput, error) {
	out := FindReferencesOutput{References: []ReferenceSite{}, Omitted: []refs.Omitted{}}
	q := refs.Query{Symbol: strings.TrimSpace(in.Symbol), Path: in.Path, Line: in.Line, Column: in.Column}
	switch {
	case q.Symbol != "" && q.Path != "":
		return nil, out, argError("symbol", "give symbol or path and line, not both")
	case q.Symbol == "" && q.Path == "":
		return nil, out, argError("symbol", "give a symbol (e.g. ranges.Normalize) or a position (path and line)")
	case q.Path != "" && q.Line < 1:
		return nil, out, argError("line", "%d: want a 1-based line with path", q.Line)
	case q.Column < 0:
		return nil, out, argError("column", "%d: want a 1-based column", q.Column)
	}
	v, root, count, maxTokens, err := s.refsCall(ctx, req, in.Encoding, in.Budget, in.Root, in.Repo, in.Repos)
	if err != nil {
		return nil, out, err
	}
	defer v.Done()
	out.Root = displayRoot(root)
	out.IndexState, out.IndexComplete = v.Snap.StateRoot(), v.Snap.Complete()
	res, err := refs.Find(ctx, v.Snap, q)
	if err != nil {
		return nil, out, refsArgErr(err)
	}
	l := res.List(maxTokens, count)
	out.Target, out.Exact, out.Total = res.Target, res.Exact, len(res.Sites)
	for _, st := range res.Sites[:l.Listed] {
		out.References = append(out.References, ReferenceSite{Path: st.Path, Line: st.Line, Column: st.Column, Symbol: st.Symbol,
			Kind: st.Kind, Exact: st.Exact, Handle: st.Handle()})
	}
	if l.Omitted != nil {
		out.Omitted = l.Omitted
	}
	out.OmittedTotal, out.Tokens = l.OmittedTotal, l.Tokens
	return textResult(l.Text), out, nil
}

// impact is the impact tool.
func (s *Server) impact(ctx context.Context, req *sdk.CallToolRequest, in ImpactInput) (*sdk.CallToolResult, ImpactOutput, error) {
	out := ImpactOutput{Reached: []refs.Reached{}, Omitted: []refs.Omitted{}}
	switch {
	case in.Diff != "" && in.DiffRev != "":
		return nil, out, argError("diff_rev", "give diff or diff_rev, not both")
	case in.Diff == "" && in.DiffRev == "":
		return nil, out, argError("diff", "give the change: diff (a unified diff) or diff_rev (a revision or range)")
	case in.DiffRev != "" && s.opts.Repos != nil:
		return nil, out, argError("diff_rev", "a repository of the index store has no git checkout on this server: give the diff itself (diff)")
	case len(in.Diff) > retrieve.MaxDiffBytes:
		return nil, out, argError("diff", "longer than the %s a request may hold", retrieve.SizeText(retrieve.MaxDiffBytes))
	}
	depth := 1
	if in.Depth != nil {
		depth = *in.Depth
	}
	v, root, count, maxTokens, err := s.refsCall(ctx, req, in.Encoding, in.Budget, in.Root, in.Repo, in.Repos)
	if err != nil {
		return nil, out, err
	}
	defer v.Done()
	out.Root = displayRoot(root)
	out.IndexState, out.IndexComplete = v.Snap.StateRoot(), v.Snap.Complete()
	diff := in.Diff
	if in.DiffRev != "" {
		if diff, err = retrieve.DiffOfRev(ctx, root, in.DiffRev, "diff_rev"); err != nil {
			var pe *assemble.ParamError
			if !errors.As(err, &pe) {
				err = &assemble.ParamError{Field: "diff_rev", Msg: err.Error()}
			}
			return nil, out, paramErr(err)
		}
	}
	res, err := refs.Impact(ctx, v.Snap, diff, depth)
	if err != nil {
		return nil, out, refsArgErr(err)
	}
	l := res.List(maxTokens, count)
	out.Exact, out.Total = res.Exact, len(res.Reached)
	out.Reached = append(out.Reached, res.Reached[:l.Listed]...)
	if l.Omitted != nil {
		out.Omitted = l.Omitted
	}
	out.OmittedTotal, out.Tokens = l.OmittedTotal, l.Tokens
	return textResult(l.Text), out, nil
}

// refsArgErr names refs' bad input as the tools' arguments: a position
// is path and line.
func refsArgErr(err error) error {
	var pe *assemble.ParamError
	if errors.As(err, &pe) {
		field := pe.Field
		if field == refs.FieldAt {
			field = "path/line/column"
		}
		return argError(field, "%s", pe.Msg)
	}
	return err
}

func textResult(text string) *sdk.CallToolResult {
	if text == "" {
		text = "(the budget holds nothing)"
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}
