package runner

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/eval"
	"github.com/ctxls/ctxls/eval/baseline"
	"github.com/ctxls/ctxls/eval/mine"
	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/history"
	"github.com/ctxls/ctxls/internal/retrieve"
	"github.com/ctxls/ctxls/internal/semantic"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=Dev", "GIT_AUTHOR_EMAIL=dev@example.com", "GIT_COMMITTER_NAME=Dev", "GIT_COMMITTER_EMAIL=dev@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, s := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// filler is Go code that matches no query term.
func filler(name string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package demo\n\n")
	for i := range n {
		fmt.Fprintf(&b, "// %s%d computes a value.\nfunc %s%d(x int) int {\n\treturn x + %d\n}\n\n", name, i, name, i, i)
	}
	return b.String()
}

// TestRunSyntheticRepo runs the whole pipeline (mining, tree building,
// indexing, ctxls, ablations, baseline, scoring) on a repository made here.
func TestRunSyntheticRepo(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	retry := "package demo\n\n// RetryPolicy says how often a request is retried.\ntype RetryPolicy struct {\n\tAttempts int\n}\n\n" +
		"// Backoff returns the delay before the n-th retry.\nfunc (p RetryPolicy) Backoff(n int) int {\n\treturn n * 100\n}\n"
	client := "package demo\n\n// Client sends requests.\ntype Client struct {\n\tPolicy RetryPolicy\n}\n\n" +
		"// Do sends a request, retrying with the policy's backoff.\nfunc (c *Client) Do() int {\n\treturn c.Policy.Backoff(1)\n}\n"
	write(t, dir, map[string]string{"retry.go": retry, "client.go": client, "util.go": filler("helper", 60), "more.go": filler("other", 60)})
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "Initial import")
	write(t, dir, map[string]string{
		"retry.go":  strings.Replace(retry, "return n * 100", "return n * n * 100", 1),
		"client.go": strings.Replace(client, "Backoff(1)", "Backoff(2)", 1),
	})
	git(t, dir, "commit", "-q", "-am", "Make the retry backoff of RetryPolicy quadratic")
	head := git(t, dir, "rev-parse", "HEAD")

	g := mine.Git{Dir: filepath.Join(dir, ".git")}
	o := mine.DefaultOptions()
	o.Name = "dev/demo"
	cases, reason, err := mine.Examine(context.Background(), g, o, &mine.Commit{SHA: head, Parents: []string{git(t, dir, "rev-parse", "HEAD^")},
		Message: "Make the retry backoff of RetryPolicy quadratic"})
	if err != nil || len(cases) != 2 {
		t.Fatalf("Examine: %d cases, reason %q, err %v", len(cases), reason, err)
	}
	work := t.TempDir()
	cfg := Config{
		Cases: cases, RepoDirs: map[string]string{"dev/demo": g.Dir}, Work: work,
		Budgets: []int{300, 4000}, Systems: []string{SystemCtxls, SystemBaseline, SystemZoekt, SystemRepoMap}, AblationBudgets: []int{300},
		Options: retrieve.DefaultOptions(), Baseline: baseline.DefaultOptions(), Zoekt: baseline.DefaultZoektOptions(), Encoding: "cl100k_base", Format: assemble.Markdown,
		History:  true,                                             // the trees are git checkouts of the parent: the history ablation runs
		Semantic: true, SemanticOptions: semantic.DefaultOptions(), // and the one without vectors
		Parts: true, RepeatCheck: true,
	}
	results, st, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if st.Trees != 2 || st.TreeErrors != 0 || st.MissingGold != 0 {
		t.Errorf("stats = %+v", st)
	}
	// Query: 2 budgets × 4 systems + one ablation per channel but focus,
	// diff, history, semantic, activity and conversation, and no history
	// and no vectors at both budgets; diff: 8 + one per channel but focus,
	// history, semantic, activity and conversation, and no history and no
	// vectors at both budgets.
	nchan := len(retrieve.DefaultWeights())
	if len(results) != 8+(nchan-6)+4+8+(nchan-5)+4 {
		t.Errorf("%d results", len(results))
	}
	for _, r := range results {
		if r.Error != "" || r.Over || r.Tokens > r.Budget || r.Tokens == 0 {
			t.Errorf("%s %s@%d: error %q, %d tokens", r.Case, r.System, r.Budget, r.Error, r.Tokens)
		}
		if r.System == SystemCtxls {
			// -parts: the parts are recorded, their files are the files.
			var files []string
			for _, p := range r.Parts {
				if len(p.Ranges) == 0 || p.Path == "" {
					t.Errorf("%s@%d: part without lines: %+v", r.Case, r.Budget, p)
				}
				if len(files) == 0 || files[len(files)-1] != p.Path {
					files = append(files, p.Path)
				}
			}
			if len(r.Parts) == 0 || !slices.Equal(files, r.Files) {
				t.Errorf("%s@%d: parts' files %v, files %v", r.Case, r.Budget, files, r.Files)
			}
		}
		if r.Task == eval.TaskQuery && r.Budget == 4000 && (r.System == SystemCtxls || r.System == SystemBaseline || r.System == SystemZoekt) && r.FileRecall != 1 {
			t.Errorf("%s@%d misses gold files: %+v", r.System, r.Budget, r)
		}
	}
	// The repository map shows definitions: the query's RetryPolicy and
	// Backoff (retry.go), and for the diff of one file the other's.
	for _, r := range results {
		if r.System == SystemRepoMap && r.Budget == 4000 && r.FileRecall != 1 {
			t.Errorf("repomap %s: %+v", r.Task, r)
		}
	}
	// The trees were built, with the module marker, and kept only on request.
	if _, err := os.Stat(filepath.Join(work, "go.mod")); err != nil {
		t.Error(err)
	}
	if entries, _ := os.ReadDir(filepath.Join(work, "dev+demo")); len(entries) != 0 {
		t.Errorf("trees left behind: %v", entries)
	}
}

