package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/ranges"
	"github.com/ctxls/ctxls/internal/refs"
	"github.com/ctxls/ctxls/internal/retrieve"
)

// Tool names.
const (
	ToolAssemble    = "assemble_context"
	ToolExpand      = "expand_context"
	ToolFindSymbol  = "find_symbol"
	ToolReferences  = "find_references"
	ToolImpact      = "impact"
	ToolIndexStatus = "index_status"
	ToolListRepos   = "list_repos"
)

// DefaultMaxTokens is a call's budget when it gives none.
const DefaultMaxTokens = 8000

// DefaultSymbolTokens is find_symbol's budget when it gives none.
const DefaultSymbolTokens = 2000

// Budget is a call's token budget.
type Budget struct {
	MaxTokens int `json:"maxTokens,omitempty" jsonschema:"the most tokens the returned context may take (default 8000 for assemble_context and expand_context, 2000 for find_symbol); the text is never longer"`
	PerFile   int `json:"perFile,omitempty" jsonschema:"the most tokens any one file may take (0 or absent: no cap)"`
	PerPart   int `json:"perPart,omitempty" jsonschema:"the most tokens any one part may take; longer units are trimmed around their matches (0 or absent: no cap)"`
}

// PartInfo is one part of a context, without its text (the text is the
// call's text content).
type PartInfo struct {
	ID        string         `json:"id" jsonschema:"p1, p2, … in rendered order; rendered as [1], [2], …"`
	Path      string         `json:"path" jsonschema:"slash path relative to the root"`
	Language  string         `json:"language,omitempty"`
	Ranges    []ranges.Range `json:"ranges" jsonschema:"1-based inclusive lines shown (elided lines excluded)"`
	Kind      string         `json:"kind"`
	Level     string         `json:"level" jsonschema:"full, trimmed, skeleton or reference"`
	Symbol    string         `json:"symbol,omitempty"`
	Tokens    int            `json:"tokens"`
	Score     float64        `json:"score"`
	Sources   []string       `json:"sources" jsonschema:"the retrieval channels that found it"`
	Truncated bool           `json:"truncated"`
	Handles   []string       `json:"handles" jsonschema:"handles of the units it shows (for expand_context)"`
	AlsoIn    []string       `json:"alsoIn,omitempty" jsonschema:"other paths with the same content (copies in other repositories of a union, vendored copies), sorted, at most 8; shown once, here"`
	AlsoMore  int            `json:"alsoInMore,omitempty" jsonschema:"how many more paths have the same content than alsoIn names"`
}

// Stats summarize a context: assemble.Stats with the tool's schema (its
// descriptions, and indexState always present); the two have the same
// fields, so that one converts to the other (statsOf) and a field added
// to one and not the other does not compile.
type Stats struct {
	TotalTokens    int    `json:"totalTokens" jsonschema:"tokens of the rendered context"`
	MaxTokens      int    `json:"maxTokens"`
	Files          int    `json:"files"`
	Parts          int    `json:"parts"`
	Candidates     int    `json:"candidates"`
	DedupRemoved   int    `json:"dedupRemoved"`
	TruncatedParts int    `json:"truncatedParts"`
	DroppedParts   int    `json:"droppedParts"`
	Encoding       string `json:"encoding"`
	IndexState     string `json:"indexState" jsonschema:"the index state read (pass it to expand_context as index_state)"`
	IndexComplete  bool   `json:"indexComplete" jsonschema:"false while the root is still being indexed: files not yet indexed may be missing"`
	Note           string `json:"note,omitempty"`
}

// argError is a bad argument: the tool result says which and what is
// allowed, so that a model can correct the call.
func argError(arg, format string, args ...any) error {
	return fmt.Errorf("invalid argument %s: %s", arg, fmt.Sprintf(format, args...))
}

// paramErr turns the engine's parameter errors into argument errors named
// as the tool's arguments are.
func paramErr(err error) error {
	var pe *assemble.ParamError
	if errors.As(err, &pe) {
		field := pe.Field
		switch {
		case strings.HasPrefix(field, "budget"):
			field = "budget"
		case field == "query":
			field = "query/focus/diff"
		}
		return argError(field, "%s", pe.Msg)
	}
	return err
}

