package eval

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// Summary aggregates results of one (task, system, budget[, repo]) group.
type Summary struct {
	Task, System, Repo string
	Budget             int
	N                  int
	FileRecall         float64
	AllFiles           float64
	LineRecall         float64
	MRR                float64
	Tokens             float64 // mean tokens used
	OverShare          float64 // share of results over budget
	OwnShare           float64 // diff task: mean share of tokens on the diff's own file
	CursorShown        float64 // cursor task: share of contexts showing the cursor's line
	Noise              float64 // mean share of the context's tokens in parts neither the gold nor the request refers to
	FalseMatches       int     // parts brought only through a name that cannot refer to them (FalseMatches), in all
	FalseContexts      int     // contexts holding such a part
	Errors             int
	// Retrained counts the results whose old semantic model was trained
	// again on the tree (Result.ModelRetrained).
	Retrained int
	P50, P95  float64 // latency, ms
}

// Key groups results.
type Key struct {
	Task, System, Repo string
	Budget             int
}

// Summarize groups results by task, system and budget, and by repo too when
// perRepo is set, and averages each group. Groups are sorted by task,
// repo, budget, then system (ctxls first, then bm25, zoekt, repomap, then ablations).
func Summarize(results []Result, perRepo bool) []Summary {
	groups := map[Key][]Result{}
	for _, r := range results {
		k := Key{Task: r.Task, System: r.System, Budget: r.Budget}
		if perRepo {
			k.Repo = r.Repo
		}
		groups[k] = append(groups[k], r)
	}
	var out []Summary
	for k, rs := range groups {
		s := Summary{Task: k.Task, System: k.System, Repo: k.Repo, Budget: k.Budget, N: len(rs)}
		var lat []float64
		for _, r := range rs {
			s.FileRecall += r.FileRecall
			s.AllFiles += r.AllFiles
			s.LineRecall += r.LineRecall
			s.MRR += r.MRR
			s.Tokens += float64(r.Tokens)
			s.OwnShare += r.OwnShare
			s.CursorShown += r.CursorShown
			s.Noise += r.Noise
			s.FalseMatches += r.FalseMatches
			if r.FalseMatches > 0 {
				s.FalseContexts++
			}
			if r.Over {
				s.OverShare++
			}
			if r.Error != "" {
				s.Errors++
			}
			if r.ModelRetrained {
				s.Retrained++
			}
			lat = append(lat, r.LatencyMs)
		}
		n := float64(len(rs))
		s.FileRecall /= n
		s.AllFiles /= n
		s.LineRecall /= n
		s.MRR /= n
		s.Tokens /= n
		s.OverShare /= n
		s.OwnShare /= n
		s.CursorShown /= n
		s.Noise /= n
		s.P50, s.P95 = Percentile(lat, 50), Percentile(lat, 95)
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Summary) int {
		return cmp.Or(cmp.Compare(taskOrder(a.Task), taskOrder(b.Task)), cmp.Compare(a.Repo, b.Repo),
			cmp.Compare(a.Budget, b.Budget), cmp.Compare(systemOrder(a.System), systemOrder(b.System)),
			cmp.Compare(a.System, b.System))
	})
	return out
}

func taskOrder(t string) int {
	switch t {
	case TaskQuery:
		return 0
	case TaskDiff:
		return 1
	case TaskCursor:
		return 2
	}
	return 3
}

func systemOrder(s string) int {
	switch s {
	case "ctxls":
		return 0
	case "bm25":
		return 1
	case "zoekt":
		return 2
	case "repomap":
		return 3
	}
	return 4
}

// Percentile returns the p-th percentile of xs (nearest rank), 0 for none.
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

// WriteTable writes summaries as a markdown table. With repo set, the first
// column names the repository.
func WriteTable(w io.Writer, sums []Summary, repo bool) {
	writeTable(w, sums, repo, []string{"file recall", "all files", "line recall", "MRR", "noise"},
		func(s Summary) []string {
			return []string{f3(s.FileRecall), f3(s.AllFiles), f3(s.LineRecall), f3(s.MRR), f3(s.Noise)}
		})
}

