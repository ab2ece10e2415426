package mcp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/assemble"
	"github.com/ctxls/ctxls/gitdiff"
	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/ranges"
	"github.com/ctxls/ctxls/retrieve"
	"github.com/ctxls/ctxls/semantic"
	"github.com/ctxls/ctxls/tokens"
)

// Tool names.
const (
	ToolAssemble    = "assemble_context"
	ToolExpand      = "expand_context"
	ToolFindSymbol  = "find_symbol"
	ToolIndexStatus = "index_status"
)

// DefaultMaxTokens is a call's budget when it gives none.
const DefaultMaxTokens = 8000

// DefaultSymbolTokens is find_symbol's budget when it gives none.
const DefaultSymbolTokens = 2000

// maxOmittedListed bounds the omitted candidates a result lists (the best
// first); omittedTotal says how many there were.
const maxOmittedListed = 40

// maxHandlesShown is how many omitted handles the text content names for
// the model to expand.
const maxHandlesShown = 8

// Budget is a call's token budget.
type Budget struct {
	MaxTokens int `json:"maxTokens,omitempty" jsonschema:"the most tokens the returned context may take (default 8000 for assemble_context and expand_context, 2000 for find_symbol); the text is never longer"`
	PerFile   int `json:"perFile,omitempty" jsonschema:"the most tokens any one file may take (0 or absent: no cap)"`
	PerPart   int `json:"perPart,omitempty" jsonschema:"the most tokens any one part may take; longer units are trimmed around their matches (0 or absent: no cap)"`
}

// AssembleInput is assemble_context's arguments.
type AssembleInput struct {
	Query    string   `json:"query,omitempty" jsonschema:"the question or task in words, e.g. 'how are overlapping line ranges merged' or a commit message"`
	Focus    string   `json:"focus,omitempty" jsonschema:"the cursor as path:line or path:line:col (1-based; the path relative to the root, or absolute inside it): the code around it and the definitions it uses come first"`
	Diff     string   `json:"diff,omitempty" jsonschema:"a unified diff (the output of git diff): the changed code, what it calls and what calls it"`
	DiffRev  string   `json:"diff_rev,omitempty" jsonschema:"a git revision or range whose diff to use instead of diff, e.g. HEAD~1, main...HEAD (changes since the merge base) or main..HEAD"`
	Budget   *Budget  `json:"budget,omitempty" jsonschema:"token budget of the returned context"`
	Encoding string   `json:"encoding,omitempty" jsonschema:"the tokenizer the budget counts in (default cl100k_base)"`
	Format   string   `json:"format,omitempty" jsonschema:"how the context is rendered (default markdown)"`
	Strategy string   `json:"strategy,omitempty" jsonschema:"order of the parts: grouped by file (default), interleaved across files, or strictly by score"`
	Include  []string `json:"include,omitempty" jsonschema:"only paths matching one of these globs, e.g. **/*.go"`
	Exclude  []string `json:"exclude,omitempty" jsonschema:"leave out paths matching these globs, e.g. **/testdata/**"`
	Root     string   `json:"root,omitempty" jsonschema:"which root to read when the server has several (a path or a root's directory name); default: the focus's root, else the first"`
	History  []string `json:"history,omitempty" jsonschema:"earlier turns of the conversation, newest last: their identifiers and words are a weaker query than query"`
	Activity *bool    `json:"activity,omitempty" jsonschema:"false leaves out the session's activity (the files changed on disk since the server started, most recent first, as a prior); default true"`
	Wait     int      `json:"wait_seconds,omitempty" jsonschema:"while the root's first index build runs, wait up to this many seconds (at most 600) for it to finish instead of the server's default of a few seconds; an answer from a partial index says so"`
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
}

// OmittedInfo is a candidate left out of a context.
type OmittedInfo struct {
	Handle string         `json:"handle" jsonschema:"pass to expand_context to read it"`
	Path   string         `json:"path"`
	Ranges []ranges.Range `json:"ranges"`
	Symbol string         `json:"symbol,omitempty"`
	Tokens int            `json:"tokens" jsonschema:"its full cost (0 when never counted)"`
	Score  float64        `json:"score"`
	Reason string         `json:"reason"`
}

