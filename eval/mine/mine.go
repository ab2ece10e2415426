package mine

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/ctxls/ctxls/eval"
)

// Options control which commits become cases.
type Options struct {
	Name string // owner/name, recorded in the cases
	Rev  string // the history to mine; default HEAD
	// QueryCases and DiffCases are how many cases of each task to keep
	// (a deterministic sample of the eligible commits); 0 keeps all.
	QueryCases, DiffCases int
	// MaxFiles: commits changing more files (of any kind) are skipped.
	MaxFiles int
	// MaxLines: commits changing more source lines (added + deleted) are
	// skipped.
	MaxLines int
	// MinWords: query cases need at least this many words in the cleaned
	// message.
	MinWords int
	// MaxMessage: longer cleaned messages are cut to this many bytes (at a
	// line end when possible); 0: no limit.
	MaxMessage int
	// Workers is the number of commits examined at once.
	Workers int
}

// DefaultOptions are the rules cases.json was mined with.
func DefaultOptions() Options {
	return Options{Rev: "HEAD", QueryCases: 20, DiffCases: 8, MaxFiles: 10, MaxLines: 300, MinWords: 4, MaxMessage: 2000, Workers: 2}
}

// Rules describes o in words, for cases.json.
func (o Options) Rules() []string {
	return []string{
		"non-merge commits reachable from the mined head; bots' commits skipped",
		"skipped: version/release/dependency bumps and changelog updates (by subject), mechanical changes (typos, formatting, linting, copyright)",
		fmt.Sprintf("skipped: commits changing more than %d files or more than %d source lines (added + deleted)", o.MaxFiles, o.MaxLines),
		"source = code files by extension, not tests, examples, benchmarks, fixtures, docs, build/CI scripts, vendored or generated files",
		"skipped: commits without a changed source file that exists in the parent (docs-only, test-only, config-only, additions only)",
		fmt.Sprintf("query task: the cleaned message (issue refs, trailers, URLs removed) has at least %d words; cut at %d bytes", o.MinWords, o.MaxMessage),
		"gold: changed source files that exist in the parent (tests excluded), their changed lines on the parent side; a pure insertion after line k gives lines k and k+1",
		"diff task: 2-4 changed source files; the input is the diff (-U3) of the modified one with the most changed lines, the tree has its new version; the gold is the other files",
		"cases: a deterministic sample of the eligible commits, ordered by sha256(repo/task/commit)",
	}
}

// Stats count why commits were skipped.
type Stats struct {
	Commits int
	Skipped map[string]int
	// Eligible counts eligible commits by task.
	Eligible map[string]int
}

// Mine examines the history of g and returns the repository record, the
// sampled cases and the skip statistics.
func Mine(ctx context.Context, g Git, o Options) (eval.Repo, []eval.Case, Stats, error) {
	if eval.Reserved(o.Name) {
		return eval.Repo{}, nil, Stats{}, fmt.Errorf("%s is reserved for the independent check (DEVELOPERS.md): not mined", o.Name)
	}
	if o.Rev == "" {
		o.Rev = "HEAD"
	}
	head, err := g.Resolve(ctx, o.Rev)
	if err != nil {
		return eval.Repo{}, nil, Stats{}, err
	}
	commits, err := g.Commits(ctx, head)
	if err != nil {
		return eval.Repo{}, nil, Stats{}, err
	}
	lang, err := mainLanguage(ctx, g, head)
	if err != nil {
		return eval.Repo{}, nil, Stats{}, err
	}
	st := Stats{Commits: len(commits), Skipped: map[string]int{}, Eligible: map[string]int{}}
	type outcome struct {
		cases  []eval.Case
		reason string
		err    error
	}
	results := make([]outcome, len(commits))
	var wg sync.WaitGroup
	next := make(chan int)
	for range max(1, o.Workers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				cs, reason, err := Examine(ctx, g, o, &commits[i])
				results[i] = outcome{cs, reason, err}
			}
		}()
	}
	for i := range commits {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return eval.Repo{}, nil, st, err
	}
	byTask := map[string][]eval.Case{}
	for i, r := range results {
		if r.err != nil {
			return eval.Repo{}, nil, st, fmt.Errorf("%s %s: %w", o.Name, commits[i].SHA, r.err)
		}
		if r.reason != "" {
			st.Skipped[r.reason]++
		}
		for _, c := range r.cases {
			byTask[c.Task] = append(byTask[c.Task], c)
		}
	}
	var out []eval.Case
	for task, cs := range byTask {
		st.Eligible[task] = len(cs)
		n := o.QueryCases
		if task == eval.TaskDiff {
			n = o.DiffCases
		}
		out = append(out, Sample(cs, n)...)
	}
	repo := eval.Repo{Name: o.Name, Language: lang, Head: head, Eligible: maps.Clone(st.Eligible)}
	return repo, out, st, nil
}

