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

// WriteOldModel writes the full system's answers with each model trained
// N commits ago beside its answers with the model trained on the tree
// itself, as two markdown tables. The first, for each task and budget,
// gives over the same cases the file recall, line recall and MRR of both
// and in how many cases the old model was reused or trained again on the
// tree (past the drift thresholds: then the model is the fresh one, the
// training being deterministic). The second compares them over the cases
// that reused the old model alone, and counts those whose context holds
// other files than the fresh model's (not only in another order). It writes nothing when there is no
// old model's result.
func WriteOldModel(w io.Writer, results []Result, full string) {
	type key struct {
		task, cas string
		budget    int
	}
	fresh := map[key]Result{}
	type group struct {
		task   string
		budget int
		age    int
	}
	olds := map[group][]Result{}
	for _, r := range results {
		if r.System == full {
			fresh[key{r.Task, r.Case, r.Budget}] = r
		} else if n, ok := OldModelAge(r.System, full); ok {
			g := group{r.Task, r.Budget, n}
			olds[g] = append(olds[g], r)
		}
	}
	if len(olds) == 0 {
		return
	}
	groups := make([]group, 0, len(olds))
	for g := range olds {
		groups = append(groups, g)
	}
	slices.SortFunc(groups, func(a, b group) int {
		if a.task != b.task {
			return taskOrder(a.task) - taskOrder(b.task)
		}
		if a.budget != b.budget {
			return a.budget - b.budget
		}
		return a.age - b.age
	})
	// mean is the mean file recall, line recall and MRR of rs.
	mean := func(rs []Result) (fr, lr, mrr float64) {
		for _, r := range rs {
			fr, lr, mrr = fr+r.FileRecall, lr+r.LineRecall, mrr+r.MRR
		}
		if n := float64(len(rs)); n > 0 {
			fr, lr, mrr = fr/n, lr/n, mrr/n
		}
		return fr, lr, mrr
	}
	type pair struct{ fresh, old []Result }
	pairs := func(rs []Result, keep func(Result) bool) pair {
		var p pair
		for _, o := range rs {
			f, ok := fresh[key{o.Task, o.Case, o.Budget}]
			if ok && keep(o) {
				p.fresh, p.old = append(p.fresh, f), append(p.old, o)
			}
		}
		return p
	}
	errs := func(rs []Result) int {
		n := 0
		for _, r := range rs {
			if r.Error != "" {
				n++
			}
		}
		return n
	}
	fmt.Fprintln(w, "| task | budget | model | n | reused | retrained | file recall: fresh | old | Δ | line recall: fresh | old | Δ | MRR: fresh | old | Δ | errors |")
	fmt.Fprintln(w, "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, g := range groups {
		p := pairs(olds[g], func(Result) bool { return true })
		retrained := 0
		for _, o := range p.old {
			if o.ModelRetrained {
				retrained++
			}
		}
		ff, fl, fm := mean(p.fresh)
		of, ol, om := mean(p.old)
		fmt.Fprintf(w, "| %s | %s | %d commits ago | %d | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d |\n",
			g.task, thousands(g.budget), g.age, len(p.old), len(p.old)-retrained, retrained,
			f3(ff), f3(of), signed(of-ff), f3(fl), f3(ol), signed(ol-fl), f3(fm), f3(om), signed(om-fm), errs(p.old)+errs(p.fresh))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "The cases that reused the old model alone:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| task | budget | model | n | file recall: fresh | old | Δ | line recall: fresh | old | Δ | MRR: fresh | old | Δ | other files |")
	fmt.Fprintln(w, "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, g := range groups {
		p := pairs(olds[g], func(o Result) bool { return !o.ModelRetrained })
		other := 0
		for i := range p.old {
			if !sameFiles(p.old[i].Files, p.fresh[i].Files) {
				other++
			}
		}
		ff, fl, fm := mean(p.fresh)
		of, ol, om := mean(p.old)
		fmt.Fprintf(w, "| %s | %s | %d commits ago | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d |\n",
			g.task, thousands(g.budget), g.age, len(p.old),
			f3(ff), f3(of), signed(of-ff), f3(fl), f3(ol), signed(ol-fl), f3(fm), f3(om), signed(om-fm), other)
	}
}

// sameFiles reports whether a and b hold the same files, in any order.
func sameFiles(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