// Stats summarize a context.
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

// AssembleOutput is assemble_context's structured result.
type AssembleOutput struct {
	Root         string        `json:"root"`
	Parts        []PartInfo    `json:"parts"`
	Omitted      []OmittedInfo `json:"omitted" jsonschema:"the best candidates left out, best first (at most 40)"`
	OmittedTotal int           `json:"omittedTotal" jsonschema:"how many candidates were left out in all"`
	Stats        Stats         `json:"stats"`
	ElapsedMs    float64       `json:"elapsedMs"`
}

// ExpandInput is expand_context's arguments.
type ExpandInput struct {
	Handles    []string `json:"handles,omitempty" jsonschema:"handles from an earlier result (parts' or omitted candidates'), e.g. index/walk.go#L5-60"`
	Path       string   `json:"path,omitempty" jsonschema:"a file (relative to the root, or absolute inside it) to read lines of, instead of handles"`
	Lines      string   `json:"lines,omitempty" jsonschema:"with path: 1-based inclusive line ranges, e.g. 12-40 or 12-40,55-60"`
	IndexState string   `json:"index_state,omitempty" jsonschema:"the indexState of the result the handles came from: read that state when it is still held"`
	Budget     *Budget  `json:"budget,omitempty"`
	Encoding   string   `json:"encoding,omitempty"`
	Format     string   `json:"format,omitempty"`
	Root       string   `json:"root,omitempty" jsonschema:"which root to read when the server has several"`
}

// ExpandOutput is expand_context's structured result.
type ExpandOutput struct {
	Root          string     `json:"root"`
	Parts         []PartInfo `json:"parts"`
	Stats         Stats      `json:"stats"`
	FromHeldState bool       `json:"fromHeldState" jsonschema:"true when read from the state the handles came from, false when from the current state"`
}

// FindSymbolInput is find_symbol's arguments.
type FindSymbolInput struct {
	Name       string  `json:"name" jsonschema:"a name (Stitch, parse_request) or a qualified name (ranges.Stitch, Server.handle)"`
	References bool    `json:"references,omitempty" jsonschema:"also list the code units that use the name"`
	Budget     *Budget `json:"budget,omitempty" jsonschema:"token budget of the listing (maxTokens only; default 2000)"`
	Encoding   string  `json:"encoding,omitempty"`
	Root       string  `json:"root,omitempty" jsonschema:"which root to search when the server has several"`
}

// SymbolDef is one definition.
type SymbolDef struct {
	Path          string `json:"path"`
	StartLine     int    `json:"startLine"`
	EndLine       int    `json:"endLine"`
	Kind          string `json:"kind"`
	Symbol        string `json:"symbol"`
	QualifiedName string `json:"qualifiedName,omitempty"`
	Language      string `json:"language"`
	Signature     string `json:"signature"`
	Doc           string `json:"doc,omitempty" jsonschema:"the first line of its doc comment"`
	Handle        string `json:"handle" jsonschema:"pass to expand_context to read the whole unit"`
}

// SymbolRef is one code unit that references the name.
type SymbolRef struct {
	Path      string `json:"path"`
	StartLine int    `json:"startLine"`
	EndLine   int    `json:"endLine"`
	Symbol    string `json:"symbol,omitempty" jsonschema:"the enclosing unit"`
	Handle    string `json:"handle"`
}

// FindSymbolOutput is find_symbol's structured result.
type FindSymbolOutput struct {
	Root             string      `json:"root"`
	Name             string      `json:"name"`
	Definitions      []SymbolDef `json:"definitions"`
	References       []SymbolRef `json:"references"`
	TotalDefinitions int         `json:"totalDefinitions"`
	TotalReferences  int         `json:"totalReferences"`
	Tokens           int         `json:"tokens" jsonschema:"tokens of the text listing"`
	Truncated        bool        `json:"truncated" jsonschema:"true when the budget left some out"`
	IndexState       string      `json:"indexState"`
	IndexComplete    bool        `json:"indexComplete"`
}

