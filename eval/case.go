package eval

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/internal/ranges"
	"github.com/ctxls/ctxls/internal/retrieve"
)

// Tasks.
const (
	// TaskQuery: the request is the commit message; the tree is the parent.
	TaskQuery = "query"
	// TaskDiff: the request is the diff of one changed file; the tree is the
	// parent with that file at its new version.
	TaskDiff = "diff"
	// TaskCursor: the request is a cursor (focus FILE:LINE) alone on an
	// emptied added line of a commit; the tree is the commit's with that
	// line emptied; the gold is the definition of the name the line calls.
	TaskCursor = "cursor"
	// TaskReview: the request is the diff of a commit's changed source
	// files; the tree is the commit; the gold is what a reviewer needs
	// beside the diff (the changed functions' call sites, the definitions
	// the changed lines use), resolved with the language's rules.
	TaskReview = "review"
)

// CursorFocus is a cursor case's cursor: the emptied line and the name it
// called (for people reading results; the request does not carry it).
type CursorFocus struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Name string `json:"name"`
}

// GoldFile is one file of a case's gold: the changed lines on the parent
// side (deleted or modified lines; for a pure insertion, the lines just
// before and after the insertion point).
type GoldFile struct {
	Path  string         `json:"path"`
	Lines []ranges.Range `json:"lines"`
}

// Case is one evaluation case.
type Case struct {
	ID     string `json:"id"`   // "<repo>/<task>/<commit[:12]>"
	Task   string `json:"task"` // TaskQuery or TaskDiff
	Repo   string `json:"repo"` // owner/name
	Commit string `json:"commit"`
	Parent string `json:"parent"`
	// Subject is the commit's first line, for people reading results.
	Subject string `json:"subject"`
	// Query is the cleaned commit message (query task).
	Query string `json:"query,omitempty"`
	// DiffFile is the file whose new version is in the tree and whose
	// diff (Diff, `git diff -U3 parent commit -- DiffFile`) is the request
	// (diff task).
	DiffFile string `json:"diffFile,omitempty"`
	Diff     string `json:"diff,omitempty"`
	// Focus is the cursor (cursor task).
	Focus *CursorFocus `json:"focus,omitempty"`
	Gold  []GoldFile   `json:"gold"`
}

// Tree names the source tree a case runs over: the parent commit, or for
// a diff case the parent with DiffFile at the case's commit.
func (c *Case) Tree() string {
	switch c.Task {
	case TaskDiff:
		return c.Parent + "+" + c.Commit[:12]
	case TaskReview:
		return c.Commit
	case TaskCursor:
		if c.Focus != nil {
			h := sha256.Sum256([]byte(c.Focus.Path))
			return fmt.Sprintf("%s-L%d-%x", c.Commit, c.Focus.Line, h[:4])
		}
		return c.Commit
	}
	return c.Parent
}

// RequestLines are the lines the case's request itself shows or points
// at: the new-side lines its diff changes (diff and review tasks), the
// cursor's line (cursor task); none for a question.
func (c *Case) RequestLines() []GoldFile {
	var out []GoldFile
	if c.Diff != "" {
		files, err := retrieve.ParseDiff(c.Diff)
		if err == nil {
			for _, f := range files {
				if f.Path != "" && len(f.Changed) > 0 {
					out = append(out, GoldFile{Path: f.Path, Lines: f.Changed})
				}
			}
		}
	}
	if c.Focus != nil {
		out = append(out, GoldFile{Path: c.Focus.Path, Lines: []ranges.Range{{Start: c.Focus.Line, End: c.Focus.Line}}})
	}
	return out
}

// GoldLines is the number of gold lines.
func (c *Case) GoldLines() int {
	n := 0
	for _, g := range c.Gold {
		n += ranges.Total(g.Lines)
	}
	return n
}

// Repo is a repository the cases come from.
type Repo struct {
	Name     string `json:"name"`     // owner/name on GitHub
	Language string `json:"language"` // main language
	// Head is the commit whose history was mined.
	Head string `json:"head"`
	// Eligible counts the commits that passed the filters, by task; the
	// cases are a deterministic sample of them.
	Eligible map[string]int `json:"eligible"`
}

// File is the content of cases.json.
type File struct {
	// Rules summarizes the selection rules the cases were mined with.
	Rules []string `json:"rules"`
	Repos []Repo   `json:"repos"`
	Cases []Case   `json:"cases"`
}

// Load reads a cases file.
func Load(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i := range f.Cases {
		if err := f.Cases[i].validate(); err != nil {
			return nil, fmt.Errorf("%s: case %d: %w", path, i, err)
		}
	}
	return &f, nil
}

func (c *Case) validate() error {
	switch {
	case c.Task != TaskQuery && c.Task != TaskDiff && c.Task != TaskCursor && c.Task != TaskReview:
		return fmt.Errorf("%s: unknown task %q", c.ID, c.Task)
	case len(c.Commit) < 12 || c.Parent == "" || c.Repo == "":
		return fmt.Errorf("%s: commit, parent and repo are required", c.ID)
	case len(c.Gold) == 0:
		return fmt.Errorf("%s: no gold", c.ID)
	case c.Task == TaskQuery && strings.TrimSpace(c.Query) == "":
		return fmt.Errorf("%s: empty query", c.ID)
	case c.Task == TaskDiff && (c.DiffFile == "" || c.Diff == ""):
		return fmt.Errorf("%s: a diff case needs diffFile and diff", c.ID)
	case c.Task == TaskReview && c.Diff == "":
		return fmt.Errorf("%s: a review case needs a diff", c.ID)
	case c.Task == TaskCursor && (c.Focus == nil || c.Focus.Path == "" || c.Focus.Line < 1):
		return fmt.Errorf("%s: a cursor case needs a focus", c.ID)
	}
	return nil
}

// Save writes f as indented JSON, cases sorted by repo, task and commit.
func Save(path string, f *File) error {
	slices.SortFunc(f.Repos, func(a, b Repo) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(f.Cases, func(a, b Case) int { return strings.Compare(a.ID, b.ID) })
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// CaseID is the id of a case.
func CaseID(repo, task, commit string) string {
	return repo + "/" + task + "/" + commit[:min(12, len(commit))]
}
