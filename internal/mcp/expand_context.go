package mcp

// The expand_context tool: what an earlier result left out, by handle, or
// any lines of a file.

import (
	"context"
	"path/filepath"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/ranges"
	"github.com/ctxls/ctxls/internal/retrieve"
)

// ExpandInput is expand_context's arguments.
type ExpandInput struct {
	Handles    []string `json:"handles,omitempty" jsonschema:"handles from an earlier result (parts' or omitted candidates'), e.g. index/walk.go#L5-60"`
	Path       string   `json:"path,omitempty" jsonschema:"a file (relative to the root, or absolute inside it) to read lines of, instead of handles"`
	Lines      string   `json:"lines,omitempty" jsonschema:"with path: 1-based inclusive line ranges, e.g. 12-40 or 12-40,55-60"`
	IndexState string   `json:"index_state,omitempty" jsonschema:"the indexState of the result the handles came from: read that state when it is still held"`
	Budget     *Budget  `json:"budget,omitempty" jsonschema:"token budget of the returned text (the units asked for, cut to it like assemble_context's parts)"`
	Encoding   string   `json:"encoding,omitempty" jsonschema:"the tokenizer the budget counts in (default cl100k_base)"`
	Format     string   `json:"format,omitempty" jsonschema:"how the text is rendered (default markdown)"`
	Root       string   `json:"root,omitempty" jsonschema:"which root to read when the server has several"`
	Repo       string   `json:"repo,omitempty" jsonschema:"on a server of an index store: the repository to read (list_repos lists them); required when the token may read several"`
	Repos      []string `json:"repos,omitempty" jsonschema:"on a server of an index store: several repositories (or '*': every one the token may read) read as one tree, each repository's paths under its name: one ranked context across them"`
}

// ExpandOutput is expand_context's structured result.
type ExpandOutput struct {
	Root          string     `json:"root"`
	Parts         []PartInfo `json:"parts"`
	Stats         Stats      `json:"stats"`
	FromHeldState bool       `json:"fromHeldState" jsonschema:"true when read from the state the handles came from, false when from the current state"`
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
	roots, err := s.callRoots(ctx, req)
	if err != nil {
		return nil, out, err
	}
	abs := ""
	if filepath.IsAbs(in.Path) {
		abs = in.Path
	}
	root, err := s.target(roots, in.Root, in.Repo, in.Repos, abs)
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
	plan, err := s.opts.Engine.PlanExpand(r)
	if err != nil {
		return nil, out, paramErr(err)
	}
	w, err := s.workspace(ctx, root)
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
	defer v.Done()
	res, err := s.opts.Engine.ExpandPlan(ctx, v.Snap, plan)
	if err != nil {
		return nil, out, paramErr(err)
	}
	out = ExpandOutput{Root: displayRoot(root), Parts: partInfos(res.Parts), Stats: statsOf(res.Stats), FromHeldState: v.fromHeld()}
	if in.IndexState != "" && !v.fromHeld() {
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