// writeTable writes the table of WriteTable and WriteCursorTable: repo (if
// asked), system, budget and n, the task's metric columns, then tokens,
// over-budget share, errors and latency.
func writeTable(w io.Writer, sums []Summary, repo bool, metrics []string, values func(Summary) []string) {
	var head []string
	if repo {
		head = append(head, "repo")
	}
	head = append(head, "system", "budget", "n")
	head = append(head, metrics...)
	head = append(head, "tokens", "over", "errors", "p50 ms", "p95 ms")
	fmt.Fprintf(w, "| %s |\n", strings.Join(head, " | "))
	seps := make([]string, len(head))
	for i := range seps {
		seps[i] = "---:"
		if i == 0 || (repo && i == 1) {
			seps[i] = "---"
		}
	}
	fmt.Fprintf(w, "|%s|\n", strings.Join(seps, "|"))
	for _, s := range sums {
		var row []string
		if repo {
			row = append(row, cmp.Or(s.Repo, "**all**"))
		}
		row = append(row, s.System, fmt.Sprint(s.Budget), fmt.Sprint(s.N))
		row = append(row, values(s)...)
		row = append(row, fmt.Sprintf("%.0f", s.Tokens), f3(s.OverShare), fmt.Sprint(s.Errors),
			fmt.Sprintf("%.1f", s.P50), fmt.Sprintf("%.1f", s.P95))
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
}

func f3(x float64) string { return fmt.Sprintf("%.3f", x) }

// WriteAblation writes, for each budget, the full system's metrics and
// each ablation's difference from it, as a markdown table.
func WriteAblation(w io.Writer, sums []Summary, full string) {
	writeAblation(w, sums, full, []string{"file recall", "line recall", "MRR", "all files"},
		func(s Summary) []float64 { return []float64{s.FileRecall, s.LineRecall, s.MRR, s.AllFiles} })
}

// writeAblation writes the ablation table of the named metrics: for the
// full system and each "full-…" system at a budget the full system has,
// each metric and (for the ablations) its difference from the full one.
func writeAblation(w io.Writer, sums []Summary, full string, names []string, metrics func(Summary) []float64) {
	head, rule := "| system | budget | n |", "|---|---:|---:|"
	for _, n := range names {
		head += " " + n + " | Δ |"
		rule += "---:|---:|"
	}
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, rule)
	base := map[int]Summary{}
	for _, s := range sums {
		if s.System == full {
			base[s.Budget] = s
		}
	}
	for _, s := range sums {
		b, ok := base[s.Budget]
		if !ok || (s.System != full && !strings.HasPrefix(s.System, full+"-")) {
			continue
		}
		row := fmt.Sprintf("| %s | %d | %d |", s.System, s.Budget, s.N)
		mine, theirs := metrics(s), metrics(b)
		for i, x := range mine {
			d := ""
			if s.System != full {
				d = signed(x - theirs[i])
			}
			row += " " + f3(x) + " | " + d + " |"
		}
		fmt.Fprintln(w, row)
	}
}

// signed formats a difference with its sign and three decimals, never as
// "-0.000".
func signed(d float64) string {
	if math.Abs(d) < 0.0005 {
		d = 0
	}
	return fmt.Sprintf("%+.3f", d)
}

// WriteCursorTable writes cursor-task summaries as a markdown table: the
// definition's file shown (file recall), its line shown (line recall), the
// MRR of its file and the share of contexts showing the cursor's line.
func WriteCursorTable(w io.Writer, sums []Summary, repo bool) {
	writeTable(w, sums, repo, []string{"def file shown", "def line shown", "MRR", "cursor line shown", "noise"},
		func(s Summary) []string {
			return []string{f3(s.FileRecall), f3(s.LineRecall), f3(s.MRR), f3(s.CursorShown), f3(s.Noise)}
		})
}

// WriteCursorAblation is WriteAblation for the cursor task's metrics.
func WriteCursorAblation(w io.Writer, sums []Summary, full string) {
	writeAblation(w, sums, full, []string{"def file shown", "def line shown", "MRR", "cursor line shown"},
		func(s Summary) []float64 { return []float64{s.FileRecall, s.LineRecall, s.MRR, s.CursorShown} })
}
