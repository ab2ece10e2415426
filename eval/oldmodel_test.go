package eval

import (
	"bytes"
	"strings"
	"testing"
)

func TestOldModelAge(t *testing.T) {
	if s := OldModelSystem("ctxls", 10); s != "ctxls-model-10" {
		t.Errorf("OldModelSystem = %q", s)
	}
	for s, want := range map[string]int{"ctxls-model-10": 10, "ctxls-model-1": 1, "ctxls": 0, "ctxls-no-semantic": 0,
		"ctxls-model-": 0, "ctxls-model-0": 0, "ctxls-model-010": 0, "ctxls-model-x": 0, "bm25-model-10": 0} {
		if n, ok := OldModelAge(s, "ctxls"); n != want || ok != (want > 0) {
			t.Errorf("OldModelAge(%q) = %d, %v; want %d", s, n, ok, want)
		}
	}
}

// TestReportOldModel: the old models' results make a table of their own
// beside the fresh model's, counting the cases trained again, and stay out
// of the ablations and the main tables.
func TestReportOldModel(t *testing.T) {
	var rs []Result
	for i, fr := range []float64{1, 0.5} {
		c := string(rune('a' + i))
		rs = append(rs,
			Result{Case: c, Repo: "o/r", Task: TaskQuery, System: "ctxls", Budget: 2000, Score: Score{FileRecall: fr, MRR: 1}, Files: []string{"y", "x"}},
			Result{Case: c, Repo: "o/r", Task: TaskQuery, System: "ctxls-no-lexical", Budget: 2000, Score: Score{FileRecall: fr}},
			Result{Case: c, Repo: "o/r", Task: TaskQuery, System: "ctxls-model-10", Budget: 2000, Score: Score{FileRecall: fr, MRR: 1}, ModelAge: 10, Files: []string{"x", "y"}},
			Result{Case: c, Repo: "o/r", Task: TaskQuery, System: "ctxls-model-50", Budget: 2000, Score: Score{FileRecall: 0.5, MRR: 0.5}, ModelAge: 50, ModelRetrained: i == 0, Files: []string{c}},
			Result{Case: c, Repo: "o/r", Task: TaskQuery, System: "bm25", Budget: 2000, Score: Score{FileRecall: 0.5}},
		)
	}
	var b bytes.Buffer
	Report(&b, rs, "ctxls", "bm25")
	out := b.String()
	for _, want := range []string{
		"### A model trained N commits ago",
		"| query | 2 000 | 10 commits ago | 2 | 2 | 0 | 0.750 | 0.750 | +0.000 | 0.000 | 0.000 | +0.000 | 1.000 | 1.000 | +0.000 | 0 |",
		"| query | 2 000 | 50 commits ago | 2 | 1 | 1 | 0.750 | 0.500 | -0.250 | 0.000 | 0.000 | +0.000 | 1.000 | 0.500 | -0.500 | 0 |",
		// The reused cases alone: case b for the model of 50 commits
		// back, whose context holds other files (the model of 10 commits
		// back orders the same files otherwise: not counted).
		"| query | 2 000 | 10 commits ago | 2 | 0.750 | 0.750 | +0.000 | 0.000 | 0.000 | +0.000 | 1.000 | 1.000 | +0.000 | 0 |",
		"| query | 2 000 | 50 commits ago | 1 | 0.500 | 0.500 | +0.000 | 0.000 | 0.000 | +0.000 | 1.000 | 0.500 | -0.500 | 1 |",
		"| ctxls-no-lexical |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "ctxls-model-"); n != 0 {
		t.Errorf("the old models' systems are in %d rows of the other tables:\n%s", n, out)
	}
}
