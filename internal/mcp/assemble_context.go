package mcp

// The assemble_context tool: a question, a cursor or a diff → a budgeted,
// ranked, deduplicated context whose whole text is within the budget.

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/ranges"
	"github.com/ctxls/ctxls/internal/retrieve"
	"github.com/ctxls/ctxls/internal/tokens"
	"github.com/ctxls/ctxls/internal/workspace"
)

// maxOmittedListed bounds the omitted candidates a result lists (the best
// first); omittedTotal says how many there were.
const maxOmittedListed = 40

// maxHandlesShown is how many omitted handles the text content names for
// the model to expand.
const maxHandlesShown = 8

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
	Mode     string   `json:"mode,omitempty" jsonschema:"what the context is for: related (default; for a diff, also what else may have to change with it) or review (a diff under review: its changed code, its callers and the definitions it uses, and nothing the diff's words merely match)"`
	Include  []string `json:"include,omitempty" jsonschema:"only paths matching one of these globs, e.g. **/*.go"`
	Exclude  []string `json:"exclude,omitempty" jsonschema:"leave out paths matching these globs, e.g. **/testdata/**"`
	Root     string   `json:"root,omitempty" jsonschema:"which root to read when the server has several (a path or a root's directory name); default: the focus's root, else the first"`
	Repo     string   `json:"repo,omitempty" jsonschema:"on a server of an index store: the repository to read (list_repos lists them); required when the token may read several"`
	Repos    []string `json:"repos,omitempty" jsonschema:"on a server of an index store: several repositories (or '*': every one the token may read) read as one tree, each repository's paths under its name: one ranked context across them"`
	History  []string `json:"history,omitempty" jsonschema:"earlier turns of the conversation, newest last: their identifiers and words are a weaker query than query"`
	Activity *bool    `json:"activity,omitempty" jsonschema:"false leaves out the session's activity (the files changed on disk since the server started, most recent first, as a prior); default true"`
	Wait     int      `json:"wait_seconds,omitempty" jsonschema:"while the root's first index build runs, wait up to this many seconds (at most 600) for it to finish instead of the server's default of a few seconds; an answer from a partial index says so"`
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

// AssembleOutput is assemble_context's structured result.
type AssembleOutput struct {
	Root         string        `json:"root"`
	Parts        []PartInfo    `json:"parts"`
	Omitted      []OmittedInfo `json:"omitted" jsonschema:"the best candidates left out, best first (at most 40)"`
	OmittedTotal int           `json:"omittedTotal" jsonschema:"how many candidates were left out in all"`
	Stats        Stats         `json:"stats"`
	ElapsedMs    float64       `json:"elapsedMs"`
}

// assembleContext is the assemble_context tool: decode the arguments into
// a request, acquire the root's snapshot, run the engine, shape the text.
func (s *Server) assembleContext(ctx context.Context, req *sdk.CallToolRequest, in AssembleInput) (*sdk.CallToolResult, AssembleOutput, error) {
	start := time.Now()
	var out AssembleOutput
	root, plan, err := s.assembleRequest(ctx, req, in)
	if err != nil {
		return nil, out, err
	}
	v, err := s.viewWait(ctx, req, root, time.Duration(in.Wait)*time.Second)
	if err != nil {
		return nil, out, err
	}
	kept := false
	defer func() {
		if !kept {
			v.Done()
		}
	}()
	v.Attach(ctx, plan, workspace.Signals{History: !s.opts.NoGitHistory,
		Embeddings: s.opts.Embeddings, Endpoint: s.opts.EmbeddingsEndpoint, Logf: s.opts.Logf})
	if in.Activity == nil || *in.Activity {
		plan.SetActivity(v.sp.activity())
	}
	counter, err := s.opts.Tokens.Get(plan.Request().Encoding)
	if err != nil {
		return nil, out, argError("encoding", "%v", err)
	}
	// The whole text is what the model reads, and all of it stays within
	// the budget: a partial index's note comes first and its tokens are
	// taken from the context's budget (an answer from a partial index
	// differs from the complete one anyway); the left-out handles get
	// what the context leaves.
	budget := plan.Request().Budget.MaxTokens
	partial := partialNote(displayRoot(root), v)
	if partial != "" {
		if n := counter.Count(partial); n < budget/2 {
			plan.TakeTokens(n)
		} else {
			partial = ""
		}
	}
	resp, err := s.opts.Engine.AssemblePlan(ctx, v.Snap, plan)
	if err != nil {
		return nil, out, paramErr(err)
	}
	v.Keep(nil)
	kept = true
	out = assembleOutput(displayRoot(root), resp, budget)
	out.ElapsedMs = float64(time.Since(start).Microseconds()) / 1000
	return &sdk.CallToolResult{Content: assembleText(out, partial, resp.Rendered, budget, counter)}, out, nil
}