// IndexStatusInput is index_status's arguments.
type IndexStatusInput struct {
	Root string `json:"root,omitempty" jsonschema:"only this root"`
}

// Progress is a build's progress.
type Progress struct {
	FilesDone  int `json:"filesDone"`
	FilesTotal int `json:"filesTotal"`
	Chunks     int `json:"chunks"`
}

// RootStatus is one root's index state.
type RootStatus struct {
	Root           string         `json:"root"`
	State          string         `json:"state" jsonschema:"opening, building (answers may miss files), ready or failed"`
	Complete       bool           `json:"complete"`
	Files          int            `json:"files"`
	Chunks         int            `json:"chunks"`
	StateRoot      string         `json:"stateRoot,omitempty"`
	Progress       *Progress      `json:"progress,omitempty"`
	LastMode       string         `json:"lastMode,omitempty" jsonschema:"how the index was last brought up to date: build, refresh or open"`
	BuildReason    string         `json:"buildReason,omitempty" jsonschema:"why a full build was needed"`
	LastRefresh    string         `json:"lastRefresh,omitempty" jsonschema:"when the index was last opened or refreshed from disk (RFC 3339)"`
	Skipped        map[string]int `json:"skipped" jsonschema:"files left out, by reason"`
	Watching       bool           `json:"watching" jsonschema:"changes on disk are watched (else each call refreshes first)"`
	WatchNote      string         `json:"watchNote,omitempty"`
	PendingChanges int            `json:"pendingChanges"`
	CacheDir       string         `json:"cacheDir,omitempty"`
	Warnings       []string       `json:"warnings,omitempty" jsonschema:"what the user should know, e.g. that the cache directory cannot be written, so the index is kept in memory and nothing is saved"`
	Error          string         `json:"error,omitempty"`
}

// IndexStatusOutput is index_status's structured result.
type IndexStatusOutput struct {
	Roots []RootStatus `json:"roots"`
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
	sdk.AddTool(s.sdk, &sdk.Tool{
		Name:  ToolAssemble,
		Title: "Assemble context",
		Description: "The code of this workspace to read for a task, ranked, deduplicated and cut to a token budget that is never exceeded. " +
			"Give a question (query), a cursor (focus \"path:line\"), a change (diff text or diff_rev such as main...HEAD), or several. " +
			"Returns the context as text (file paths and line numbers in each part's header) and, as structured content, the parts, " +
			"the candidates left out with handles for expand_context, and stats (indexComplete is false while indexing is still running).",
		InputSchema: in, Annotations: readOnly,
	}, s.assembleContext)

	in, err = inputSchema[ExpandInput]()
	if err != nil {
		return err
	}
	budget(in)
	enum(in, "encoding", encodings)
	enum(in, "format", formats)
	sdk.AddTool(s.sdk, &sdk.Tool{
		Name:  ToolExpand,
		Title: "Expand context",
		Description: "The full text of code left out of an earlier assemble_context result: pass its handles (e.g. index/walk.go#L5-60) " +
			"and that result's stats.indexState, or a path and lines. Cut to the budget like assemble_context.",
		InputSchema: in, Annotations: readOnly,
	}, s.expandContext)

	in, err = inputSchema[FindSymbolInput]()
	if err != nil {
		return err
	}
	budget(in)
	enum(in, "encoding", encodings)
	sdk.AddTool(s.sdk, &sdk.Tool{
		Name:  ToolFindSymbol,
		Title: "Find symbol",
		Description: "Where a function, method, type, class or variable is defined in this workspace: path, lines, signature and first doc line " +
			"of each definition (best first), and with references=true the code units that use it. Exact names; a qualified name " +
			"(pkg.Func, Type.method) narrows the definitions.",
		InputSchema: in, Annotations: readOnly,
	}, s.findSymbol)

	in, err = inputSchema[IndexStatusInput]()
	if err != nil {
		return err
	}
	sdk.AddTool(s.sdk, &sdk.Tool{
		Name:        ToolIndexStatus,
		Title:       "Index status",
		Description: "For each root: files and chunks indexed, whether indexing is complete (and its progress), the index state, when it was last refreshed, whether changes on disk are watched, and files skipped by reason.",
		InputSchema: in, Annotations: readOnly,
	}, s.indexStatus)
	return nil
}