func TestTreeDirDiffCase(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	write(t, dir, map[string]string{"a.go": "old a\n", "b.go": "old b\n"})
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "one")
	parent := git(t, dir, "rev-parse", "HEAD")
	write(t, dir, map[string]string{"a.go": "new a\n", "b.go": "new b\n"})
	git(t, dir, "commit", "-q", "-am", "two")
	commit := git(t, dir, "rev-parse", "HEAD")
	c := &eval.Case{Task: eval.TaskDiff, Repo: "o/n", Commit: commit, Parent: parent, DiffFile: "a.go"}
	work := t.TempDir()
	tree, err := treeDir(context.Background(), work, mine.Git{Dir: filepath.Join(dir, ".git")}, c)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(work, "o+n", parent+"+"+commit[:12]); tree != want {
		t.Errorf("tree = %s, want %s", tree, want)
	}
	for p, want := range map[string]string{"a.go": "new a\n", "b.go": "old b\n"} {
		if b, _ := os.ReadFile(filepath.Join(tree, p)); string(b) != want {
			t.Errorf("%s = %q, want %q", p, b, want)
		}
	}
}

// TestLinkGit: a tree linked to its case's parent is a git checkout whose
// history is the parent's ancestry: the case's own commit is not in it.
func TestLinkGit(t *testing.T) {
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	write(t, dir, map[string]string{"a.go": "package a\n"})
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "one")
	write(t, dir, map[string]string{"a.go": "package a\n\n// x\n", "b.go": "package a\n"})
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "two")
	write(t, dir, map[string]string{"a.go": "package a\n\n// y\n", "c.go": "package a\n"})
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "three (the case)")
	parent := git(t, dir, "rev-parse", "HEAD^")
	tree := t.TempDir()
	g := mine.Git{Dir: filepath.Join(dir, ".git")}
	if err := linkGit(g, parent, tree); err != nil {
		t.Fatal(err)
	}
	if err := linkGit(g, parent, tree); err != nil {
		t.Fatalf("a second link: %v", err)
	}
	l, err := history.Read(context.Background(), tree, history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Head() != parent {
		t.Errorf("the tree's HEAD is %s, want the parent %s", l.Head(), parent)
	}
	if co := l.CoChanged([]string{"a.go"}, 5, 0); len(co) != 1 || co[0].Path != "b.go" {
		t.Errorf("CoChanged(a.go) = %v, want [b.go] only (c.go changes in the case's own commit)", co)
	}
}

