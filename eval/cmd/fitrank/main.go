package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/eval"
	"github.com/ctxls/ctxls/internal/retrieve"
)

// params are fitrank's flags.
type params struct {
	results, test    []string // results files (their runs' cases mixed)
	cases, testCases string
	task             string // eval.TaskQuery or eval.TaskDiff
	budget           int
	fix              string
	l2               float64
	epochs           int
}

func main() {
	var (
		p             params
		results, test string
	)
	flag.StringVar(&results, "results", "", "an eval run's -out results, run with -explain (required; comma-separated: several runs, e.g. the diff task with and without history)")
	flag.StringVar(&p.cases, "cases", "eval/cases.json", "the cases file of -results")
	flag.StringVar(&test, "test", "", "results to report the fitted weights on (not fitted on; comma-separated)")
	flag.StringVar(&p.testCases, "test-cases", "eval/heldout.json", "the cases file of -test")
	flag.StringVar(&p.task, "task", eval.TaskQuery, "the task whose results are read and whose weights are fitted: query or diff")
	flag.IntVar(&p.budget, "budget", 2000, "the budget whose results are read")
	flag.StringVar(&p.fix, "fix", "literal", "features whose weight stays 0 (comma-separated; ranking text constants down is a product rule, not the fit's to undo)")
	flag.Float64Var(&p.l2, "l2", 1, "L2 regularisation")
	flag.IntVar(&p.epochs, "epochs", 1500, "Adam steps over all cases")
	flag.Parse()
	if results == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	p.results, p.test = splitList(results), splitList(test)
	if err := run(os.Stdout, p); err != nil {
		fmt.Fprintln(os.Stderr, "fitrank:", err)
		os.Exit(1)
	}
}

// splitList is a comma-separated flag's non-empty items.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func run(w io.Writer, p params) error {
	if p.task != eval.TaskQuery && p.task != eval.TaskDiff {
		return fmt.Errorf("-task %q: want %s or %s (a cursor request has no file model)", p.task, eval.TaskQuery, eval.TaskDiff)
	}
	diff := p.task == eval.TaskDiff
	names := retrieve.FileFeatureNames()
	train, err := readRanked(p.results, p.cases, p.task, p.budget, names)
	if err != nil {
		return err
	}
	if len(train) == 0 {
		return fmt.Errorf("%s: no %s results with file features at budget %d (run the eval with -explain)", strings.Join(p.results, ", "), p.task, p.budget)
	}
	mask := make([]float64, len(names))
	for i := range mask {
		mask[i] = 1
	}
	for _, f := range splitList(p.fix) {
		i := slices.Index(names, f)
		if i < 0 {
			return fmt.Errorf("-fix: unknown feature %q (known: %s)", f, strings.Join(names, ", "))
		}
		mask[i] = 0
	}
	current := retrieve.FileRankWeights(diff)
	wts := fit(train, len(names), mask, p.l2, p.epochs)
	fmt.Fprintf(w, "fitted on %d cases: first gold file's reciprocal rank %.4f → %.4f\n", len(train), firstGoldRR(train, nil), firstGoldRR(train, wts))
	fmt.Fprintf(w, "current weights: %.4f\n", firstGoldRR(train, current))
	if len(p.test) > 0 {
		held, err := readRanked(p.test, p.testCases, p.task, p.budget, names)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "-test, %d cases: %.4f → %.4f (current weights %.4f)\n", len(held), firstGoldRR(held, nil), firstGoldRR(held, wts), firstGoldRR(held, current))
	}
	name := "question"
	if diff {
		name = "diff"
	}
	fmt.Fprintf(w, "the %q weights of retrieve/filemodel.json (and its fittedUnder: the defaults of this run):\n", name)
	fmt.Fprintf(w, "\"%s\": {\n", name)
	for i, v := range wts {
		sep := ","
		if i == len(wts)-1 {
			sep = ""
		}
		fmt.Fprintf(w, "  %q: %g%s\n", names[i], math.Round(v*1000)/1000, sep)
	}
	fmt.Fprintln(w, "}")
	return nil
}

// rankedCase is one case's files in the channels' order: their features
// and whether each is gold.
type rankedCase struct {
	x    [][]float64
	gold []bool
}

// readRanked reads the task's results at budget from results files and
// the gold files from their cases file.
func readRanked(results []string, cases, task string, budget int, names []string) ([]rankedCase, error) {
	cf, err := eval.Load(cases)
	if err != nil {
		return nil, err
	}
	gold := map[string][]eval.GoldFile{}
	for _, c := range cf.Cases {
		gold[c.ID] = c.Gold
	}
	var out []rankedCase
	for _, rf := range results {
		rcs, err := readResults(rf, cases, task, budget, gold, names)
		if err != nil {
			return nil, err
		}
		out = append(out, rcs...)
	}
	return out, nil
}