// Sample returns n cases of cs (all when n ≤ 0 or n ≥ len(cs)), chosen by
// the order of sha256(case id): deterministic and spread over the history.
func Sample(cs []eval.Case, n int) []eval.Case {
	key := func(c eval.Case) string {
		h := sha256.Sum256([]byte(c.ID))
		return hex.EncodeToString(h[:])
	}
	s := slices.Clone(cs)
	slices.SortFunc(s, func(a, b eval.Case) int { return cmp.Compare(key(a), key(b)) })
	if n > 0 && n < len(s) {
		s = s[:n]
	}
	return s
}

// minable returns the changes of commit c, or why c is no case of any
// task (skip): a merge or root commit, a bot's, a version bump, a
// mechanical change (by its subject), or more than maxFiles files.
func minable(ctx context.Context, g Git, c *Commit, maxFiles int) (changes []Change, skip string, err error) {
	if len(c.Parents) != 1 {
		return nil, "merge or root", nil
	}
	subject := c.Subject()
	switch {
	case IsBot(c.Author):
		return nil, "bot", nil
	case IsVersionBump(subject):
		return nil, "bump", nil
	case IsMechanical(subject):
		return nil, "mechanical", nil
	}
	changes, err = g.Changes(ctx, c.Parents[0], c.SHA)
	if err != nil {
		return nil, "", err
	}
	if len(changes) > maxFiles {
		return nil, "huge", nil
	}
	return changes, "", nil
}

