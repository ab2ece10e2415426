package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/eval"
	"github.com/ctxls/ctxls/internal/ranges"
	"github.com/ctxls/ctxls/internal/retrieve"
)

// syntheticCases: in every case the channels put a test file first and
// the gold code file second; feature 1 marks the test.
func syntheticCases(n int) []rankedCase {
	var out []rankedCase
	for range n {
		out = append(out, rankedCase{
			x:    [][]float64{{0, 1, 0}, {-0.2, 0, 0}, {-0.5, 0, 1}},
			gold: []bool{false, true, false},
		})
	}
	return out
}

func TestFitLearnsFromGold(t *testing.T) {
	cases := syntheticCases(20)
	if got := firstGoldRR(cases, nil); got != 0.5 {
		t.Fatalf("the channels' order: RR %v, want 0.5", got)
	}
	w := fit(cases, 3, []float64{1, 1, 0}, 1, 300)
	if w[1] >= 0 {
		t.Errorf("the test feature's weight %v, want < 0", w[1])
	}
	if w[2] != 0 {
		t.Errorf("a fixed feature's weight moved: %v", w[2])
	}
	if got := firstGoldRR(cases, w); got != 1 {
		t.Errorf("fitted: RR %v, want 1", got)
	}
}

// TestRunReadsExplanations: fitrank reads an eval run's explanations and
// cases and prints weights for every feature.
func TestRunReadsExplanations(t *testing.T) {
	dir := t.TempDir()
	names := retrieve.FileFeatureNames()
	var cf eval.File
	var lines bytes.Buffer
	for i := range 5 {
		id := "o/r/query/" + strings.Repeat(string(rune('a'+i)), 12)
		cf.Cases = append(cf.Cases, eval.Case{ID: id, Task: eval.TaskQuery, Repo: "o/r", Commit: strings.Repeat("1", 40), Parent: "p", Query: "q",
			Gold: []eval.GoldFile{{Path: "src/code.go", Lines: []ranges.Range{{Start: 1, End: 2}}}}})
		feat := func(rank, test float64) map[string]float64 {
			m := map[string]float64{}
			for _, n := range names {
				m[n] = 0
			}
			m["rank"], m["test"], m["relScore"] = rank, test, -rank
			return m
		}
		expl, _ := json.Marshal([]retrieve.Explanation{
			{Handle: "src/code_test.go#L1-3", Path: "src/code_test.go", FileFeatures: feat(0, 1)},
			{Handle: "src/code.go#L1-3", Path: "src/code.go", FileFeatures: feat(0.69, 0)},
		})
		r, _ := json.Marshal(eval.Result{Case: id, Repo: "o/r", Task: eval.TaskQuery, System: "ctxls", Budget: 2000, Explain: expl})
		lines.Write(append(r, '\n'))
		// A diff case: the diff's own file first, the gold second.
		did := "o/r/diff/" + strings.Repeat(string(rune('a'+i)), 12)
		cf.Cases = append(cf.Cases, eval.Case{ID: did, Task: eval.TaskDiff, Repo: "o/r", Commit: strings.Repeat("2", 40), Parent: "p", DiffFile: "src/own.go", Diff: "d",
			Gold: []eval.GoldFile{{Path: "src/code.go", Lines: []ranges.Range{{Start: 1, End: 2}}}}})
		own := feat(0, 0)
		own["own"] = 1
		expl, _ = json.Marshal([]retrieve.Explanation{
			{Handle: "src/own.go#L1-3", Path: "src/own.go", FileFeatures: own},
			{Handle: "src/code.go#L1-3", Path: "src/code.go", FileFeatures: feat(0.69, 0)},
		})
		r, _ = json.Marshal(eval.Result{Case: did, Repo: "o/r", Task: eval.TaskDiff, System: "ctxls", Budget: 2000, Explain: expl})
		lines.Write(append(r, '\n'))
	}
	casesPath, resultsPath := filepath.Join(dir, "cases.json"), filepath.Join(dir, "results.jsonl")
	b, _ := json.Marshal(cf)
	if err := os.WriteFile(casesPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(resultsPath, lines.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	p := params{results: []string{resultsPath}, cases: casesPath, task: eval.TaskQuery, budget: 2000, fix: "literal", l2: 1, epochs: 300}
	if err := run(&out, p); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "fitted on 5 cases: first gold file's reciprocal rank 0.5000 → 1.0000") {
		t.Errorf("output:\n%s", out.String())
	}
	// Two runs' results are read together: twice the cases.
	out.Reset()
	two := p
	two.results = []string{resultsPath, resultsPath}
	if err := run(&out, two); err != nil || !strings.Contains(out.String(), "fitted on 10 cases") {
		t.Errorf("two results files: %v\n%s", err, out.String())
	}
	bad := p
	bad.fix = "nosuch"
	if err := run(&out, bad); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("an unknown -fix feature: %v", err)
	}
	bad = p
	bad.budget = 8000
	if err := run(&out, bad); err == nil || !strings.Contains(err.Error(), "-explain") {
		t.Errorf("no results at the budget: %v", err)
	}
	// The diff task: its own cases and weights.
	out.Reset()
	diff := p
	diff.task = eval.TaskDiff
	if err := run(&out, diff); err != nil || !strings.Contains(out.String(), "fitted on 5 cases: first gold file's reciprocal rank 0.5000 → 1.0000") ||
		!strings.Contains(out.String(), "\"diff\": {") {
		t.Errorf("-task diff: %v\n%s", err, out.String())
	}
	bad = p
	bad.task = eval.TaskCursor
	if err := run(&out, bad); err == nil || !strings.Contains(err.Error(), "-task") {
		t.Errorf("a cursor task: %v", err)
	}
}

// TestRunRefusesAnotherBuild: results whose features are not the model's
// (another build's) are refused, naming the feature.
func TestRunRefusesAnotherBuild(t *testing.T) {
	dir := t.TempDir()
	id := "o/r/query/" + strings.Repeat("a", 12)
	cf := eval.File{Cases: []eval.Case{{ID: id, Task: eval.TaskQuery, Repo: "o/r", Commit: strings.Repeat("1", 40), Parent: "p", Query: "q",
		Gold: []eval.GoldFile{{Path: "a.go", Lines: []ranges.Range{{Start: 1, End: 1}}}}}}}
	expl, _ := json.Marshal([]retrieve.Explanation{{Handle: "a.go#L1-2", Path: "a.go", FileFeatures: map[string]float64{"rank": 0, "oldFeature": 1}}})
	r, _ := json.Marshal(eval.Result{Case: id, Repo: "o/r", Task: eval.TaskQuery, System: "ctxls", Budget: 2000, Explain: expl})
	casesPath, resultsPath := filepath.Join(dir, "cases.json"), filepath.Join(dir, "results.jsonl")
	b, _ := json.Marshal(cf)
	if err := os.WriteFile(casesPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(resultsPath, append(r, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	err := run(&bytes.Buffer{}, params{results: []string{resultsPath}, cases: casesPath, task: eval.TaskQuery, budget: 2000, l2: 1, epochs: 10})
	if err == nil || !strings.Contains(err.Error(), "another build") || !strings.Contains(err.Error(), "relScore") {
		t.Errorf("another build's features: %v", err)
	}
}

func TestSplitList(t *testing.T) {
	if got := splitList(" a,,b , "); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("splitList = %q", got)
	}
	if got := splitList(" "); got != nil {
		t.Errorf("splitList(blank) = %q", got)
	}
}
