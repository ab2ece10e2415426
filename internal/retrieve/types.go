package retrieve

import (
	"fmt"
	"strings"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/history"
	"github.com/ctxls/ctxls/internal/semantic"
)

// Channel names, as they appear in a part's sources and in --explain.
const (
	ChanLexical  = "lexical"
	ChanSymbol   = "symbol"
	ChanPath     = "path"
	ChanFocus    = "focus"
	ChanDiff     = "diff"
	ChanGraph    = "graph"
	ChanNeighbor = "neighbor"
	ChanOverview = "overview"
	// ChanHistory is the workspace's git history: files changed together
	// with a diff's files, and a prior for files changed often and lately.
	ChanHistory = "history"
	// ChanSemantic is the workspace embedder's vector search (package
	// semantic): chunks whose terms are near the request's in a space
	// learned from the workspace's own co-occurrences.
	ChanSemantic = "semantic"
	// ChanActivity is the editor session's activity: the chunks of the
	// ranges edited lately (most recent first), and a prior for the open
	// buffers' files.
	ChanActivity = "activity"
	// ChanConversation is the earlier turns of the conversation, searched
	// like the query (lexical and symbol) at a lower weight.
	ChanConversation = "conversation"
)

// Activity is what the user did in this editor session: a prior and
// candidates beside the request's own text.
type Activity struct {
	// Open are the workspace-relative paths of the open buffers, most
	// recently used first.
	Open []string `json:"open,omitempty"`
	// Edits are the ranges edited in this session, most recent first.
	Edits []Edit `json:"edits,omitempty"`
}

// Edit is a range of lines edited in a buffer: a workspace-relative path
// and 1-based inclusive lines (of the text as it is now).
type Edit struct {
	Path  string `json:"path"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// Focus is a cursor: a workspace-relative slash path and a 1-based line
// (and optional 1-based column).
type Focus struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Col  int    `json:"col,omitempty"`
	// Editor, when set, is the focus as an editor gave it; the plan's
	// focus check turns it into Line and Col (Plan.focusIn).
	Editor *EditorPosition `json:"-"`
}

// EditorPosition is a focus as an editor gives it (the language server):
// a 0-based line and a character counted in UTF-16 code units, read in
// the open buffer as it was when the request was sent (Buffer, when Open)
// or else in the indexed file. Errors name the file by URI and the
// editor's fields (focus.uri, focus.position.line).
type EditorPosition struct {
	Line      int
	Character int
	URI       string
	Buffer    string
	Open      bool
}

// PastEnd reports whether the focus line is past the end of text (its
// file's), and how many lines text has: a last line without a newline
// counts, and line 1 of an empty file is not past its end.
func (f *Focus) PastEnd(text string) (lines int, past bool) {
	lines = strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		lines++
	}
	return lines, f.Line > max(lines, 1)
}

// Mode is what a request's context is for: the default (ModeRelated) or
// ModeReview.
type Mode string

const (
	// ModeRelated (the default): the code related to the request — for a
	// diff, what else may have to change with it (its co-changed files),
	// its callers and what it uses, and what its words match.
	ModeRelated Mode = ""
	// ModeReview: a diff under review. Its changed units first, then what
	// the change reaches — the callers of the changed units at their
	// calls, the definitions the changed lines use at their declarations,
	// in the diff's own files too — and nothing else: what its words only
	// match is withheld (listed as omitted), and there are no maps.
	ModeReview Mode = "review"
)

// ParseMode parses a mode's name ("" or "related" is ModeRelated).
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "related":
		return ModeRelated, nil
	case string(ModeReview):
		return ModeReview, nil
	}
	return "", fmt.Errorf("unknown mode %q (want related or review)", s)
}

// Request is one retrieval + assembly request. At least one of Query,
// Focus and Diff must be set.
type Request struct {
	Query    string            // free text: the question or commit message
	Focus    *Focus            // the cursor, if any
	Diff     string            // a unified diff, if any
	Budget   assemble.Budget   // MaxTokens is required
	Format   assemble.Format   // default markdown
	Strategy assemble.Strategy // default grouped
	Encoding string            // default cl100k_base
	Mode     Mode              // what the context is for; ModeReview needs a diff
	Include  []string          // doublestar globs on the relative path; empty = all
	Exclude  []string          // doublestar globs on the relative path
	Explain  bool              // fill Response.Explain
	// Weights overrides per-channel fusion weights; a weight of 0 turns a
	// channel off (ablation).
	Weights map[string]float64
	// Policy overrides the assembler policy; nil uses assemble.DefaultPolicy
	// with the retrieval defaults.
	Policy *assemble.Policy
	// History is the workspace's git history (nil: none, the history
	// channel is off). It is part of the workspace's state: the same
	// index, history and request give the same context.
	History *history.Log
	// Semantic is the workspace's chunk vectors (nil: none, the semantic
	// channel is off). Like History, part of the workspace's state.
	Semantic *semantic.Store
	// Activity is the editor session's activity (nil: none; the servers
	// fill it unless the request says activity: false).
	Activity *Activity
	// Conversation is the earlier turns of the conversation, newest last:
	// their identifiers and words are a weaker query than Query.
	Conversation []string
	// Notes are what the caller says of the workspace besides the index
	// (a signal it cannot give): added, in order, to the answer's note
	// (Stats.Note).
	Notes []string
}

// WantsHistory reports whether the request's weights leave the history
// channel on (the default), so that a caller reads the history (and runs
// git) only for a request that uses it.
func (r *Request) WantsHistory() bool {
	w, set := r.Weights[ChanHistory]
	return !set || w > 0
}

// Explanation says why a part is in, or a candidate out.
type Explanation struct {
	Handle   string             `json:"handle"`
	Part     string             `json:"part,omitempty"` // "p3" when it is in the context
	Path     string             `json:"path"`
	Symbol   string             `json:"symbol,omitempty"`
	Score    float64            `json:"score"`
	Channels map[string]float64 `json:"channels"` // channel → its rank-fused contribution
	// Priors are the steps after fusion that changed the score, in the
	// order applied: "a test, fixture or example ×0.30", "ordered within
	// its file by the question's words: the file's score 1 of 4", …
	Priors []string `json:"priors,omitempty"`
	Reason string   `json:"reason,omitempty"` // why it is out
	// FileFeatures are the file model's features of the candidate's file
	// (a question's or a diff's 40 best files; Options.FileRank,
	// Options.FileRankDiff), by name.
	FileFeatures map[string]float64 `json:"fileFeatures,omitempty"`
	// Focus says why the focus channel brought it: the unit under the
	// cursor, an identifier used near the cursor, defined in the file, …
	Focus string `json:"focus,omitempty"`
}

// Response is an assembled context plus what produced it.
type Response struct {
	*assemble.Result
	Explain []Explanation `json:"explain,omitempty"`
}