// TestRunOldModel: with ModelAges, every query and diff case is answered
// too with the vectors of a model trained N commits before the tree's
// commit, loaded as the CLI loads its index cache's: reused while the tree
// has drifted little from that commit, trained again on the tree past the
// retrain thresholds; a history shorter than N takes the oldest commit.
func TestRunOldModel(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	// The first commit's files are all gone by the case's parent: a model
	// trained there is past the files' threshold.
	write(t, dir, map[string]string{"legacy.go": filler("legacy", 40), "old.go": filler("ancient", 40)})
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "Start")
	git(t, dir, "rm", "-q", "legacy.go", "old.go")
	retry := "package demo\n\n// RetryPolicy says how often a request is retried.\ntype RetryPolicy struct {\n\tAttempts int\n}\n\n" +
		"// Backoff returns the delay before the n-th retry.\nfunc (p RetryPolicy) Backoff(n int) int {\n\treturn n * 100\n}\n"
	client := "package demo\n\n// Client sends requests.\ntype Client struct {\n\tPolicy RetryPolicy\n}\n\n" +
		"// Do sends a request, retrying with the policy's backoff.\nfunc (c *Client) Do() int {\n\treturn c.Policy.Backoff(1)\n}\n"
	files := map[string]string{"retry.go": retry, "client.go": client}
	for i := range 8 {
		files[fmt.Sprintf("util%d.go", i)] = filler(fmt.Sprintf("helper%c", 'a'+i), 30)
	}
	write(t, dir, files)
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "Initial import")
	// One commit between the model's and the case's parent: one file of
	// ten changes, in words the model knows.
	write(t, dir, map[string]string{"util0.go": filler("helpera", 31)})
	git(t, dir, "commit", "-q", "-am", "One more helper")
	write(t, dir, map[string]string{
		"retry.go":  strings.Replace(retry, "return n * 100", "return n * n * 100", 1),
		"client.go": strings.Replace(client, "Backoff(1)", "Backoff(2)", 1),
	})
	git(t, dir, "commit", "-q", "-am", "Make the retry backoff of RetryPolicy quadratic")
	head := git(t, dir, "rev-parse", "HEAD")

	g := mine.Git{Dir: filepath.Join(dir, ".git")}
	o := mine.DefaultOptions()
	o.Name = "dev/demo"
	cases, reason, err := mine.Examine(context.Background(), g, o, &mine.Commit{SHA: head, Parents: []string{git(t, dir, "rev-parse", "HEAD^")},
		Message: "Make the retry backoff of RetryPolicy quadratic"})
	if err != nil || len(cases) != 2 {
		t.Fatalf("Examine: %d cases, reason %q, err %v", len(cases), reason, err)
	}
	work := t.TempDir()
	cfg := Config{
		Cases: cases, RepoDirs: map[string]string{"dev/demo": g.Dir}, Work: work,
		Budgets: []int{4000}, Systems: []string{SystemCtxls},
		Options: retrieve.DefaultOptions(), Encoding: "cl100k_base", Format: assemble.Markdown,
		History: true, Semantic: true, SemanticOptions: semantic.DefaultOptions(), RepeatCheck: true,
		ModelAges: []int{1, 5},
	}
	results, st, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if st.Trees != 2 || st.TreeErrors != 0 {
		t.Errorf("stats = %+v", st)
	}
	// Both trees (the query's and the diff's, of the same parent) share
	// each older commit's model.
	if o := st.OldModels[1]; o == nil || o.Reused != 2 || o.Retrained != 0 || o.PastFiles+o.PastTerms != 0 || o.Commits != 1 {
		t.Errorf("model 1 commit back: %+v, want reused in both trees, one commit trained on", o)
	}
	if o := st.OldModels[5]; o == nil || o.Reused != 0 || o.Retrained != 2 || o.PastFiles != 2 || o.Commits != 1 {
		t.Errorf("model 5 commits back: %+v, want trained again in both trees, one commit trained on", o)
	}
	want := map[string]struct {
		age       int
		retrained bool
	}{
		SystemCtxls:                         {0, false},
		eval.OldModelSystem(SystemCtxls, 1): {1, false},
		eval.OldModelSystem(SystemCtxls, 5): {2, true}, // the first commit: two back
	}
	n := map[string]int{}
	for _, r := range results {
		w, ok := want[r.System]
		if !ok {
			t.Errorf("unexpected system %s", r.System)
			continue
		}
		n[r.System]++
		if r.Error != "" || r.Tokens == 0 || r.ModelAge != w.age || r.ModelRetrained != w.retrained {
			t.Errorf("%s %s: error %q, %d tokens, model age %d, retrained %v; want age %d, retrained %v",
				r.Case, r.System, r.Error, r.Tokens, r.ModelAge, r.ModelRetrained, w.age, w.retrained)
		}
		if r.Task == eval.TaskQuery && r.FileRecall != 1 {
			t.Errorf("%s %s misses gold files: %+v", r.Case, r.System, r)
		}
	}
	for s := range want {
		if n[s] != 2 {
			t.Errorf("%s answered %d cases, want 2", s, n[s])
		}
	}
	// The older commits' trees and the model caches are gone.
	entries, _ := os.ReadDir(filepath.Join(work, "dev+demo"))
	left, _ := os.ReadDir(work)
	if len(entries) != 0 || len(left) != 2 { // go.mod and dev+demo
		t.Errorf("left behind: %v, %v", entries, left)
	}
}