// inputSchema infers an input schema from T.
func inputSchema[T any]() (*jsonschema.Schema, error) {
	sc, err := jsonschema.For[T](nil)
	if err != nil {
		return nil, fmt.Errorf("mcp: input schema: %w", err)
	}
	// Optional slices and pointers infer ["null", T]: an absent argument
	// says the same more simply for a model.
	for _, p := range sc.Properties {
		if p.Type == "" && len(p.Types) == 2 && p.Types[0] == "null" {
			p.Type, p.Types = p.Types[1], nil
		}
	}
	return sc, nil
}

// assembleContext is the assemble_context tool.
func (s *Server) assembleContext(ctx context.Context, req *sdk.CallToolRequest, in AssembleInput) (*sdk.CallToolResult, AssembleOutput, error) {
	start := time.Now()
	var out AssembleOutput
	if strings.TrimSpace(in.Query) == "" && in.Focus == "" && strings.TrimSpace(in.Diff) == "" && in.DiffRev == "" {
		return nil, out, argError("query", "give at least one of query, focus, diff and diff_rev")
	}
	if in.Diff != "" && in.DiffRev != "" {
		return nil, out, argError("diff_rev", "give diff or diff_rev, not both")
	}
	roots, err := s.roots(ctx, req.Session)
	if err != nil {
		return nil, out, err
	}
	var focusPath string
	var focusLine, focusCol int
	if in.Focus != "" {
		if focusPath, focusLine, focusCol, err = retrieve.ParseFocus(in.Focus); err != nil {
			return nil, out, paramErr(err)
		}
	}
	abs := ""
	if filepath.IsAbs(focusPath) {
		abs = focusPath
	}
	root, err := pickRoot(roots, in.Root, abs)
	if err != nil {
		return nil, out, err
	}
	r := retrieve.Request{
		Query: in.Query, Diff: in.Diff, Encoding: in.Encoding,
		Format: assemble.Format(in.Format), Strategy: assemble.Strategy(in.Strategy),
		Include: in.Include, Exclude: in.Exclude, Budget: budgetOf(in.Budget, DefaultMaxTokens),
		Conversation: in.History,
	}
	if in.Focus != "" {
		rel, err := relPath(root, focusPath, "focus")
		if err != nil {
			return nil, out, err
		}
		r.Focus = &retrieve.Focus{Path: rel, Line: focusLine, Col: focusCol}
	}
	if in.DiffRev != "" {
		if r.Diff, err = gitDiff(ctx, root, in.DiffRev); err != nil {
			return nil, out, err
		}
		if strings.TrimSpace(r.Diff) == "" && strings.TrimSpace(r.Query) == "" && r.Focus == nil {
			return nil, out, argError("diff_rev", "git diff %s is empty in %s: nothing changed", in.DiffRev, root)
		}
	}
	if err := s.opts.Engine.Validate(&r); err != nil {
		return nil, out, paramErr(err)
	}
	if in.Wait < 0 || in.Wait > maxWaitSeconds {
		return nil, out, argError("wait_seconds", "%d: want 0 to %d", in.Wait, maxWaitSeconds)
	}
	v, err := s.viewWait(ctx, req, root, time.Duration(in.Wait)*time.Second)
	if err != nil {
		return nil, out, err
	}
	kept := false
	defer func() {
		if !kept {
			v.done()
		}
	}()
	if r.Focus != nil {
		if err := checkFocusLine(v.snap, r.Focus); err != nil {
			return nil, out, err
		}
	}
	if !s.opts.NoGitHistory && r.WantsHistory() {
		r.History = v.w.history(ctx)
	}
	if in.Activity == nil || *in.Activity {
		r.Activity = v.w.activity()
	}
	if ep, use := semantic.Resolve(s.opts.Embeddings, s.opts.EmbeddingsEndpoint); use && s.opts.Engine.WantsSemantic(&r) {
		r.Semantic = v.w.semantic(ctx, v.snap, ep)
	}
	counter, err := s.opts.Tokens.Get(r.Encoding)
	if err != nil {
		return nil, out, argError("encoding", "%v", err)
	}
	// The whole text is what the model reads, and all of it stays within
	// the budget: a partial index's note comes first and its tokens are
	// taken from the context's budget (an answer from a partial index
	// differs from the complete one anyway); the left-out handles get
	// what the context leaves.
	budget := r.Budget.MaxTokens
	partial := partialNote(root, v)
	if partial != "" {
		if n := counter.Count(partial); n < budget/2 {
			r.Budget.MaxTokens -= n
		} else {
			partial = ""
		}
	}
	resp, err := s.opts.Engine.Assemble(ctx, v.snap, r)
	if err != nil {
		return nil, out, paramErr(err)
	}
	v.keep()
	kept = true
	out = AssembleOutput{
		Root: root, Parts: partInfos(resp.Parts), Stats: statsOf(resp.Stats),
		OmittedTotal: len(resp.Omitted), Omitted: []OmittedInfo{},
	}
	for i, o := range resp.Omitted {
		if i == maxOmittedListed {
			break
		}
		rs := o.Ranges
		if rs == nil {
			rs = []ranges.Range{}
		}
		out.Omitted = append(out.Omitted, OmittedInfo{Handle: o.Handle, Path: o.Path, Ranges: rs, Symbol: o.Symbol,
			Tokens: o.Tokens, Score: o.Score, Reason: o.Reason})
	}
	out.Stats.MaxTokens = budget
	out.ElapsedMs = float64(time.Since(start).Microseconds()) / 1000
	text := partial + resp.Rendered
	if resp.Rendered == "" {
		// An empty context says why, within the budget when it can.
		why := "(nothing to show"
		if out.Stats.Note != "" {
			why += ": " + out.Stats.Note
		}
		why += ")\n"
		if counter.Count(text+why) <= budget {
			text += why
		}
	}
	content := []sdk.Content{&sdk.TextContent{Text: text}}
	if more := omittedNote(out.Omitted, out.OmittedTotal, out.Stats.IndexState, budget-counter.Count(text), counter); more != "" {
		content = append(content, &sdk.TextContent{Text: more})
	}
	return &sdk.CallToolResult{Content: content}, out, nil
}

