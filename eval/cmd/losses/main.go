package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxls/ctxls/eval"
	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/ranges"
	"github.com/ctxls/ctxls/internal/retrieve"
)

// contentShare is the share of the budget the ceilings fill with lines
// (the rest: headers, fences, and what a rendered context adds).
const contentShare = 0.85

func main() {
	var (
		results, cases, task, budgets string
	)
	flag.StringVar(&results, "results", "", "an eval run's -out results, run with -explain and -parts (required)")
	flag.StringVar(&cases, "cases", "eval/cases.json", "the cases file of -results")
	flag.StringVar(&task, "task", eval.TaskQuery, "the task whose results are read: query or diff")
	flag.StringVar(&budgets, "budgets", "2000,8000", "the budgets whose results are read (comma-separated)")
	flag.Parse()
	if results == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	var bs []int
	for _, s := range strings.Split(budgets, ",") {
		b, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || b <= 0 {
			fmt.Fprintf(os.Stderr, "losses: -budgets: %q is no budget\n", s)
			os.Exit(2)
		}
		bs = append(bs, b)
	}
	if err := run(os.Stdout, results, cases, task, bs); err != nil {
		fmt.Fprintln(os.Stderr, "losses:", err)
		os.Exit(1)
	}
}

// Where a gold line went.
const (
	lineShown = iota
	lineTrimmed
	lineUnitOver
	lineNoUnit
	lineFileOver
	lineNoFile
	nWhere
)

var whereNames = [nWhere]string{"shown", "trimmed", "unit over budget", "no unit", "file over budget", "no file"}

// unit is one candidate of a case: its file, lines and score.
type unit struct {
	path  string
	lines []ranges.Range
	score float64
	part  bool // the context shows it (or the part it was folded into)
}

// caseLosses is one case's account.
type caseLosses struct {
	where                 [nWhere]float64 // shares of the gold lines
	fileCeiling           float64         // share of gold files among the candidates
	rightFiles, rightBoth float64         // line recall ceilings
}

// total sums the accounts of a task and budget.
type total struct {
	n int
	caseLosses
}

func (t *total) add(c caseLosses) {
	t.n++
	for i, v := range c.where {
		t.where[i] += v
	}
	t.fileCeiling += c.fileCeiling
	t.rightFiles += c.rightFiles
	t.rightBoth += c.rightBoth
}

func run(w io.Writer, results, casesPath, task string, budgets []int) error {
	cf, err := eval.Load(casesPath)
	if err != nil {
		return err
	}
	gold := map[string]*eval.Case{}
	for i := range cf.Cases {
		gold[cf.Cases[i].ID] = &cf.Cases[i]
	}
	f, err := os.Open(results)
	if err != nil {
		return err
	}
	defer f.Close()
	totals := map[int]*total{}
	for _, b := range budgets {
		totals[b] = &total{}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for n := 1; sc.Scan(); n++ {
		var r eval.Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fmt.Errorf("%s:%d: %w", results, n, err)
		}
		t := totals[r.Budget]
		if r.System != "ctxls" || r.Task != task || t == nil {
			continue
		}
		c, ok := gold[r.Case]
		if !ok {
			return fmt.Errorf("%s:%d: case %s is not in %s", results, n, r.Case, casesPath)
		}
		if len(r.Explain) == 0 || len(r.Parts) == 0 {
			return fmt.Errorf("%s:%d: %s has no explanation or no parts (run the eval with -explain -parts)", results, n, r.Case)
		}
		var expl []retrieve.Explanation
		if err := json.Unmarshal(r.Explain, &expl); err != nil {
			return fmt.Errorf("%s:%d: explain: %w", results, n, err)
		}
		t.add(account(c.Gold, r.Parts, units(expl), r.Budget))
	}
	if err := sc.Err(); err != nil {
		return err
	}
	for _, b := range budgets {
		t := totals[b]
		if t.n == 0 {
			return fmt.Errorf("%s: no %s results at budget %d", results, task, b)
		}
		n := float64(t.n)
		fmt.Fprintf(w, "%s, %d tokens, %d cases\n", task, b, t.n)
		fmt.Fprintf(w, "  gold lines:")
		for i, v := range t.where {
			fmt.Fprintf(w, " %s %.3f;", whereNames[i], v/n)
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "  ceilings: file recall %.3f; line recall with the right files %.3f, with the right files and units %.3f\n",
			t.fileCeiling/n, t.rightFiles/n, t.rightBoth/n)
	}
	return nil
}