// Examine decides what cases commit c gives: none (with the reason), a
// query case, a diff case or both.
func Examine(ctx context.Context, g Git, o Options, c *Commit) ([]eval.Case, string, error) {
	changes, skip, err := minable(ctx, g, c, o.MaxFiles)
	if err != nil || skip != "" {
		return nil, skip, err
	}
	parent, subject := c.Parents[0], c.Subject()
	var srcPaths []string
	tests, docs := 0, 0
	for _, ch := range changes {
		if ch.Submodule {
			continue // counts as a change, but is no file
		}
		switch Classify(ch.Path) {
		case Source:
			srcPaths = append(srcPaths, ch.Path)
		case Test:
			tests++
		case Docs:
			docs++
		}
	}
	switch {
	case len(srcPaths) == 0 && tests > 0:
		return nil, "test-only", nil
	case len(srcPaths) == 0 && docs > 0:
		return nil, "docs-only", nil
	case len(srcPaths) == 0:
		return nil, "no source", nil
	}
	text, err := g.Patch(ctx, parent, c.SHA, 0, srcPaths...)
	if err != nil {
		return nil, "", err
	}
	files, err := ParsePatch(text)
	if err != nil {
		return nil, "", err
	}
	var src []*FilePatch
	srcLines := 0
	for i := range files {
		if f := &files[i]; !f.Binary {
			src = append(src, f)
			srcLines += f.Changed()
		}
	}
	if srcLines > o.MaxLines {
		return nil, "huge", nil
	}
	// The gold: source files of the parent with their changed lines.
	var gold []eval.GoldFile
	for _, f := range src {
		if f.OldPath == "" || Classify(f.OldPath) != Source {
			continue
		}
		n, err := g.LineCount(ctx, parent, f.OldPath)
		if err != nil {
			return nil, "", err
		}
		if lines := GoldLines(f.Hunks, n); len(lines) > 0 {
			gold = append(gold, eval.GoldFile{Path: f.OldPath, Lines: lines})
		}
	}
	if len(gold) == 0 {
		return nil, "additions only", nil
	}
	slices.SortFunc(gold, func(a, b eval.GoldFile) int { return strings.Compare(a.Path, b.Path) })
	var out []eval.Case
	query := CleanMessage(c.Message)
	if o.MaxMessage > 0 && len(query) > o.MaxMessage {
		query = cut(query, o.MaxMessage)
	}
	reason := ""
	if Words(query) >= o.MinWords {
		out = append(out, eval.Case{ID: eval.CaseID(o.Name, eval.TaskQuery, c.SHA), Task: eval.TaskQuery, Repo: o.Name,
			Commit: c.SHA, Parent: parent, Subject: subject, Query: query, Gold: gold})
	} else {
		reason = "short message"
	}
	if d, err := diffCase(ctx, g, o, c, src, gold); err != nil {
		return nil, "", err
	} else if d != nil {
		out = append(out, *d)
	}
	if len(out) > 0 {
		reason = ""
	}
	return out, reason, nil
}

// diffCase builds the diff-task case of a commit changing 2-4 source
// files, or returns nil.
func diffCase(ctx context.Context, g Git, o Options, c *Commit, src []*FilePatch, gold []eval.GoldFile) (*eval.Case, error) {
	if len(src) < 2 || len(src) > 4 {
		return nil, nil
	}
	var in *FilePatch
	for _, f := range src {
		if f.Status != 'M' {
			continue
		}
		if in == nil || f.Changed() > in.Changed() || f.Changed() == in.Changed() && f.NewPath < in.NewPath {
			in = f
		}
	}
	if in == nil {
		return nil, nil
	}
	var rest []eval.GoldFile
	for _, gf := range gold {
		if gf.Path != in.OldPath {
			rest = append(rest, gf)
		}
	}
	if len(rest) == 0 {
		return nil, nil
	}
	diff, err := g.Patch(ctx, c.Parents[0], c.SHA, 3, in.NewPath)
	if err != nil {
		return nil, err
	}
	return &eval.Case{ID: eval.CaseID(o.Name, eval.TaskDiff, c.SHA), Task: eval.TaskDiff, Repo: o.Name,
		Commit: c.SHA, Parent: c.Parents[0], Subject: c.Subject(), DiffFile: in.NewPath, Diff: diff, Gold: rest}, nil
}

// cut shortens s to at most n bytes, at a line end when one is in the
// second half, else at a word boundary.
func cut(s string, n int) string {
	s = strings.ToValidUTF8(s[:n], "")
	if i := strings.LastIndexByte(s, '\n'); i > n/2 {
		return strings.TrimSpace(s[:i])
	}
	if i := strings.LastIndexByte(s, ' '); i > 0 {
		return strings.TrimSpace(s[:i])
	}
	return s
}

// mainLanguage is the most common source language of rev's tree.
func mainLanguage(ctx context.Context, g Git, rev string) (string, error) {
	files, err := g.Files(ctx, rev)
	if err != nil {
		return "", err
	}
	count := map[string]int{}
	for _, f := range files {
		if Classify(f) == Source {
			count[LanguageOf(f)]++
		}
	}
	best := ""
	for l, n := range count {
		if best == "" || n > count[best] || n == count[best] && l < best {
			best = l
		}
	}
	return best, nil
}
