package eval

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// OldModelInfix names, after the full system's name, the full system
// answering with a semantic model trained N commits before the case's
// commit and reused as a CLI call reuses its cached model
// ("ctxls-model-10"; eval/cmd/run -model-ages).
const OldModelInfix = "-model-"

// OldModelSystem is the name of full with a model trained n commits ago.
func OldModelSystem(full string, n int) string { return full + OldModelInfix + strconv.Itoa(n) }

// OldModelAge returns the n of a system OldModelSystem(full, n) names.
func OldModelAge(system, full string) (int, bool) {
	rest, ok := strings.CutPrefix(system, full+OldModelInfix)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n <= 0 || strconv.Itoa(n) != rest {
		return 0, false
	}
	return n, true
}

// WriteOldModel writes, for each task and budget of the full system, its
// file recall, line recall and MRR with the model trained on the tree
// itself beside those with each model trained N commits ago (the
// difference from the fresh model), and in how many of the cases the old
// model was reused or trained again past the drift thresholds, as a
// markdown table. It writes nothing when there is no old model's result.
func WriteOldModel(w io.Writer, sums []Summary, full string) {
	var ages []int
	for _, s := range sums {
		if n, ok := OldModelAge(s.System, full); ok && s.Repo == "" && !slices.Contains(ages, n) {
			ages = append(ages, n)
		}
	}
	if len(ages) == 0 {
		return
	}
	slices.Sort(ages)
	fmt.Fprintln(w, "| task | budget | model | n | reused | retrained | file recall | Δ | line recall | Δ | MRR | Δ | errors |")
	fmt.Fprintln(w, "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, task := range []string{TaskQuery, TaskDiff, TaskCursor, TaskReview} {
		for _, s := range sums {
			if s.Task != task || s.System != full || s.Repo != "" {
				continue
			}
			fmt.Fprintf(w, "| %s | %s | trained on the tree | %d |  |  | %s |  | %s |  | %s |  | %d |\n",
				task, thousands(s.Budget), s.N, f3(s.FileRecall), f3(s.LineRecall), f3(s.MRR), s.Errors)
			for _, n := range ages {
				o, ok := pick(sums, task, OldModelSystem(full, n), s.Budget)
				if !ok {
					continue
				}
				fmt.Fprintf(w, "| %s | %s | %d commits ago | %d | %d | %d | %s | %s | %s | %s | %s | %s | %d |\n",
					task, thousands(s.Budget), n, o.N, o.N-o.Retrained, o.Retrained,
					f3(o.FileRecall), signed(o.FileRecall-s.FileRecall), f3(o.LineRecall), signed(o.LineRecall-s.LineRecall),
					f3(o.MRR), signed(o.MRR-s.MRR), o.Errors)
			}
		}
	}
}