// maxWaitSeconds bounds a call's wait_seconds.
const maxWaitSeconds = 600

// partialNote is the line that opens the text of an answer from an index
// still being built (its first build, or one the call did not wait for to
// finish): how far it is, and what to do. "" when the index is complete.
func partialNote(root string, v *view) string {
	if v.snap.Complete() {
		return ""
	}
	far := ""
	if pr := v.w.progress.Load(); pr != nil && pr.FilesTotal > 0 {
		far = fmt.Sprintf(" (%d of %d files so far)", pr.FilesDone, pr.FilesTotal)
	}
	return fmt.Sprintf("Note: the index of %s is still being built%s; this context is from the part indexed so far and may miss code. Call again shortly, or with wait_seconds, for a complete answer.\n\n",
		assemble.InlineText(root), far)
}

// omittedNote names the best omitted candidates for the model to expand,
// within room tokens (what the context left of the budget): as many of
// the first maxHandlesShown as fit under the heading, or nothing when not
// even one does. Every line ends with "\n" and the next starts with '-',
// so the note's tokens are its lines' sum (tokens.Counter's additivity).
func omittedNote(om []OmittedInfo, total int, state string, room int, counter tokens.Counter) string {
	var lines []string
	used := 0
	for _, o := range om {
		if o.Tokens == 0 || len(lines) == maxHandlesShown+1 {
			continue
		}
		if len(lines) == 0 {
			head := fmt.Sprintf("Left out (%d candidates); read any with expand_context {\"handles\": [...], \"index_state\": %q}:\n", total, state)
			lines = append(lines, head)
			used += counter.Count(head)
		}
		sym := ""
		if o.Symbol != "" {
			sym = " " + o.Symbol
		}
		line := fmt.Sprintf("- %s (%d tokens, %s)\n", assemble.InlineText(o.Handle+sym), o.Tokens, o.Reason)
		n := counter.Count(line)
		if used+n > room {
			break
		}
		lines = append(lines, line)
		used += n
	}
	if len(lines) < 2 {
		return ""
	}
	note := strings.Join(lines, "")
	for len(lines) > 1 && counter.Count(note) > room { // never expected: the lines' sum held
		lines = lines[:len(lines)-1]
		note = strings.Join(lines, "")
	}
	if len(lines) < 2 {
		return ""
	}
	return note
}

