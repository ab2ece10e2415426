package eval

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// The query and diff tasks' targets over the BM25 baseline, and the query
// task's absolute file recall at 8 000 (docs/quality.md, Targets), checked
// by WriteTargets.
const (
	TargetFileRecallGain = 0.15 // query task, budget 2000, over the baseline
	TargetLineRecallGain = 0.15
	TargetMRRGain        = 0.10
	TargetFileRecall8000 = 0.95 // query task, budget 8000, absolute
	TargetDiffFileGain   = 0.20 // diff task, budget 2000, over the baseline
)

// The cursor task's targets, absolute (docs/quality.md, Targets).
var cursorTargets = []struct {
	budget     int
	file, line float64
}{{2000, 0.90, 0.60}, {8000, 0.98, 0.88}}

// The peers beside the plain BM25 baseline: the aider-like repository map
// (every task) and the zoekt-like BM25F search (query and diff tasks).
const (
	PeerRepoMap = "repomap"
	PeerZoekt   = "zoekt"
	// NoHistorySuffix names the full system without the workspace's git
	// history ("ctxls-no-history": the same tree as if it had no .git),
	// run at every budget when the trees are git checkouts.
	NoHistorySuffix = "-no-history"
	// NoSemanticSuffix names the full system without the semantic
	// channel's vectors, run at every budget when the eval computes them.
	NoSemanticSuffix = "-no-semantic"
)

// WritePeers writes, for the query and diff tasks at each budget, ctxls's
// file recall, line recall, MRR and noise beside the best of base and the
// peers on that metric (for noise the least), as a markdown table.
func WritePeers(w io.Writer, sums []Summary, full, base string) {
	noHist := full + NoHistorySuffix
	withNoHist := slices.ContainsFunc(sums, func(s Summary) bool { return s.System == noHist && s.Task != TaskCursor })
	if withNoHist {
		fmt.Fprintln(w, "| task | budget | metric | ctxls | best peer | peer's value | difference | ctxls without history | difference |")
		fmt.Fprintln(w, "|---|---:|---|---:|---|---:|---:|---:|---:|")
	} else {
		fmt.Fprintln(w, "| task | budget | metric | ctxls | best peer | peer's value | difference |")
		fmt.Fprintln(w, "|---|---:|---|---:|---|---:|---:|")
	}
	peers := []string{base, PeerZoekt, PeerRepoMap}
	for _, task := range []string{TaskQuery, TaskDiff} {
		var budgets []int
		for _, s := range sums {
			if s.Task == task && s.System == full && s.Repo == "" {
				budgets = append(budgets, s.Budget)
			}
		}
		for _, b := range budgets {
			c, _ := pick(sums, task, full, b)
			for _, m := range []struct {
				name  string
				get   func(Summary) float64
				lower bool // lower is better: the best peer has the least
			}{
				{"file recall", func(s Summary) float64 { return s.FileRecall }, false},
				{"line recall", func(s Summary) float64 { return s.LineRecall }, false},
				{"MRR", func(s Summary) float64 { return s.MRR }, false},
				{"noise (lower is better)", func(s Summary) float64 { return s.Noise }, true},
			} {
				best, bestName := 0.0, ""
				for _, p := range peers {
					if ps, ok := pick(sums, task, p, b); ok && (bestName == "" || (m.get(ps) > best) != m.lower && m.get(ps) != best) {
						best, bestName = m.get(ps), p
					}
				}
				if bestName == "" {
					continue
				}
				fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |", task, thousands(b), m.name,
					f3(m.get(c)), bestName, f3(best), signed(m.get(c)-best))
				if withNoHist {
					if nh, ok := pick(sums, task, noHist, b); ok {
						fmt.Fprintf(w, " %s | %s |", f3(m.get(nh)), signed(m.get(nh)-best))
					} else {
						fmt.Fprint(w, "  |  |")
					}
				}
				fmt.Fprintln(w)
			}
		}
	}
}

