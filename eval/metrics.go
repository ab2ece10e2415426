package eval

import (
	"encoding/json"
	"math"
	"slices"

	"github.com/ctxls/ctxls/internal/ranges"
)

// Part is one piece of an assembled context: a file and the lines of it
// that are actually shown (1-based, inclusive).
type Part struct {
	Path   string         `json:"path"`
	Ranges []ranges.Range `json:"ranges"`
	Tokens int            `json:"tokens,omitempty"` // the part's rendered tokens
}

// OwnShare is the share of the parts' tokens spent on file path (in the
// diff task: the diff's own file, which is never gold).
func OwnShare(parts []Part, path string) float64 {
	own, total := 0, 0
	for _, p := range parts {
		total += p.Tokens
		if p.Path == path {
			own += p.Tokens
		}
	}
	if total == 0 {
		return 0
	}
	return float64(own) / float64(total)
}

// Score is how well one context covers one case's gold.
type Score struct {
	// FileRecall is the share of gold files with at least one line (any
	// line, gold or not) in the context.
	FileRecall float64 `json:"fileRecall"`
	// AllFiles is 1 when every gold file is in the context, else 0.
	AllFiles float64 `json:"allFiles"`
	// LineRecall is the share of gold lines in the context.
	LineRecall float64 `json:"lineRecall"`
	// MRR is 1/rank of the first part (in rendered order) of a gold file,
	// 0 when no part is. A part that shows a line the request refers to
	// and no gold line (a diff's changed lines, the cursor's line) is the
	// request restated, not an answer: it is not ranked.
	MRR float64 `json:"mrr"`
}

// ScoreParts scores parts (in rendered order) against gold; request are
// the lines the request itself refers to (Case.RequestLines).
func ScoreParts(gold, request []GoldFile, parts []Part) Score {
	shown := map[string][]ranges.Range{}
	for _, p := range parts {
		shown[p.Path] = ranges.Union(shown[p.Path], ranges.Normalize(p.Ranges, math.MaxInt32))
	}
	var s Score
	if len(gold) == 0 {
		return s
	}
	goldSet := map[string]bool{}
	filesHit, lines, linesHit := 0, 0, 0
	for _, g := range gold {
		goldSet[g.Path] = true
		gl := ranges.Normalize(g.Lines, math.MaxInt32)
		lines += ranges.Total(gl)
		if rs, ok := shown[g.Path]; ok && ranges.Total(rs) > 0 {
			filesHit++
			linesHit += ranges.Total(ranges.Intersect(gl, rs))
		}
	}
	s.FileRecall = float64(filesHit) / float64(len(gold))
	if filesHit == len(gold) {
		s.AllFiles = 1
	}
	if lines > 0 {
		s.LineRecall = float64(linesHit) / float64(lines)
	}
	goldLines, requestLines := linesByPath(gold), linesByPath(request)
	rank := 0
	for _, p := range parts {
		shown := ranges.Normalize(p.Ranges, math.MaxInt32)
		if shows(requestLines[p.Path], shown) && !shows(goldLines[p.Path], shown) {
			continue
		}
		rank++
		if goldSet[p.Path] && ranges.Total(shown) > 0 {
			s.MRR = 1 / float64(rank)
			break
		}
	}
	return s
}

// linesByPath unites the lines of each file of fs.
func linesByPath(fs []GoldFile) map[string][]ranges.Range {
	out := map[string][]ranges.Range{}
	for _, g := range fs {
		out[g.Path] = ranges.Union(out[g.Path], ranges.Normalize(g.Lines, math.MaxInt32))
	}
	return out
}

// shows reports whether shown holds any of lines.
func shows(lines, shown []ranges.Range) bool {
	return ranges.Total(ranges.Intersect(lines, shown)) > 0
}

// Noise is the share of the parts' tokens in parts that show no gold line
// and no line the request itself refers to (request: Case.RequestLines):
// context a reader gets that neither the task's answer nor the request
// accounts for.
func Noise(parts []Part, gold, request []GoldFile) float64 {
	refer := linesByPath(append(slices.Clone(gold), request...))
	noise, total := 0, 0
	for _, p := range parts {
		total += p.Tokens
		if !shows(refer[p.Path], ranges.Normalize(p.Ranges, math.MaxInt32)) {
			noise += p.Tokens
		}
	}
	if total == 0 {
		return 0
	}
	return float64(noise) / float64(total)
}

// Result is one system's answer to one case at one budget: a line of
// eval/results/*.jsonl.
type Result struct {
	Case   string `json:"case"`
	Repo   string `json:"repo"`
	Task   string `json:"task"`
	System string `json:"system"` // "ctxls", "bm25", "ctxls-no-<channel>"
	Budget int    `json:"budget"`
	Score
	Tokens int    `json:"tokens"` // tokens of the rendered context, counted again
	Over   bool   `json:"over"`   // Tokens > Budget
	Error  string `json:"error,omitempty"`
	// OwnShare (diff task) is the share of the context's part tokens
	// spent on the diff's own file.
	OwnShare float64 `json:"ownShare,omitempty"`
	// FalseMatches (ctxls, with the repeat check) counts the parts that
	// only reference channels brought through a name that cannot refer
	// to them (FalseMatches).
	FalseMatches int `json:"falseMatches,omitempty"`
	// CursorShown (cursor task) is 1 when the cursor's line is in the
	// context.
	CursorShown float64 `json:"cursorShown,omitempty"`
	// Noise is the share of the context's part tokens in parts that show
	// no gold line and no line of the request (Noise).
	Noise float64 `json:"noise"`
	// LatencyMs is the request's wall time (retrieval and assembly; the
	// index is built beforehand). The per-case results files leave it out
	// (it changes every run); the run's summary tables report it.
	LatencyMs float64 `json:"latencyMs,omitempty"`
	// Files are the context's files in rendered order.
	Files []string `json:"files,omitempty"`
	// Parts are the context's parts in rendered order (with -parts only).
	Parts []Part `json:"parts,omitempty"`
	// Explain is ctxls's explanation of every candidate (with -explain
	// only; retrieve.Explanation as JSON).
	Explain json.RawMessage `json:"explain,omitempty"`
	// ModelAge (a system OldModelSystem names) is how many commits
	// (first parent) before the tree's commit the semantic model was
	// trained: the N asked for, or fewer when the history is shorter.
	ModelAge int `json:"modelAge,omitempty"`
	// ModelRetrained (the same systems) tells that the tree had drifted
	// past the retrain thresholds from the old model's commit, so the
	// model was trained again on the tree instead of reused.
	ModelRetrained bool `json:"modelRetrained,omitempty"`
}

// Shows reports whether parts show line l of path.
func Shows(parts []Part, path string, l int) bool {
	for _, p := range parts {
		if p.Path != path {
			continue
		}
		for _, r := range p.Ranges {
			if r.Start <= l && l <= r.End {
				return true
			}
		}
	}
	return false
}