// view resolves the root's workspace and waits for its snapshot, sending
// progress notifications while it waits when the client asked for them.
func (s *Server) view(ctx context.Context, req *sdk.CallToolRequest, root string) (*view, error) {
	return s.viewWait(ctx, req, root, 0)
}

// viewWait is view waiting up to wait for the first build when that is
// longer than the server's Options.IndexWait.
func (s *Server) viewWait(ctx context.Context, req *sdk.CallToolRequest, root string, longer time.Duration) (*view, error) {
	w, err := s.workspace(root)
	if err != nil {
		return nil, err
	}
	var tick func()
	if tok := req.Params.GetProgressToken(); tok != nil && req.Session != nil {
		n := 0.0
		tick = func() {
			n++
			p := sdk.ProgressNotificationParams{ProgressToken: tok, Progress: n, Message: "indexing " + root}
			if pr := w.progress.Load(); pr != nil && pr.FilesTotal > 0 {
				p.Progress, p.Total = float64(pr.FilesDone), float64(pr.FilesTotal)
				p.Message = fmt.Sprintf("indexing %s: %d of %d files", root, pr.FilesDone, pr.FilesTotal)
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
	rel, err := retrieve.RootPath(root, p, arg)
	return rel, paramErr(err)
}

// checkFocusLine checks the focus against the indexed file.
func checkFocusLine(snap *index.Snapshot, f *retrieve.Focus) error {
	file, err := snap.File(f.Path)
	if err != nil {
		if errors.Is(err, index.ErrNotFound) {
			if snap.Complete() {
				return argError("focus", "%s is not indexed (missing, ignored, excluded, binary or too large)", f.Path)
			}
			return nil // not indexed yet: the engine answers without it
		}
		return nil // stale: the engine decides
	}
	if n, past := f.PastEnd(file.Text); past {
		return argError("focus", "line %d is past the end of %s (%d lines)", f.Line, f.Path, n)
	}
	return nil
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

// gitDiff runs `git diff REV` in root (package gitdiff); a bad revision
// is a bad diff_rev argument.
func gitDiff(ctx context.Context, root, rev string) (string, error) {
	out, err := gitdiff.Diff(ctx, root, rev, retrieve.MaxDiffBytes)
	var re *gitdiff.RevError
	var tl *gitdiff.TooLargeError
	switch {
	case errors.As(err, &tl):
		return "", argError("diff_rev", "git diff %s is longer than the %s a request may hold", rev, retrieve.SizeText(tl.Limit))
	case errors.As(err, &re):
		return "", argError("diff_rev", "%s (want a revision or range such as HEAD~1 or main...HEAD)", re.Error())
	case err != nil:
		return "", argError("diff_rev", "git diff %v", err)
	}
	return out, nil
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
			Truncated: p.Truncated, Handles: hs})
	}
	return out
}

func statsOf(st assemble.Stats) Stats {
	return Stats{TotalTokens: st.TotalTokens, MaxTokens: st.MaxTokens, Files: st.Files, Parts: st.Parts,
		Candidates: st.Candidates, DedupRemoved: st.DedupRemoved, TruncatedParts: st.TruncatedParts,
		DroppedParts: st.DroppedParts, Encoding: st.Encoding, IndexState: st.IndexState,
		IndexComplete: st.IndexComplete, Note: st.Note}
}

// expandContext is the expand_context tool.
func (s *Server) expandContext(ctx context.Context, req *sdk.CallToolRequest, in ExpandInput) (*sdk.CallToolResult, ExpandOutput, error) {
	var out ExpandOutput
	if len(in.Handles) == 0 && in.Path == "" {
		return nil, out, argError("handles", "give handles from an earlier result, or a path and lines")
	}
	if len(in.Handles) > 0 && in.Path != "" {
		return nil, out, argError("path", "give handles or a path, not both")
	}
	roots, err := s.roots(ctx, req.Session)
	if err != nil {
		return nil, out, err
	}
	abs := ""
	if filepath.IsAbs(in.Path) {
		abs = in.Path
	}
	root, err := pickRoot(roots, in.Root, abs)
	if err != nil {
		return nil, out, err
	}
	r := retrieve.ExpandRequest{Encoding: in.Encoding, Format: assemble.Format(in.Format), Budget: budgetOf(in.Budget, DefaultMaxTokens)}
	for _, h := range in.Handles {
		p, _, err := assemble.ParseHandle(h)
		if err != nil {
			return nil, out, argError("handles", "%q: want a handle such as index/walk.go#L5-60", h)
		}
		if _, err := relPath(root, p, "handles"); err != nil || filepath.IsAbs(p) {
			return nil, out, argError("handles", "%q names a path outside the root %s", h, root)
		}
		r.Handles = append(r.Handles, h)
	}
	if in.Path != "" {
		if r.Path, err = relPath(root, in.Path, "path"); err != nil {
			return nil, out, err
		}
		if strings.TrimSpace(in.Lines) == "" {
			return nil, out, argError("lines", "required with path: the lines to read, e.g. 12-40")
		}
		rs, err := ranges.Parse(strings.ReplaceAll(in.Lines, " ", ""))
		if err != nil || len(rs) == 0 {
			return nil, out, argError("lines", "%q: want 1-based line ranges such as 12-40 or 12-40,55-60", in.Lines)
		}
		r.Ranges = rs
	} else if in.Lines != "" {
		return nil, out, argError("lines", "lines go with path, not with handles")
	}
	if r.Format, err = assemble.ParseFormat(string(r.Format)); err != nil {
		return nil, out, paramErr(err)
	}
	if r.Encoding == "" {
		r.Encoding = retrieve.DefaultEncoding
	}
	if err := s.opts.Tokens.Check(r.Encoding); err != nil {
		return nil, out, argError("encoding", "%v", err)
	}
	if err := r.Budget.Validate(); err != nil {
		return nil, out, paramErr(err)
	}
	w, err := s.workspace(root)
	if err != nil {
		return nil, out, err
	}
	var v *view
	if in.IndexState != "" {
		v = w.acquireHeld(in.IndexState)
	}
	if v == nil {
		if v, err = s.view(ctx, req, root); err != nil {
			return nil, out, err
		}
	}
	defer v.done()
	res, err := s.opts.Engine.Expand(ctx, v.snap, r)
	if err != nil {
		return nil, out, paramErr(err)
	}
	out = ExpandOutput{Root: root, Parts: partInfos(res.Parts), Stats: statsOf(res.Stats), FromHeldState: v.held != nil}
	if in.IndexState != "" && v.held == nil {
		note := "index state " + in.IndexState + " is no longer held: read from the current state"
		if out.Stats.Note != "" {
			note = out.Stats.Note + "; " + note
		}
		out.Stats.Note = note
	}
	text := res.Rendered
	if text == "" {
		text = "(nothing to show"
		if out.Stats.Note != "" {
			text += ": " + out.Stats.Note
		}
		text += ")"
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, out, nil
}

// indexStatus is the index_status tool.
func (s *Server) indexStatus(ctx context.Context, req *sdk.CallToolRequest, in IndexStatusInput) (*sdk.CallToolResult, IndexStatusOutput, error) {
	out := IndexStatusOutput{Roots: []RootStatus{}}
	roots, err := s.roots(ctx, req.Session)
	if err != nil {
		return nil, out, err
	}
	if in.Root != "" {
		r, err := pickRoot(roots, in.Root, "")
		if err != nil {
			return nil, out, err
		}
		roots = []string{r}
	}
	for _, r := range roots {
		w, err := s.workspace(r)
		if err != nil {
			return nil, out, err
		}
		out.Roots = append(out.Roots, w.status())
	}
	return nil, out, nil
}