var (
	readOnly  = &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(bool)}
	formats   = []any{"markdown", "xml", "json"}
	orderings = []any{"grouped", "interleaved", "score"}
)

// addTools registers the four tools with their schemas.
func (s *Server) addTools() error {
	encodings := make([]any, 0, 3)
	for _, e := range s.opts.Tokens.Known() {
		encodings = append(encodings, e)
	}
	budget := func(sc *jsonschema.Schema) {
		b := sc.Properties["budget"]
		if b == nil {
			return
		}
		for _, k := range []string{"maxTokens", "perFile", "perPart"} {
			if p := b.Properties[k]; p != nil {
				p.Minimum = new(float64)
				p.Maximum = new(float64)
				*p.Maximum = assemble.MaxBudget
			}
		}
		*b.Properties["maxTokens"].Minimum = 1
	}
	enum := func(sc *jsonschema.Schema, prop string, vals []any) {
		if p := sc.Properties[prop]; p != nil {
			p.Enum = vals
		}
	}

	in, err := inputSchema[AssembleInput]()
	if err != nil {
		return err
	}
	budget(in)
	enum(in, "encoding", encodings)
	enum(in, "format", formats)
	enum(in, "strategy", orderings)
	defaults(in, map[string]any{"encoding": retrieve.DefaultEncoding, "format": formats[0], "strategy": orderings[0], "activity": true})
	budgetDefault(in, DefaultMaxTokens)
	sdk.AddTool(s.sdk, &sdk.Tool{
		Name:  ToolAssemble,
		Title: "Assemble context",
		Description: "The code of this workspace to read for a task, ranked, deduplicated and cut to a token budget that is never exceeded. " +
			"Give a question (query), a cursor (focus \"path:line\"), a change (diff text or diff_rev such as main...HEAD), or several. " +
			"Returns the context as text (file paths and line numbers in each part's header) and, as structured content, the parts, " +
			"the candidates left out with handles for expand_context, and stats (indexComplete is false while indexing is still running).",
		InputSchema: in, OutputSchema: outputSchema[AssembleOutput](), Annotations: readOnly,
	}, s.assembleContext)

	in, err = inputSchema[ExpandInput]()
	if err != nil {
		return err
	}
	budget(in)
	enum(in, "encoding", encodings)
	enum(in, "format", formats)
	defaults(in, map[string]any{"encoding": retrieve.DefaultEncoding, "format": formats[0]})
	budgetDefault(in, DefaultMaxTokens)
	sdk.AddTool(s.sdk, &sdk.Tool{
		Name:  ToolExpand,
		Title: "Expand context",
		Description: "The full text of code left out of an earlier assemble_context result: pass its handles (e.g. index/walk.go#L5-60) " +
			"and that result's stats.indexState, or a path and lines. Cut to the budget like assemble_context.",
		InputSchema: in, OutputSchema: outputSchema[ExpandOutput](), Annotations: readOnly,
	}, s.expandContext)

	in, err = inputSchema[FindSymbolInput]()
	if err != nil {
		return err
	}
	budget(in)
	enum(in, "encoding", encodings)
	defaults(in, map[string]any{"encoding": retrieve.DefaultEncoding, "references": false})
	budgetDefault(in, DefaultSymbolTokens)
	sdk.AddTool(s.sdk, &sdk.Tool{
		Name:  ToolFindSymbol,
		Title: "Find symbol",
		Description: "Where a function, method, type, class or variable is defined in this workspace: path, lines, signature and first doc line " +
			"of each definition (best first), and with references=true the code units that use it. Exact names; a qualified name " +
			"(pkg.Func, Type.method) narrows the definitions.",
		InputSchema: in, OutputSchema: outputSchema[FindSymbolOutput](), Annotations: readOnly,
	}, s.findSymbol)

	in, err = inputSchema[FindReferencesInput]()
	if err != nil {
		return err
	}
	budget(in)
	enum(in, "encoding", encodings)
	defaults(in, map[string]any{"encoding": retrieve.DefaultEncoding})
	budgetDefault(in, DefaultReferencesTokens)
	sdk.AddTool(s.sdk, &sdk.Tool{
		Name:  ToolReferences,
		Title: "Find references",
		Description: "The places that use a symbol (Type.Method, pkg.Func, a name) or the name at a position (path, line, column): " +
			"each with path, line, column, the enclosing unit and a kind (call, use, implementation), the definition's package first, " +
			"code before tests, within a token budget (the rest listed with handles for expand_context). Go is resolved by types " +
			"(a Write on an http.ResponseWriter is not your Response.Write); other languages by name (exact=false). " +
			"An ambiguous name is an error listing its candidates.",
		InputSchema: in, OutputSchema: outputSchema[FindReferencesOutput](), Annotations: readOnly,
	}, listingTool(s.findReferences))

	in, err = inputSchema[ImpactInput]()
	if err != nil {
		return err
	}
	budget(in)
	enum(in, "encoding", encodings)
	defaults(in, map[string]any{"encoding": retrieve.DefaultEncoding, "depth": 1})
	budgetDefault(in, DefaultReferencesTokens)
	if p := in.Properties["depth"]; p != nil {
		p.Minimum, p.Maximum = new(float64), new(float64)
		*p.Maximum = refs.MaxDepth
	}
	sdk.AddTool(s.sdk, &sdk.Tool{
		Name:  ToolImpact,
		Title: "Impact of a change",
		Description: "What a change (diff text, or diff_rev such as main...HEAD) reaches, as a list: the units it changes (hop 0), " +
			"the units calling them (or using a changed type) up to depth hops, and the definitions its changed lines use (hop 1), each with the reason, " +
			"within a token budget (the rest listed with handles for expand_context). Go is resolved by types.",
		InputSchema: in, OutputSchema: outputSchema[ImpactOutput](), Annotations: readOnly,
	}, listingTool(s.impact))

	in, err = inputSchema[IndexStatusInput]()
	if err != nil {
		return err
	}
	sdk.AddTool(s.sdk, &sdk.Tool{
		Name:        ToolIndexStatus,
		Title:       "Index status",
		Description: "For each root: files and chunks indexed, whether indexing is complete (and its progress), the index state, when it was last refreshed, whether changes on disk are watched, and files skipped by reason.",
		InputSchema: in, OutputSchema: outputSchema[IndexStatusOutput](), Annotations: readOnly,
	}, s.indexStatus)
	if s.opts.Repos != nil {
		in, err = inputSchema[ListReposInput]()
		if err != nil {
			return err
		}
		sdk.AddTool(s.sdk, &sdk.Tool{
			Name:        ToolListRepos,
			Title:       "List repositories",
			Description: "The repositories of the index store this token may read, with their current generation, files and size: pass a name as the repo argument of the other tools.",
			InputSchema: in, OutputSchema: outputSchema[ListReposOutput](), Annotations: readOnly,
		}, s.listRepos)
	}
	return nil
}