func pick(sums []Summary, task, system string, budget int) (Summary, bool) {
	for _, s := range sums {
		if s.Task == task && s.System == system && s.Budget == budget && s.Repo == "" {
			return s, true
		}
	}
	return Summary{}, false
}

// WriteTargets writes the eval's targets and whether the results meet
// them, as a markdown table.
func WriteTargets(w io.Writer, sums []Summary, full, base string) {
	fmt.Fprintln(w, "| target | wanted | ctxls | baseline | difference | met |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---|")
	row := func(name string, want, got, bl float64, gain bool) {
		diff, met := got-bl, got-bl >= want-1e-9
		d, b := signed(diff), f3(bl)
		if !gain {
			diff, met, d, b = got, got >= want-1e-9, "", ""
		}
		mark := "yes"
		if !met {
			mark = fmt.Sprintf("no (short by %.3f)", want-diff)
		}
		wanted := fmt.Sprintf("≥ %.2f", want)
		if gain {
			wanted = fmt.Sprintf("+%.2f", want)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", name, wanted, f3(got), b, d, mark)
	}
	if c, ok := pick(sums, TaskQuery, full, 2000); ok {
		if b, ok := pick(sums, TaskQuery, base, 2000); ok {
			row("query, 2 000: file recall", TargetFileRecallGain, c.FileRecall, b.FileRecall, true)
			row("query, 2 000: line recall", TargetLineRecallGain, c.LineRecall, b.LineRecall, true)
			row("query, 2 000: MRR", TargetMRRGain, c.MRR, b.MRR, true)
		}
	}
	if c, ok := pick(sums, TaskQuery, full, 8000); ok {
		row("query, 8 000: file recall", TargetFileRecall8000, c.FileRecall, 0, false)
	}
	if c, ok := pick(sums, TaskDiff, full, 2000); ok {
		if b, ok := pick(sums, TaskDiff, base, 2000); ok {
			row("diff, 2 000: file recall", TargetDiffFileGain, c.FileRecall, b.FileRecall, true)
		}
	}
	for _, t := range cursorTargets {
		c, ok := pick(sums, TaskCursor, full, t.budget)
		if !ok {
			continue
		}
		p, hasPeer := pick(sums, TaskCursor, PeerRepoMap, t.budget)
		row(fmt.Sprintf("cursor, %s: def file shown", thousands(t.budget)), t.file, c.FileRecall, 0, false)
		row(fmt.Sprintf("cursor, %s: def line shown", thousands(t.budget)), t.line, c.LineRecall, 0, false)
		if hasPeer {
			row(fmt.Sprintf("cursor, %s: def file, ahead of repomap", thousands(t.budget)), 0, c.FileRecall, p.FileRecall, true)
			row(fmt.Sprintf("cursor, %s: def line, ahead of repomap", thousands(t.budget)), 0, c.LineRecall, p.LineRecall, true)
		}
	}
	minShown, any := 1.0, false
	for _, s := range sums {
		if s.Task == TaskCursor && s.System == full && s.Repo == "" {
			minShown, any = min(minShown, s.CursorShown), true
		}
	}
	if any {
		row("cursor: cursor line shown at every budget (min)", 1, minShown, 0, false)
	}
	over := 0.0
	for _, s := range sums {
		if s.Repo == "" {
			over += s.OverShare * float64(s.N)
		}
	}
	mark := "yes"
	if over > 0 {
		mark = "no"
	}
	fmt.Fprintf(w, "| never over budget | 0 | %.0f |  |  | %s |\n", over, mark)
}

// Report writes the markdown report of results: targets, the overall and
// per-repository tables of each task for the full system and the baseline,
// and the ablation tables.
func Report(w io.Writer, results []Result, full, base string) {
	all := Summarize(results, false)
	perRepo := Summarize(results, true)
	main := func(s Summary) bool {
		return s.System == full || s.System == full+NoHistorySuffix || s.System == full+NoSemanticSuffix || s.System == base || s.System == PeerZoekt || s.System == PeerRepoMap
	}
	filter := func(sums []Summary, task string, keep func(Summary) bool) []Summary {
		var out []Summary
		for _, s := range sums {
			if s.Task == task && keep(s) {
				out = append(out, s)
			}
		}
		return out
	}
	fmt.Fprintf(w, "### Targets\n\n")
	WriteTargets(w, all, full, base)
	var peers bytes.Buffer
	WritePeers(&peers, all, full, base)
	if strings.Count(peers.String(), "\n") > 2 {
		fmt.Fprintf(w, "\n### ctxls against the best peer (query and diff tasks)\n\n")
		w.Write(peers.Bytes())
	}
	var old bytes.Buffer
	WriteOldModel(&old, results, full)
	if old.Len() > 0 {
		fmt.Fprintf(w, "\n### A model trained N commits ago (the semantic channel's model reused as the CLI reuses it)\n\n")
		w.Write(old.Bytes())
	}
	for _, task := range []string{TaskQuery, TaskDiff, TaskCursor, TaskReview} {
		keep := main
		table, ablation := WriteTable, WriteAblation
		if task == TaskCursor {
			table, ablation = WriteCursorTable, WriteCursorAblation
		}
		overall := filter(all, task, keep)
		if len(overall) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n### %s task: overall\n\n", titleCase(task))
		table(w, overall, false)
		fmt.Fprintf(w, "\nParts only a name that cannot refer to them brought (a builtin's name the request never writes after a '.', a word the diff writes only in comments or strings; checked on every ctxls request):")
		for _, s := range overall {
			if s.System == full {
				fmt.Fprintf(w, " %s@%d %d in %d of %d contexts;", s.System, s.Budget, s.FalseMatches, s.FalseContexts, s.N)
			}
		}
		fmt.Fprintln(w)
		if task == TaskDiff {
			fmt.Fprintf(w, "\nShare of the context's tokens spent on the diff's own file (never gold):")
			for _, s := range overall {
				fmt.Fprintf(w, " %s@%d %.2f;", s.System, s.Budget, s.OwnShare)
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "\n### %s task: per repository\n\n", titleCase(task))
		table(w, filter(perRepo, task, keep), true)
		abl := filter(all, task, func(s Summary) bool {
			_, old := OldModelAge(s.System, full)
			return (strings.HasPrefix(s.System, full+"-") && !old) || s.System == full
		})
		if slices.ContainsFunc(abl, func(s Summary) bool { return s.System != full }) {
			fmt.Fprintf(w, "\n### %s task: ablations (one channel's weight set to 0)\n\n", titleCase(task))
			var ab []Summary
			budgets := map[int]bool{}
			for _, s := range abl {
				if s.System != full {
					budgets[s.Budget] = true
				}
			}
			for _, s := range abl {
				if budgets[s.Budget] {
					ab = append(ab, s)
				}
			}
			ablation(w, ab, full)
		}
	}
}

func titleCase(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// Markers delimit the generated part of docs/quality.md.
const (
	BeginMarker = "<!-- BEGIN GENERATED: go run ./eval/cmd/run -doc -->"
	EndMarker   = "<!-- END GENERATED -->"
)

// ReplaceGenerated replaces the text between the markers of the file at
// path by text.
func ReplaceGenerated(path, text string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	i := bytes.Index(b, []byte(BeginMarker))
	j := bytes.Index(b, []byte(EndMarker))
	if i < 0 || j < i {
		return fmt.Errorf("%s: no %q … %q section", path, BeginMarker, EndMarker)
	}
	var out bytes.Buffer
	out.Write(b[:i+len(BeginMarker)])
	out.WriteString("\n")
	out.WriteString(text)
	out.Write(b[j:])
	return os.WriteFile(path, out.Bytes(), 0o644)
}

// thousands writes n with a thin space between thousands ("2 000").
func thousands(n int) string {
	s := fmt.Sprint(n)
	if len(s) > 3 {
		return s[:len(s)-3] + " " + s[len(s)-3:]
	}
	return s
}