// units are a case's candidates, one per handle (the next-best maps, one
// line of a file the ranking did not reach, are left out: they are no
// unit of the ranking).
func units(expl []retrieve.Explanation) []unit {
	var out []unit
	seen := map[string]int{}
	for _, e := range expl {
		if e.Focus == retrieve.NextBestMapFocus {
			continue
		}
		p, rs, err := assemble.ParseHandle(e.Handle)
		if err != nil {
			continue
		}
		if i, ok := seen[e.Handle]; ok {
			out[i].part = out[i].part || e.Part != ""
			continue
		}
		seen[e.Handle] = len(out)
		out = append(out, unit{path: p, lines: rs, score: e.Score, part: e.Part != ""})
	}
	return out
}

// account is one case's losses and ceilings.
func account(gold []eval.GoldFile, parts []eval.Part, us []unit, budget int) caseLosses {
	var c caseLosses
	shown := map[string][]ranges.Range{}
	tokens, lines := 0, 0
	for _, p := range parts {
		shown[p.Path] = ranges.Union(shown[p.Path], p.Ranges)
		tokens += p.Tokens
		lines += ranges.Total(p.Ranges)
	}
	rate := float64(tokens) / float64(max(1, lines))
	byPath := map[string][]unit{}
	for _, u := range us {
		byPath[u.path] = append(byPath[u.path], u)
	}
	total := 0
	for _, g := range gold {
		total += ranges.Total(g.Lines)
		_, fileShown := shown[g.Path]
		if len(byPath[g.Path]) > 0 || fileShown {
			c.fileCeiling++
		}
		for _, r := range g.Lines {
			for l := r.Start; l <= r.End; l++ {
				c.where[where(l, g.Path, fileShown, shown[g.Path], byPath[g.Path])]++
			}
		}
	}
	if total == 0 {
		return c
	}
	for i := range c.where {
		c.where[i] /= float64(total)
	}
	c.fileCeiling /= float64(len(gold))
	share := contentShare * float64(budget) / float64(len(gold))
	for _, g := range gold {
		c.rightFiles += float64(fill(byPath[g.Path], g.Lines, share, rate, false)) / float64(total)
		c.rightBoth += float64(fill(byPath[g.Path], g.Lines, share, rate, true)) / float64(total)
	}
	return c
}

// where tells where gold line l of path went.
func where(l int, path string, fileShown bool, shown []ranges.Range, us []unit) int {
	if ranges.ContainsLine(shown, l) {
		return lineShown
	}
	held, heldByPart := false, false
	for _, u := range us {
		if ranges.ContainsLine(u.lines, l) {
			held = true
			heldByPart = heldByPart || u.part
		}
	}
	switch {
	case heldByPart:
		return lineTrimmed
	case held && fileShown:
		return lineUnitOver
	case fileShown:
		return lineNoUnit
	case held:
		return lineFileOver
	}
	return lineNoFile
}

// fill is how many gold lines a file's units show within share tokens
// (units whole, rate tokens a line), taken by score or, with oracle, the
// units holding gold first, densest first.
func fill(us []unit, gold []ranges.Range, share, rate float64, oracle bool) int {
	us = slices.Clone(us)
	goldIn := func(u unit) int { return ranges.Total(ranges.Intersect(u.lines, gold)) }
	if oracle {
		us = slices.DeleteFunc(us, func(u unit) bool { return goldIn(u) == 0 })
		slices.SortStableFunc(us, func(a, b unit) int {
			da := float64(goldIn(a)) / float64(ranges.Total(a.lines))
			db := float64(goldIn(b)) / float64(ranges.Total(b.lines))
			return cmp.Compare(db, da)
		})
	} else {
		slices.SortStableFunc(us, func(a, b unit) int { return cmp.Compare(b.score, a.score) })
	}
	var got []ranges.Range
	used := 0.0
	for _, u := range us {
		cost := rate * float64(ranges.Total(ranges.Subtract(u.lines, got)))
		if used+cost > share {
			continue
		}
		used += cost
		got = ranges.Union(got, u.lines)
	}
	return ranges.Total(ranges.Intersect(got, gold))
}