// assembleRequest decodes assemble_context's arguments: the root (the
// argument, the focus's, or the only one), the request validated by the
// engine (its plan), diff_rev run through git.
func (s *Server) assembleRequest(ctx context.Context, req *sdk.CallToolRequest, in AssembleInput) (string, *retrieve.Plan, error) {
	var r retrieve.Request
	if in.Diff != "" && in.DiffRev != "" {
		return "", nil, argError("diff_rev", "give diff or diff_rev, not both")
	}
	if in.DiffRev != "" && s.opts.Repos != nil {
		return "", nil, argError("diff_rev", "a repository of the index store has no git checkout on this server: give the diff itself (diff)")
	}
	if in.Wait < 0 || in.Wait > maxWaitSeconds {
		return "", nil, argError("wait_seconds", "%d: want 0 to %d", in.Wait, maxWaitSeconds)
	}
	roots, err := s.callRoots(ctx, req)
	if err != nil {
		return "", nil, err
	}
	var focusPath string
	var focusLine, focusCol int
	if in.Focus != "" {
		if focusPath, focusLine, focusCol, err = retrieve.ParseFocus(in.Focus); err != nil {
			return "", nil, paramErr(err)
		}
	}
	abs := ""
	if filepath.IsAbs(focusPath) {
		abs = focusPath
	}
	root, err := s.target(roots, in.Root, in.Repo, in.Repos, abs)
	if err != nil {
		return "", nil, err
	}
	r = retrieve.Request{
		Query: in.Query, Diff: in.Diff, Encoding: in.Encoding,
		Format: assemble.Format(in.Format), Strategy: assemble.Strategy(in.Strategy), Mode: retrieve.Mode(in.Mode),
		Include: in.Include, Exclude: in.Exclude, Budget: budgetOf(in.Budget, DefaultMaxTokens),
		Conversation: in.History,
	}
	if in.Focus != "" {
		rel, err := relPath(root, focusPath, "focus")
		if err != nil {
			return "", nil, err
		}
		r.Focus = &retrieve.Focus{Path: rel, Line: focusLine, Col: focusCol}
	}
	if in.DiffRev != "" {
		if r.Diff, err = retrieve.DiffOfRev(ctx, root, in.DiffRev, "diff_rev"); err != nil {
			var pe *assemble.ParamError
			if !errors.As(err, &pe) {
				err = &assemble.ParamError{Field: "diff_rev", Msg: err.Error()}
			}
			return "", nil, paramErr(err)
		}
		if strings.TrimSpace(r.Diff) == "" && strings.TrimSpace(r.Query) == "" && r.Focus == nil {
			return "", nil, argError("diff_rev", "git diff %s is empty in %s: nothing changed", in.DiffRev, root)
		}
	}
	plan, err := s.opts.Engine.Plan(r)
	if errors.Is(err, retrieve.ErrNothingAsked) {
		return "", nil, argError("query", "give at least one of query, focus, diff and diff_rev")
	} else if err != nil {
		return "", nil, paramErr(err)
	}
	return root, plan, nil
}

// assembleOutput is the structured result of a response for a request of
// budget tokens.
func assembleOutput(root string, resp *retrieve.Response, budget int) AssembleOutput {
	out := AssembleOutput{
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
	return out
}

// assembleText is what the model reads, all of it within budget: the
// partial index's note, the context (or why it is empty), then the best
// left-out handles in what remains.
func assembleText(out AssembleOutput, partial, rendered string, budget int, counter tokens.Counter) []sdk.Content {
	text := partial + rendered
	if rendered == "" {
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
	return content
}

// maxWaitSeconds bounds a call's wait_seconds.
const maxWaitSeconds = 600

// partialNote is the line that opens the text of an answer from an index
// still being built (its first build, or one the call did not wait for to
// finish): how far it is, and what to do. "" when the index is complete.
func partialNote(root string, v *view) string {
	if v.Snap.Complete() {
		return ""
	}
	far := ""
	if pr := v.sp.progress(); pr != nil && pr.FilesTotal > 0 {
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
