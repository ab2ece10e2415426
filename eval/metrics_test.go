package eval

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/ranges"
)

func rs(s string) []ranges.Range {
	r, err := ranges.Parse(s)
	if err != nil {
		panic(err)
	}
	return r
}

func TestScoreParts(t *testing.T) {
	gold := []GoldFile{{Path: "a.go", Lines: rs("10-19")}, {Path: "b.go", Lines: rs("5")}}
	for _, tc := range []struct {
		name  string
		parts []Part
		want  Score
	}{
		{"empty", nil, Score{}},
		{"other files only", []Part{{Path: "c.go", Ranges: rs("1-50")}}, Score{}},
		{"a.go second, half its lines", []Part{{Path: "c.go", Ranges: rs("1-5")}, {Path: "a.go", Ranges: rs("1-14")}},
			Score{FileRecall: 0.5, LineRecall: 5.0 / 11, MRR: 0.5}},
		{"a file without gold lines still counts for file recall", []Part{{Path: "b.go", Ranges: rs("100-110")}, {Path: "a.go", Ranges: rs("10-19")}},
			Score{FileRecall: 1, AllFiles: 1, LineRecall: 10.0 / 11, MRR: 1}},
		{"everything, split parts", []Part{{Path: "x.go", Ranges: rs("1")}, {Path: "x.go", Ranges: rs("3")}, {Path: "b.go", Ranges: rs("5")}, {Path: "a.go", Ranges: rs("10-12,13-19")}},
			Score{FileRecall: 1, AllFiles: 1, LineRecall: 1, MRR: 1.0 / 3}},
		{"an empty part is not a part of the file", []Part{{Path: "a.go"}, {Path: "b.go", Ranges: rs("1-9")}},
			Score{FileRecall: 0.5, LineRecall: 1.0 / 11, MRR: 0.5}},
	} {
		got := ScoreParts(gold, nil, tc.parts)
		if !near(got.FileRecall, tc.want.FileRecall) || got.AllFiles != tc.want.AllFiles ||
			!near(got.LineRecall, tc.want.LineRecall) || !near(got.MRR, tc.want.MRR) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestScorePartsRequestNotRanked: a part showing only the request's own
// lines (a diff's changed lines) is the request restated and takes no
// rank; one that shows a gold line too does.
func TestScorePartsRequestNotRanked(t *testing.T) {
	gold := []GoldFile{{Path: "a.go", Lines: rs("10")}, {Path: "d.go", Lines: rs("40")}}
	request := []GoldFile{{Path: "d.go", Lines: rs("5-8")}}
	for _, tc := range []struct {
		name  string
		parts []Part
		want  float64
	}{
		{"changed lines first", []Part{{Path: "d.go", Ranges: rs("1-20")}, {Path: "a.go", Ranges: rs("10")}}, 1},
		{"changed lines and a gold line", []Part{{Path: "d.go", Ranges: rs("1-45")}, {Path: "a.go", Ranges: rs("10")}}, 1},
		{"the rest of the diff's file ranks", []Part{{Path: "d.go", Ranges: rs("5")}, {Path: "x.go", Ranges: rs("1")}, {Path: "a.go", Ranges: rs("10")}}, 0.5},
	} {
		if got := ScoreParts(gold, request, tc.parts).MRR; !near(got, tc.want) {
			t.Errorf("%s: MRR = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestOwnShare(t *testing.T) {
	parts := []Part{{Path: "d.go", Tokens: 30}, {Path: "a.go", Tokens: 60}, {Path: "d.go", Tokens: 10}}
	if got := OwnShare(parts, "d.go"); !near(got, 0.4) {
		t.Errorf("OwnShare = %v", got)
	}
	if OwnShare(nil, "d.go") != 0 {
		t.Error("empty")
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestSummarize(t *testing.T) {
	res := []Result{
		{Repo: "o/a", Task: TaskQuery, System: "bm25", Budget: 2000, Score: Score{FileRecall: 0, MRR: 0}, Tokens: 1900, LatencyMs: 5},
		{Repo: "o/a", Task: TaskQuery, System: "ctxls", Budget: 2000, Score: Score{FileRecall: 1, AllFiles: 1, LineRecall: 0.5, MRR: 1}, Tokens: 1990, LatencyMs: 10, Noise: 0.5},
		{Repo: "o/b", Task: TaskQuery, System: "ctxls", Budget: 2000, Score: Score{FileRecall: 0.5, LineRecall: 0.25, MRR: 0.5}, Tokens: 2010, Over: true, LatencyMs: 30},
		{Repo: "o/b", Task: TaskQuery, System: "ctxls-no-lexical", Budget: 2000, Error: "boom", LatencyMs: 1},
		{Repo: "o/b", Task: TaskDiff, System: "ctxls", Budget: 2000, Score: Score{FileRecall: 1}},
	}
	all := Summarize(res, false)
	if len(all) != 4 || all[0].System != "ctxls" || all[1].System != "bm25" || all[2].System != "ctxls-no-lexical" || all[3].Task != TaskDiff {
		t.Fatalf("order: %+v", all)
	}
	c := all[0]
	if c.N != 2 || !near(c.FileRecall, 0.75) || !near(c.AllFiles, 0.5) || !near(c.LineRecall, 0.375) ||
		!near(c.MRR, 0.75) || !near(c.Tokens, 2000) || !near(c.OverShare, 0.5) || c.P50 != 10 || c.P95 != 30 {
		t.Errorf("ctxls summary = %+v", c)
	}
	if all[2].Errors != 1 {
		t.Errorf("errors = %d", all[2].Errors)
	}
	per := Summarize(res, true)
	if len(per) != 5 || per[0].Repo != "o/a" || per[0].System != "ctxls" {
		t.Errorf("per repo: %+v", per)
	}
	var buf bytes.Buffer
	WriteTable(&buf, all[:2], false)
	want := "| system | budget | n | file recall | all files | line recall | MRR | noise | tokens | over | errors | p50 ms | p95 ms |\n" +
		"|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n" +
		"| ctxls | 2000 | 2 | 0.750 | 0.500 | 0.375 | 0.750 | 0.250 | 2000 | 0.500 | 0 | 10.0 | 30.0 |\n" +
		"| bm25 | 2000 | 1 | 0.000 | 0.000 | 0.000 | 0.000 | 0.000 | 1900 | 0.000 | 0 | 5.0 | 5.0 |\n"
	if buf.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", buf.String(), want)
	}
	buf.Reset()
	WriteAblation(&buf, all[:3], "ctxls")
	if !strings.Contains(buf.String(), "| ctxls-no-lexical | 2000 | 1 | 0.000 | -0.750 |") || strings.Contains(buf.String(), "bm25") {
		t.Errorf("ablation table:\n%s", buf.String())
	}
}

func TestPercentile(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3}
	for p, want := range map[float64]float64{0: 1, 50: 3, 95: 5, 100: 5, 20: 1, 21: 2} {
		if got := Percentile(xs, p); got != want {
			t.Errorf("Percentile(%v) = %v, want %v", p, got, want)
		}
	}
	if Percentile(nil, 50) != 0 {
		t.Error("empty")
	}
}

func TestCasesFileIsValid(t *testing.T) {
	f, err := Load("cases.json")
	if err != nil {
		t.Fatal(err)
	}
	n := checkCases(t, f)
	// The eval's breadth (docs/quality.md, Repositories): ≥ 20
	// repositories, ≥ 400 query and ≥ 150 diff cases, two repositories or
	// more in each of five languages, and ≥ 200 cursor cases.
	if n[TaskQuery] < 400 || n[TaskDiff] < 150 || n[TaskCursor] < 200 {
		t.Errorf("cases: %v; want ≥ 400 query, ≥ 150 diff and ≥ 200 cursor cases", n)
	}
	if len(f.Repos) < 20 {
		t.Errorf("%d repositories, want ≥ 20", len(f.Repos))
	}
	langs := map[string]int{}
	for _, r := range f.Repos {
		l := r.Language
		if l == "javascript" {
			l = "typescript"
		}
		langs[l]++
	}
	for _, l := range []string{"go", "python", "typescript", "rust", "java"} {
		if langs[l] < 2 {
			t.Errorf("%d repositories in %s (JavaScript counts as TypeScript), want ≥ 2", langs[l], l)
		}
	}
}

func TestReserved(t *testing.T) {
	for name, want := range map[string]bool{"spf13/cobra": true, "SPF13/Cobra": true, "burntsushi/ripgrep": true, "psf/requests.git": true,
		"spf13/pflag": false, "gin-gonic/gin-contrib": false, "cobra": false, "": false} {
		if got := Reserved(name); got != want {
			t.Errorf("Reserved(%q) = %v, want %v", name, got, want)
		}
	}
}

// The held-out cases (docs/heldout.md): valid like the eval's, from
// repositories the eval does not use, none of them reserved.
func TestHeldOutIsValid(t *testing.T) {
	f, err := Load("heldout.json")
	if err != nil {
		t.Fatal(err)
	}
	own, err := Load("cases.json")
	if err != nil {
		t.Fatal(err)
	}
	if n := checkCases(t, f); n[TaskQuery] < 200 || n[TaskDiff] < 80 {
		t.Errorf("held-out cases: %v; want ≥ 200 query and ≥ 80 diff cases", n)
	}
	used := map[string]bool{}
	for _, r := range own.Repos {
		used[r.Name] = true
	}
	for _, r := range f.Repos {
		if used[r.Name] {
			t.Errorf("%s is in the eval's own cases too: a held-out repository must not be", r.Name)
		}
	}
	for _, cf := range []*File{own, f} {
		for _, r := range cf.Repos {
			if Reserved(r.Name) {
				t.Errorf("%s is reserved for the independent check", r.Name)
			}
		}
	}
}

// checkCases checks every case of f (unique ids that match their
// repository, task and commit; normalized gold lines; a diff's own file
// never gold) and counts them by task.
func checkCases(t *testing.T, f *File) map[string]int {
	t.Helper()
	n := map[string]int{}
	ids := map[string]bool{}
	for _, c := range f.Cases {
		n[c.Task]++
		if ids[c.ID] {
			t.Errorf("duplicate case %s", c.ID)
		}
		ids[c.ID] = true
		if c.ID != CaseID(c.Repo, c.Task, c.Commit) {
			t.Errorf("case %s: id does not match repo/task/commit", c.ID)
		}
		for _, g := range c.Gold {
			if !ranges.IsNormalized(g.Lines) || len(g.Lines) == 0 {
				t.Errorf("case %s: gold %s lines %v not normalized", c.ID, g.Path, g.Lines)
			}
			if c.Task == TaskDiff && g.Path == c.DiffFile {
				t.Errorf("case %s: the diff's own file is gold", c.ID)
			}
		}
	}
	return n
}

func TestNoise(t *testing.T) {
	gold := []GoldFile{{Path: "a.go", Lines: []ranges.Range{{Start: 10, End: 12}}}}
	request := []GoldFile{{Path: "d.go", Lines: []ranges.Range{{Start: 3, End: 3}}}}
	parts := []Part{
		{Path: "a.go", Ranges: []ranges.Range{{Start: 1, End: 10}}, Tokens: 100}, // shows gold line 10
		{Path: "a.go", Ranges: []ranges.Range{{Start: 20, End: 30}}, Tokens: 50}, // a gold file, no gold line: noise
		{Path: "d.go", Ranges: []ranges.Range{{Start: 1, End: 5}}, Tokens: 30},   // the request's line
		{Path: "z.go", Ranges: []ranges.Range{{Start: 10, End: 12}}, Tokens: 20}, // unrelated: noise
	}
	if got := Noise(parts, gold, request); !near(got, 70.0/200) {
		t.Errorf("Noise = %.3f, want %.3f", got, 70.0/200)
	}
	if got := Noise(nil, gold, request); got != 0 {
		t.Errorf("Noise of no parts = %v", got)
	}
	c := Case{Diff: "diff --git a/d.go b/d.go\n--- a/d.go\n+++ b/d.go\n@@ -2,3 +2,4 @@\n x\n+y\n z\n w\n", Focus: &CursorFocus{Path: "c.go", Line: 7}}
	rl := c.RequestLines()
	if len(rl) != 2 || rl[0].Path != "d.go" || rl[0].Lines[0] != (ranges.Range{Start: 3, End: 3}) || rl[1].Path != "c.go" || rl[1].Lines[0].Start != 7 {
		t.Errorf("RequestLines = %+v", rl)
	}
}
