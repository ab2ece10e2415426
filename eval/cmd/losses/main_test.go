package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/eval"
	"github.com/ctxls/ctxls/internal/ranges"
	"github.com/ctxls/ctxls/internal/retrieve"
)

func rs(a, b int) []ranges.Range { return []ranges.Range{{Start: a, End: b}} }

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestAccount puts each of ten gold lines in a known place.
func TestAccount(t *testing.T) {
	gold := []eval.GoldFile{
		{Path: "a.go", Lines: []ranges.Range{{Start: 1, End: 2}, {Start: 10, End: 11}, {Start: 20, End: 21}, {Start: 30, End: 31}}},
		{Path: "b.go", Lines: []ranges.Range{{Start: 5, End: 5}}},
		{Path: "c.go", Lines: []ranges.Range{{Start: 7, End: 7}}},
	}
	parts := []eval.Part{{Path: "a.go", Ranges: rs(1, 2), Tokens: 20}, {Path: "a.go", Ranges: rs(10, 10), Tokens: 10}}
	us := []unit{
		{path: "a.go", lines: rs(1, 2), score: 1, part: true},
		{path: "a.go", lines: rs(10, 12), score: 0.9, part: true}, // shown trimmed to line 10
		{path: "a.go", lines: rs(20, 29), score: 0.5},             // over budget
		{path: "b.go", lines: rs(1, 9), score: 0.4},               // its file not shown
	}
	c := account(gold, parts, us, 100)
	want := [nWhere]float64{lineShown: 3, lineTrimmed: 1, lineUnitOver: 2, lineNoUnit: 2, lineFileOver: 1, lineNoFile: 1}
	for i := range want {
		if !near(c.where[i], want[i]/10) {
			t.Errorf("%s: %.2f, want %.2f", whereNames[i], c.where[i], want[i]/10)
		}
	}
	if !near(c.fileCeiling, 2.0/3) {
		t.Errorf("file ceiling %.3f, want 2/3", c.fileCeiling)
	}
	// 10 tokens a line, 85 tokens split among three files: 28 each. By
	// score a.go fits lines 1–2 (20 tokens): 2 gold lines; b.go's unit
	// (90 tokens) does not fit. The oracle takes a.go's densest gold unit
	// (1–2) and nothing else fits.
	if !near(c.rightFiles, 0.2) || !near(c.rightBoth, 0.2) {
		t.Errorf("ceilings %.2f / %.2f, want 0.2 / 0.2", c.rightFiles, c.rightBoth)
	}
	// With room, the oracle skips the non-gold unit the score order pays for.
	us = append(us, unit{path: "a.go", lines: rs(40, 60), score: 2})
	c = account(gold, parts, us, 1000)
	if c.rightBoth <= c.rightFiles {
		t.Errorf("oracle %.2f not above the score order %.2f", c.rightBoth, c.rightFiles)
	}
}

func TestUnitsSkipMapsAndMergeParts(t *testing.T) {
	expl := []retrieve.Explanation{
		{Handle: "a.go#L1-5", Reason: "over budget", Score: 0.5},
		{Handle: "a.go#L1-5", Part: "p2", Score: 0.5},
		{Handle: "b.go#L3", Part: "p3", Focus: retrieve.NextBestMapFocus},
	}
	us := units(expl)
	if len(us) != 1 || us[0].path != "a.go" || !us[0].part || !ranges.Equal(us[0].lines, rs(1, 5)) {
		t.Fatalf("units %+v", us)
	}
}

func TestRunNeedsExplanations(t *testing.T) {
	dir := t.TempDir()
	cases := filepath.Join(dir, "cases.json")
	c := eval.File{Cases: []eval.Case{{ID: "o/r/query/1", Task: eval.TaskQuery, Repo: "o/r", Commit: "0123456789ab", Parent: "ba9876543210", Query: "q",
		Gold: []eval.GoldFile{{Path: "a.go", Lines: rs(1, 1)}}}}}
	b, _ := json.Marshal(c)
	if err := os.WriteFile(cases, b, 0o644); err != nil {
		t.Fatal(err)
	}
	res := filepath.Join(dir, "r.jsonl")
	line, _ := json.Marshal(eval.Result{Case: "o/r/query/1", Task: eval.TaskQuery, System: "ctxls", Budget: 2000})
	if err := os.WriteFile(res, append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	err := run(&out, res, cases, eval.TaskQuery, []int{2000})
	if err == nil || !strings.Contains(err.Error(), "-explain -parts") {
		t.Fatalf("err %v, want a hint to run with -explain -parts", err)
	}
}
