package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/eval"
	"github.com/ctxls/ctxls/eval/mine"
)

func main() {
	o := mine.DefaultOptions()
	dir := flag.String("repo", "", "the repository's git directory (bare or .git)")
	all := flag.Bool("all", false, "mine every repository of the cases file again, at its recorded head")
	reposDir := flag.String("repos-dir", os.Getenv("EVAL_REPOS_DIR"), "with -all: where the git directories are (owner+name/repo, owner+name.git, owner/name.git, …)")
	out := flag.String("out", "eval/cases.json", "the cases file to update")
	flag.StringVar(&o.Name, "name", "", "the repository's owner/name on GitHub")
	flag.StringVar(&o.Rev, "rev", o.Rev, "the history to mine")
	flag.IntVar(&o.QueryCases, "query", o.QueryCases, "query cases to keep (0: all eligible)")
	flag.IntVar(&o.DiffCases, "diff", o.DiffCases, "diff cases to keep (0: all eligible)")
	flag.IntVar(&o.MaxFiles, "max-files", o.MaxFiles, "skip commits changing more files")
	flag.IntVar(&o.MaxLines, "max-lines", o.MaxLines, "skip commits changing more source lines")
	flag.IntVar(&o.MinWords, "min-words", o.MinWords, "query cases need this many words")
	cursor := flag.Bool("cursor", false, "with -all: mine the cursor task's cases (replacing them), not the query and diff cases")
	co := mine.DefaultCursorOptions()
	flag.IntVar(&co.Cases, "cursor-cases", co.Cases, "cursor cases per repository")
	cursorRepos := flag.String("cursor-repos", "", "with -all -cursor: only these repositories (comma-separated owner/name; default all)")
	review := flag.Bool("review", false, "with -all: mine the review task's cases of the Go repositories (replacing them), not the query and diff cases")
	ro := mine.DefaultReviewOptions()
	flag.IntVar(&ro.Cases, "review-cases", ro.Cases, "review cases per repository")
	flag.Parse()
	ctx := context.Background()
	var err error
	switch {
	case flag.NArg() > 0:
		usage()
	case *all && *cursor:
		err = mineCursorAll(ctx, *reposDir, *out, co, *cursorRepos)
	case *all && *review:
		err = mineReviewAll(ctx, *reposDir, *out, ro)
	case *all:
		err = mineAll(ctx, *reposDir, *out, o)
	case *dir == "" || !strings.Contains(o.Name, "/"):
		usage()
	default:
		err = run(ctx, *dir, *out, o)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mine:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: mine -repo GITDIR -name OWNER/NAME [flags] | mine -all -repos-dir DIR [flags]")
	flag.PrintDefaults()
	os.Exit(2)
}

func mineAll(ctx context.Context, reposDir, out string, o mine.Options) error {
	f, err := eval.Load(out)
	if err != nil {
		return err
	}
	for _, r := range f.Repos {
		dir, ok := mine.FindRepo(reposDir, r.Name)
		if !ok {
			return fmt.Errorf("no git directory for %s under %q", r.Name, reposDir)
		}
		ro := o
		ro.Name, ro.Rev = r.Name, r.Head
		if err := run(ctx, dir, out, ro); err != nil {
			return err
		}
	}
	return nil
}

func run(ctx context.Context, dir, out string, o mine.Options) error {
	repo, cases, st, err := mine.Mine(ctx, mine.Git{Dir: dir}, o)
	if err != nil {
		return err
	}
	f, err := eval.Load(out)
	if errors.Is(err, fs.ErrNotExist) {
		f, err = &eval.File{}, nil
	}
	if err != nil {
		return err
	}
	f.Rules = append(o.Rules(), mine.CursorRules()...)
	f.Repos = slices.DeleteFunc(f.Repos, func(r eval.Repo) bool { return r.Name == o.Name })
	f.Repos = append(f.Repos, repo)
	f.Cases = slices.DeleteFunc(f.Cases, func(c eval.Case) bool {
		return c.Repo == o.Name && c.Task != eval.TaskCursor && c.Task != eval.TaskReview
	})
	f.Cases = append(f.Cases, cases...)
	if err := eval.Save(out, f); err != nil {
		return err
	}
	n := map[string]int{}
	for _, c := range cases {
		n[c.Task]++
	}
	var reasons []string
	for r, k := range st.Skipped {
		reasons = append(reasons, fmt.Sprintf("%s %d", r, k))
	}
	slices.Sort(reasons)
	fmt.Fprintf(os.Stderr, "%s (%s) at %s: %d commits; eligible query %d, diff %d; kept query %d, diff %d; skipped: %s\n",
		o.Name, repo.Language, repo.Head[:12], st.Commits, st.Eligible[eval.TaskQuery], st.Eligible[eval.TaskDiff],
		n[eval.TaskQuery], n[eval.TaskDiff], strings.Join(reasons, ", "))
	return nil
}

// mineCursorAll mines the cursor cases of every repository of the cases
// file (or of those in only, comma-separated) at its recorded head,
// replacing the cursor cases there.
func mineCursorAll(ctx context.Context, reposDir, out string, o mine.CursorOptions, only string) error {
	f, err := eval.Load(out)
	if err != nil {
		return err
	}
	var sel []string
	for _, r := range strings.Split(only, ",") {
		if r = strings.TrimSpace(r); r != "" {
			if !slices.ContainsFunc(f.Repos, func(x eval.Repo) bool { return x.Name == r }) {
				return fmt.Errorf("-cursor-repos: %s is not a repository of %s", r, out)
			}
			sel = append(sel, r)
		}
	}
	err = mineTask(ctx, f, reposDir, eval.TaskCursor, func(r eval.Repo) bool { return len(sel) == 0 || slices.Contains(sel, r.Name) },
		func(g mine.Git, r eval.Repo) ([]eval.Case, int, error) {
			ro := o
			ro.Name, ro.Rev = r.Name, r.Head
			return mine.MineCursor(ctx, g, ro)
		})
	if err != nil {
		return err
	}
	if !slices.Contains(f.Rules, mine.CursorRules()[0]) {
		f.Rules = append(f.Rules, mine.CursorRules()...)
	}
	return eval.Save(out, f)
}

// mineReviewAll mines the review cases of every Go repository of the
// cases file at its recorded head, replacing the review cases there.
func mineReviewAll(ctx context.Context, reposDir, out string, o mine.ReviewOptions) error {
	f, err := eval.Load(out)
	if err != nil {
		return err
	}
	err = mineTask(ctx, f, reposDir, eval.TaskReview, func(r eval.Repo) bool { return r.Language == "go" },
		func(g mine.Git, r eval.Repo) ([]eval.Case, int, error) {
			ro := o
			ro.Name, ro.Rev = r.Name, r.Head
			return mine.MineReview(ctx, g, ro)
		})
	if err != nil {
		return err
	}
	f.Rules = slices.DeleteFunc(f.Rules, func(r string) bool { return strings.HasPrefix(r, "review task") })
	f.Rules = append(f.Rules, mine.ReviewRules(o)...)
	return eval.Save(out, f)
}

// mineTask replaces f's cases of task with those mined (by mineRepo) from
// each repository of f that keep admits, found under reposDir, and says
// on stderr how many each gave.
func mineTask(ctx context.Context, f *eval.File, reposDir, task string, keep func(eval.Repo) bool,
	mineRepo func(mine.Git, eval.Repo) ([]eval.Case, int, error)) error {
	f.Cases = slices.DeleteFunc(f.Cases, func(c eval.Case) bool { return c.Task == task })
	for _, r := range f.Repos {
		if !keep(r) {
			continue
		}
		dir, ok := mine.FindRepo(reposDir, r.Name)
		if !ok {
			return fmt.Errorf("no git directory for %s under %q", r.Name, reposDir)
		}
		cases, examined, err := mineRepo(mine.Git{Dir: dir}, r)
		if err != nil {
			return err
		}
		f.Cases = append(f.Cases, cases...)
		fmt.Fprintf(os.Stderr, "%s: %d %s cases from %d commits examined\n", r.Name, len(cases), task, examined)
	}
	return ctx.Err()
}