// inputSchema infers an input schema from T (portable).
func inputSchema[T any]() (*jsonschema.Schema, error) {
	sc, err := jsonschema.For[T](nil)
	if err != nil {
		return nil, fmt.Errorf("mcp: input schema: %w", err)
	}
	portable(sc)
	return sc, nil
}

// outputSchema infers a result's schema from T (portable). The results
// never hold a null: lists are empty, never nil, and an object that may be
// missing is an optional property (omitempty), not a null one.
func outputSchema[T any]() *jsonschema.Schema {
	sc, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: output schema of %T: %v", *new(T), err)) // the types are this package's: a bug
	}
	portable(sc)
	return sc
}

// portable rewrites, throughout sc, the ["null", T] types that slices and
// pointers infer to T: a type list is legal JSON Schema but not portable
// (clients that map tool schemas onto a single-type dialect, such as
// Gemini's function declarations, reject or drop it), and an argument
// left out says "none" more simply for a model than null does.
func portable(sc *jsonschema.Schema) {
	if sc == nil {
		return
	}
	if sc.Type == "" && len(sc.Types) == 2 && sc.Types[0] == "null" {
		sc.Type, sc.Types = sc.Types[1], nil
	}
	for _, name := range slices.Sorted(maps.Keys(sc.Properties)) {
		portable(sc.Properties[name])
	}
	portable(sc.Items)
	portable(sc.AdditionalProperties)
	for _, sub := range sc.AnyOf {
		portable(sub)
	}
}