// readResults reads one results file's cases (readRanked).
func readResults(results, cases, task string, budget int, gold map[string][]eval.GoldFile, names []string) ([]rankedCase, error) {
	f, err := os.Open(results)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []rankedCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for n := 1; sc.Scan(); n++ {
		var r eval.Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", results, n, err)
		}
		if r.System != "ctxls" || r.Task != task || r.Budget != budget || len(r.Explain) == 0 {
			continue
		}
		g, ok := gold[r.Case]
		if !ok {
			return nil, fmt.Errorf("%s:%d: case %s is not in %s", results, n, r.Case, cases)
		}
		var expl []retrieve.Explanation
		if err := json.Unmarshal(r.Explain, &expl); err != nil {
			return nil, fmt.Errorf("%s:%d: explain: %w", results, n, err)
		}
		for _, e := range expl {
			if err := sameFeatures(e.FileFeatures, names); err != nil {
				return nil, fmt.Errorf("%s:%d: %s: %w (results of another build: run the eval again)", results, n, e.Path, err)
			}
		}
		if rc, ok := rankedOf(expl, g, names); ok {
			out = append(out, rc)
		}
	}
	return out, sc.Err()
}

// sameFeatures reports a feature map (nil: none recorded) whose names are
// not the model's.
func sameFeatures(m map[string]float64, names []string) error {
	if m == nil {
		return nil
	}
	for _, n := range names {
		if _, ok := m[n]; !ok {
			return fmt.Errorf("no feature %q", n)
		}
	}
	if len(m) != len(names) {
		return fmt.Errorf("%d features, the model has %d", len(m), len(names))
	}
	return nil
}

// rankedOf is one case's files with features, by their rank feature.
func rankedOf(expl []retrieve.Explanation, gold []eval.GoldFile, names []string) (rankedCase, bool) {
	feats := map[string]map[string]float64{}
	var paths []string
	for _, e := range expl {
		if e.FileFeatures != nil && feats[e.Path] == nil {
			feats[e.Path] = e.FileFeatures
			paths = append(paths, e.Path)
		}
	}
	if len(paths) == 0 {
		return rankedCase{}, false
	}
	slices.SortFunc(paths, func(a, b string) int {
		return cmp.Or(cmp.Compare(feats[a]["rank"], feats[b]["rank"]), strings.Compare(a, b))
	})
	var rc rankedCase
	for _, p := range paths {
		x := make([]float64, len(names))
		for i, n := range names {
			x[i] = feats[p][n]
		}
		rc.x = append(rc.x, x)
		rc.gold = append(rc.gold, slices.ContainsFunc(gold, func(g eval.GoldFile) bool { return g.Path == p }))
	}
	return rc, true
}

// fit minimises the mean over cases of the cross-entropy between the
// softmax of x·w over a case's files and the uniform distribution over its
// gold files (cases without a gold file among them are skipped), plus
// l2/2 · |w|² / cases, by Adam from w = (1, 0, …) — the channels' order.
// Weights with mask 0 stay at 0.
func fit(cases []rankedCase, d int, mask []float64, l2 float64, epochs int) []float64 {
	var use []rankedCase
	for _, c := range cases {
		if slices.Contains(c.gold, true) {
			use = append(use, c)
		}
	}
	w := make([]float64, d)
	w[0] = mask[0]
	m, v := make([]float64, d), make([]float64, d)
	n := float64(len(use))
	const b1, b2, lr = 0.9, 0.999, 0.02
	for ep := 1; ep <= epochs; ep++ {
		g := make([]float64, d)
		for _, c := range use {
			s := make([]float64, len(c.x))
			top := math.Inf(-1)
			for i, x := range c.x {
				s[i] = dot(x, w)
				top = max(top, s[i])
			}
			z, ng := 0.0, 0.0
			for i := range s {
				s[i] = math.Exp(s[i] - top)
				z += s[i]
				if c.gold[i] {
					ng++
				}
			}
			for i, x := range c.x {
				p := s[i] / z
				t := 0.0
				if c.gold[i] {
					t = 1 / ng
				}
				for j := range g {
					g[j] += x[j] * (p - t)
				}
			}
		}
		for j := range g {
			g[j] = (g[j]/n + l2*w[j]/n) * mask[j]
			m[j] = b1*m[j] + (1-b1)*g[j]
			v[j] = b2*v[j] + (1-b2)*g[j]*g[j]
			mh := m[j] / (1 - math.Pow(b1, float64(ep)))
			vh := v[j] / (1 - math.Pow(b2, float64(ep)))
			w[j] -= lr * mh / (math.Sqrt(vh) + 1e-8)
		}
	}
	return w
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// firstGoldRR is the mean reciprocal rank of the first gold file when
// each case's files are ordered by x·w (nil: the channels' order; ties
// keep it).
func firstGoldRR(cases []rankedCase, w []float64) float64 {
	if len(cases) == 0 {
		return 0
	}
	sum := 0.0
	for _, c := range cases {
		idx, score := make([]int, len(c.x)), make([]float64, len(c.x))
		for i, x := range c.x {
			idx[i] = i
			if w != nil {
				score[i] = dot(x, w)
			}
		}
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(score[b], score[a]) })
		for r, i := range idx {
			if c.gold[i] {
				sum += 1 / float64(r+1)
				break
			}
		}
	}
	return sum / float64(len(cases))
}
