package mine

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
	"github.com/ctxls/ctxls/internal/ranges"
)

// testRepo is a git work tree made in a temporary directory.
type testRepo struct {
	t   *testing.T
	dir string
}

func newTestRepo(t *testing.T) *testRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	r := &testRepo{t, t.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *testRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=Dev", "GIT_AUTHOR_EMAIL=dev@example.com", "GIT_COMMITTER_NAME=Dev",
		"GIT_COMMITTER_EMAIL=dev@example.com", "GIT_AUTHOR_DATE=2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2024-01-01T00:00:00Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// commit writes files ("" content deletes), commits them and returns the
// commit's SHA.
func (r *testRepo) commit(msg string, files map[string]string) string {
	r.t.Helper()
	for p, content := range files {
		full := filepath.Join(r.dir, p)
		if content == "" {
			r.git("rm", "-q", p)
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			r.t.Fatal(err)
		}
		r.git("add", p)
	}
	r.git("commit", "-q", "--allow-empty", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

func numbered(prefix string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s line %d\n", prefix, i)
	}
	return b.String()
}

func replaceLine(text string, n int, with ...string) string {
	lines := strings.SplitAfter(text, "\n")
	var out []string
	for _, w := range with {
		out = append(out, w+"\n")
	}
	lines = slices.Replace(lines, n-1, n, out...)
	return strings.Join(lines, "")
}

func TestMineSyntheticRepo(t *testing.T) {
	r := newTestRepo(t)
	a0, b0 := numbered("a", 10), numbered("b", 5)
	r.commit("Initial import of the client", map[string]string{"a.go": a0, "b.go": b0, "README.md": "hello\n"})

	// Modify a.go lines 3-4, insert after line 7, delete b.go line 2, add
	// a test and touch the README.
	a1 := replaceLine(a0, 3, "a three")
	a1 = replaceLine(a1, 4, "a four", "a four bis")
	a1 = replaceLine(a1, 9, "a new", "a line 8") // insert before old line 8, after 7
	b1 := replaceLine(b0, 2)
	c1 := r.commit("Add retry option to the client (#12)\n\nSigned-off-by: Dev <dev@example.com>",
		map[string]string{"a.go": a1, "b.go": b1, "a_test.go": "package a\n", "README.md": "hello retry\n"})
	r.commit("Update README with the retry docs", map[string]string{"README.md": "hello retry docs\n"})
	r.commit("Bump version to 1.2.3", map[string]string{"a.go": replaceLine(a1, 1, "version 1.2.3")})
	r.commit("Test the retry option harder", map[string]string{"a_test.go": "package a\n// more\n"})
	r.commit("fix", map[string]string{"b.go": replaceLine(b1, 1, "b one")})
	r.commit("Only a new source file is added here", map[string]string{"d.go": "package d\n"})
	// A rename with a change: the gold is on the old path.
	b2, _ := os.ReadFile(filepath.Join(r.dir, "b.go"))
	r.git("mv", "b.go", "c.go")
	c6 := r.commit("Rename b to c and change its third line", map[string]string{"c.go": replaceLine(string(b2), 3, "c three")})

	g := Git{Dir: filepath.Join(r.dir, ".git")}
	o := DefaultOptions()
	o.Name, o.QueryCases, o.DiffCases = "dev/client", 0, 0
	repo, cases, st, err := Mine(context.Background(), g, o)
	if err != nil {
		t.Fatal(err)
	}
	// The same history under a name DEVELOPERS.md reserves is refused.
	reserved := o
	reserved.Name = "Spf13/Cobra"
	if _, _, _, err := Mine(context.Background(), g, reserved); err == nil || !strings.Contains(err.Error(), "reserved") {
		t.Errorf("mining a reserved repository: err = %v, want a refusal", err)
	}
	if repo.Language != "go" || len(repo.Head) != 40 {
		t.Errorf("repo = %+v", repo)
	}
	wantSkipped := map[string]int{"merge or root": 1, "docs-only": 1, "bump": 1, "test-only": 1, "short message": 1, "additions only": 1}
	for k, v := range wantSkipped {
		if st.Skipped[k] != v {
			t.Errorf("skipped[%q] = %d, want %d (all: %v)", k, st.Skipped[k], v, st.Skipped)
		}
	}
	byID := map[string]eval.Case{}
	for _, c := range cases {
		byID[c.ID] = c
	}
	if len(cases) != 3 {
		t.Fatalf("got %d cases, want 3: %v", len(cases), slices.Collect(func(yield func(string) bool) {
			for id := range byID {
				yield(id)
			}
		}))
	}
	q := byID[eval.CaseID("dev/client", eval.TaskQuery, c1)]
	if q.Query != "Add retry option to the client" {
		t.Errorf("query = %q", q.Query)
	}
	wantGold := []eval.GoldFile{
		{Path: "a.go", Lines: []ranges.Range{{Start: 3, End: 4}, {Start: 7, End: 8}}},
		{Path: "b.go", Lines: []ranges.Range{{Start: 2, End: 2}}},
	}
	if fmt.Sprint(q.Gold) != fmt.Sprint(wantGold) {
		t.Errorf("gold = %v, want %v", q.Gold, wantGold)
	}
	d := byID[eval.CaseID("dev/client", eval.TaskDiff, c1)]
	if d.DiffFile != "a.go" || fmt.Sprint(d.Gold) != fmt.Sprint(wantGold[1:]) {
		t.Errorf("diff case: file %q gold %v", d.DiffFile, d.Gold)
	}
	if !strings.Contains(d.Diff, "+++ b/a.go") || !strings.Contains(d.Diff, "+a four bis") || strings.Contains(d.Diff, "b.go") {
		t.Errorf("diff text:\n%s", d.Diff)
	}
	ren := byID[eval.CaseID("dev/client", eval.TaskQuery, c6)]
	if fmt.Sprint(ren.Gold) != fmt.Sprint([]eval.GoldFile{{Path: "b.go", Lines: []ranges.Range{{Start: 3, End: 3}}}}) {
		t.Errorf("rename gold = %v", ren.Gold)
	}

	// Extract rebuilds the parent tree exactly.
	dst := t.TempDir()
	if err := g.Extract(context.Background(), q.Parent, dst); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{"a.go": a0, "b.go": b0, "README.md": "hello\n"} {
		got, err := os.ReadFile(filepath.Join(dst, p))
		if err != nil || string(got) != want {
			t.Errorf("extracted %s = %q, %v", p, got, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dst, "a_test.go")); err == nil {
		t.Error("a_test.go is not in the parent")
	}
}

func TestGoldLines(t *testing.T) {
	for _, tc := range []struct {
		hunks []Hunk
		n     int
		want  string
	}{
		{[]Hunk{{OldStart: 3, OldCount: 2, NewStart: 3, NewCount: 1}}, 10, "3-4"},
		{[]Hunk{{OldStart: 7, OldCount: 0, NewStart: 8, NewCount: 1}}, 10, "7-8"},
		{[]Hunk{{OldStart: 0, OldCount: 0, NewStart: 1, NewCount: 2}}, 10, "1"},
		{[]Hunk{{OldStart: 10, OldCount: 0, NewStart: 11, NewCount: 2}}, 10, "10"},
		{[]Hunk{{OldStart: 2, OldCount: 1}, {OldStart: 3, OldCount: 0}, {OldStart: 9, OldCount: 2}}, 10, "2-4,9-10"},
	} {
		if got := ranges.Format(GoldLines(tc.hunks, tc.n)); got != tc.want {
			t.Errorf("GoldLines(%v, %d) = %s, want %s", tc.hunks, tc.n, got, tc.want)
		}
	}
}

func TestParsePatch(t *testing.T) {
	text := `diff --git a/x.go b/x.go
index 1..2 100644
--- a/x.go
+++ b/x.go
@@ -2,2 +2,0 @@ func x() {
---- looks like a header
-+++ so does this
@@ -9 +8,2 @@
-old
+new
+newer
diff --git "a/sp ace.go" "b/sp ace.go"
new file mode 100644
--- /dev/null
+++ "b/sp ace.go"
@@ -0,0 +1 @@
+x
diff --git a/old.py b/new.py
similarity index 90%
rename from old.py
rename to new.py
--- a/old.py
+++ b/new.py
@@ -1 +1 @@
-a
+b
diff --git a/gone.rs b/gone.rs
deleted file mode 100644
--- a/gone.rs
+++ /dev/null
@@ -1,2 +0,0 @@
-a
-b
diff --git a/img.png b/img.png
Binary files a/img.png and b/img.png differ
`
	fs, err := ParsePatch(text)
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, f := range fs {
		got += fmt.Sprintf("%c %q %q bin=%v %v changed=%d\n", f.Status, f.OldPath, f.NewPath, f.Binary, f.Hunks, f.Changed())
	}
	want := `M "x.go" "x.go" bin=false [{2 2 2 0} {9 1 8 2}] changed=5
A "" "sp ace.go" bin=false [{0 0 1 1}] changed=1
R "old.py" "new.py" bin=false [{1 1 1 1}] changed=2
D "gone.rs" "" bin=false [{1 2 0 0}] changed=2
M "img.png" "img.png" bin=true [] changed=0
`
	if got != want {
		t.Errorf("ParsePatch:\n%s\nwant:\n%s", got, want)
	}
}

func TestFindRepo(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"a+b/repo", "c/d.git", "e+f/.git"} {
		for _, sub := range []string{"objects", "refs"} {
			if err := os.MkdirAll(filepath.Join(dir, d, sub), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, d, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for repo, want := range map[string]string{"a/b": "a+b/repo", "c/d": "c/d.git", "e/f": "e+f/.git", "x/y": ""} {
		got, ok := FindRepo(dir, repo)
		if want == "" {
			if ok {
				t.Errorf("FindRepo(%s) = %s", repo, got)
			}
			continue
		}
		if !ok || got != filepath.Join(dir, want) {
			t.Errorf("FindRepo(%s) = %s, %v; want %s", repo, got, ok, want)
		}
	}
}

// TestSubmoduleIsNoSource: a submodule whose path has a source extension
// (rust-lang/cargo once had libs/hammer.rs) is a change but no file: the
// commit is judged by its real files, and the gitlink is never read as a
// blob.
func TestSubmoduleIsNoSource(t *testing.T) {
	r := newTestRepo(t)
	base := r.commit("Initial import", map[string]string{"src/lib.rs": numbered("fn a", 20)})
	r.git("update-index", "--add", "--cacheinfo", "160000,"+base+",libs/hammer.rs")
	first := r.commit("Add the hammer submodule", nil)
	r.git("update-index", "--cacheinfo", "160000,"+first+",libs/hammer.rs")
	sha := r.commit("Update hammer and fix the parser of a", map[string]string{"src/lib.rs": replaceLine(numbered("fn a", 20), 5, "fn fixed")})
	g := Git{Dir: filepath.Join(r.dir, ".git")}
	ch, err := g.Changes(context.Background(), first, sha)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch) != 2 || !ch[0].Submodule || ch[0].Path != "libs/hammer.rs" || ch[1].Submodule {
		t.Fatalf("changes = %+v", ch)
	}
	o := DefaultOptions()
	o.Name = "dev/sub"
	cases, reason, err := Examine(context.Background(), g, o, &Commit{SHA: sha, Parents: []string{first}, Message: "Update hammer and fix the parser of a"})
	if err != nil || len(cases) != 1 || len(cases[0].Gold) != 1 || cases[0].Gold[0].Path != "src/lib.rs" {
		t.Fatalf("Examine: %+v, %q, %v", cases, reason, err)
	}
}