// defaults records, on the arguments of sc named by vals' keys, the value
// an absent argument takes.
func defaults(sc *jsonschema.Schema, vals map[string]any) {
	for _, name := range slices.Sorted(maps.Keys(vals)) {
		if p := sc.Properties[name]; p != nil {
			b, err := json.Marshal(vals[name])
			if err != nil {
				panic(err) // strings and booleans
			}
			p.Default = b
		}
	}
}

// budgetDefault records the budget's defaults: maxTokens (the tool's),
// perFile and perPart (0: no cap).
func budgetDefault(sc *jsonschema.Schema, maxTokens int) {
	if b := sc.Properties["budget"]; b != nil {
		defaults(b, map[string]any{"maxTokens": maxTokens, "perFile": 0, "perPart": 0})
	}
}

// view resolves the root's workspace and waits for its snapshot, sending
// progress notifications while it waits when the client asked for them.
func (s *Server) view(ctx context.Context, req *sdk.CallToolRequest, root string) (*view, error) {
	return s.viewWait(ctx, req, root, 0)
}

// viewWait is view waiting up to wait for the first build when that is
// longer than the server's Options.IndexWait.
func (s *Server) viewWait(ctx context.Context, req *sdk.CallToolRequest, root string, longer time.Duration) (*view, error) {
	for range 3 {
		v, err := s.viewOnce(ctx, req, root, longer)
		if !errors.Is(err, errEvicted) {
			return v, err
		}
	}
	return nil, fmt.Errorf("%s: %w (too many others were asked for meanwhile; try again)", displayRoot(root), errEvicted)
}

// viewOnce is viewWait on the root's space as it is now (errEvicted when
// it is closed before its snapshot is read).
func (s *Server) viewOnce(ctx context.Context, req *sdk.CallToolRequest, root string, longer time.Duration) (*view, error) {
	w, err := s.workspace(ctx, root)
	if err != nil {
		return nil, err
	}
	var tick func()
	if tok := req.Params.GetProgressToken(); tok != nil && req.Session != nil {
		n := 0.0
		tick = func() {
			n++
			p := sdk.ProgressNotificationParams{ProgressToken: tok, Progress: n, Message: "indexing " + displayRoot(root)}
			if pr := w.progress(); pr != nil && pr.FilesTotal > 0 {
				p.Progress, p.Total = float64(pr.FilesDone), float64(pr.FilesTotal)
				p.Message = fmt.Sprintf("indexing %s: %d of %d files", displayRoot(root), pr.FilesDone, pr.FilesTotal)
			}
			_ = req.Session.NotifyProgress(ctx, &p)
		}
	}
	wait := s.opts.IndexWait
	if wait < 0 {
		wait = 0
	}
	return w.acquire(ctx, max(wait, longer), tick)
}

// relPath is retrieve.RootPath with the tool's argument errors.
func relPath(root, p, arg string) (string, error) {
	rel, err := retrieve.RootPath(displayRoot(root), p, arg)
	return rel, paramErr(err)
}

// budgetOf converts a budget argument.
func budgetOf(b *Budget, def int) assemble.Budget {
	out := assemble.Budget{MaxTokens: def}
	if b == nil {
		return out
	}
	if b.MaxTokens != 0 {
		out.MaxTokens = b.MaxTokens
	}
	out.PerFileMaxTokens, out.PerPartMaxTokens = b.PerFile, b.PerPart
	return out
}

// partInfos describes parts without their text.
func partInfos(parts []assemble.Part) []PartInfo {
	out := make([]PartInfo, 0, len(parts))
	for _, p := range parts {
		rs, src, hs := p.Ranges, p.Sources, p.Handles
		if rs == nil {
			rs = []ranges.Range{}
		}
		if src == nil {
			src = []string{}
		}
		if hs == nil {
			hs = []string{}
		}
		out = append(out, PartInfo{ID: p.ID, Path: p.Path, Language: p.Language, Ranges: rs, Kind: p.Kind,
			Level: string(p.Level), Symbol: p.Symbol, Tokens: p.Tokens, Score: p.Score, Sources: src,
			Truncated: p.Truncated, Handles: hs, AlsoIn: p.AlsoIn, AlsoMore: p.AlsoInMore})
	}
	return out
}

// statsOf is a context's stats as the tools give them.
func statsOf(st assemble.Stats) Stats { return Stats(st) }
