package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"os/signal"
	"reflect"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxls/ctxls/eval"
	"github.com/ctxls/ctxls/eval/baseline"
	"github.com/ctxls/ctxls/eval/mine"
	"github.com/ctxls/ctxls/eval/runner"
	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/pgstore"
	"github.com/ctxls/ctxls/internal/retrieve"
	"github.com/ctxls/ctxls/internal/semantic"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "eval:", err)
		os.Exit(1)
	}
}

func run() error {
	var (
		casesPath  = flag.String("cases", "eval/cases.json", "the cases file")
		reposDir   = flag.String("repos-dir", os.Getenv("EVAL_REPOS_DIR"), "directory holding the repositories' git directories (default $EVAL_REPOS_DIR)")
		repoMap    = flag.String("repos", "", "owner/name=GITDIR,… (overrides -repos-dir for those repositories)")
		work       = flag.String("work", "eval/work", "where the source trees are built")
		keep       = flag.Bool("keep-trees", true, "keep the built trees for the next run")
		repoSel    = flag.String("repo", "", "only these repositories (comma-separated owner/name or name substrings)")
		taskSel    = flag.String("task", "all", "query, diff, cursor or all")
		caseSel    = flag.String("case", "", "only cases whose id contains this")
		limit      = flag.Int("limit", 0, "at most N cases per repository and task (0: all)")
		budgets    = flag.String("budgets", "2000,8000", "token budgets")
		systems    = flag.String("systems", "ctxls,bm25,zoekt,repomap", "systems to run: ctxls, bm25, zoekt (the zoekt-like peer, query and diff tasks), repomap (the aider-like peer)")
		curBudgets = flag.String("cursor-budgets", "300,2000,8000", "token budgets of the cursor task")
		ablations  = flag.Bool("ablations", true, "also run ctxls with each channel off in turn")
		ablBudget  = flag.String("ablation-budgets", "2000", "budgets of the ablations")
		weights    = flag.String("weights", "", "channel weight overrides, e.g. lexical=1,symbol=2 ("+strings.Join(runner.Channels(), ", ")+")")
		opts       = flag.String("opts", "", "engine option overrides by field name, e.g. rrfk=30,lexicalk=200 (fields of retrieve.Options: "+optionNames()+")")
		rrfk       = flag.Float64("rrfk", 0, "shortcut for -opts rrfk=X")
		window     = flag.Int("baseline-window", 60, "baseline window lines")
		stride     = flag.Int("baseline-stride", 60, "baseline window stride (60: no overlap)")
		encoding   = flag.String("encoding", "cl100k_base", "token encoding")
		format     = flag.String("format", "markdown", "context format")
		out        = flag.String("out", "", "write per-case results as JSON lines to this file")
		doc        = flag.String("doc", "", "replace the generated section of this markdown file (docs/quality.md) with the report")
		verbose    = flag.Bool("v", false, "a line per case")
		withParts  = flag.Bool("parts", false, "record each context's parts (path, shown line ranges, tokens) in the -out results")
		explain    = flag.Bool("explain", false, "record ctxls's explanation of every candidate (channels, priors, score) in the -out results")
		repeat     = flag.Bool("repeat-check", true, "run every ctxls request twice and count a case whose second rendering differs as an error")
		sem        = flag.Bool("semantic", semantic.DefaultMode == semantic.ModeWorkspace, "give ctxls the workspace embedder's vectors (package semantic), built per tree; compared with ctxls without them at every budget")
		semOpts    = flag.String("semantic-opts", "", "embedder option overrides by field name, e.g. dim=64,sigmaexp=1 (fields of semantic.Options)")
		heldOut    = flag.Float64("semantic-held-out", 0, "share of each tree's files the embedder is not trained on, embedded afterwards with the same model (the drift experiment; pair with -semantic-opts retraindrift=1,retrainfiles=1)")
		modelAges  = flag.String("model-ages", "", "also answer every ctxls request (but the cursor task's) with the semantic model trained N commits (first parent) before the tree's commit, reused as a CLI call reuses its index cache's model unless the tree drifted past the retrain thresholds; comma-separated N, e.g. 10,50; reported beside the fresh model as system ctxls-model-N, with how many cases retrained (needs -semantic)")
		diffMode   = flag.String("mode", "", "ctxls's mode for every request with a diff, related or review (default: review for the review task, related for the diff task)")
		activity   = flag.Bool("activity", false, "diff task: simulate an editor session (the diff's files open, its changed lines edited, the commit's subject asked) and compare ctxls with and without the activity")
		hist       = flag.Bool("history", true, "make each tree a git checkout of its case's parent commit and give ctxls its history (false: no history, as in a tree without .git)")
		listRepos  = flag.Bool("list-repos", false, "print the repositories of the cases file (owner/name head) and exit")
		cpuProfile = flag.String("cpuprofile", "", "write a CPU profile of the run to this file; each request's samples carry the labels system=NAME, repo=OWNER/NAME and phase=request (first) or repeat (go tool pprof -tagfocus phase=request …)")
		checkRepos = flag.Bool("check-repos", false, "check that every repository's git directory is found and holds its recorded head, and exit")
		storeURL   = flag.String("store", "", "publish each tree into this index store (postgres://…) and answer every ctxls request from a replica's checkout too: the contexts must be byte-identical (the run fails otherwise)")
	)
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	f, err := eval.Load(*casesPath)
	if err != nil {
		return err
	}
	if *listRepos {
		for _, r := range f.Repos {
			fmt.Printf("%s %s\n", r.Name, r.Head)
		}
		return nil
	}
	if *checkRepos {
		return check(f, *reposDir, *repoMap)
	}
	cfg := runner.Config{
		Work: *work, KeepTrees: *keep, Encoding: *encoding, Format: assemble.Format(*format),
		Options: retrieve.DefaultOptions(), Log: os.Stderr, Verbose: *verbose, Parts: *withParts, RepeatCheck: *repeat, Explain: *explain, History: *hist,
		Semantic: *sem, SemanticOptions: semantic.DefaultOptions(), SemanticHeldOut: *heldOut, Activity: *activity,
		Baseline: baseline.DefaultOptions(), Zoekt: baseline.DefaultZoektOptions(),
	}
	cfg.Baseline.WindowLines, cfg.Baseline.Stride = *window, *stride
	if cfg.Budgets, err = ints(*budgets); err != nil {
		return err
	}
	if cfg.CursorBudgets, err = ints(*curBudgets); err != nil {
		return err
	}
	if *modelAges != "" {
		if !*sem {
			return fmt.Errorf("-model-ages needs -semantic")
		}
		if cfg.ModelAges, err = counts(*modelAges); err != nil {
			return fmt.Errorf("-model-ages: %w", err)
		}
	}
	if *ablations {
		if cfg.AblationBudgets, err = ints(*ablBudget); err != nil {
			return err
		}
	}
	cfg.Systems = splitList(*systems)
	for _, s := range cfg.Systems {
		if s != runner.SystemCtxls && s != runner.SystemBaseline && s != runner.SystemZoekt && s != runner.SystemRepoMap {
			return fmt.Errorf("unknown system %q", s)
		}
	}
	if cfg.Weights, err = parseWeights(*weights); err != nil {
		return err
	}
	if *diffMode != "" {
		m, err := retrieve.ParseMode(*diffMode)
		if err != nil {
			return fmt.Errorf("-mode: %w", err)
		}
		cfg.DiffMode = &m
	}
	if err := setOptions(&cfg.Options, *opts); err != nil {
		return err
	}
	if err := setOptions(&cfg.SemanticOptions, *semOpts); err != nil {
		return err
	}
	if *rrfk > 0 {
		cfg.Options.RRFK = *rrfk
	}
	cfg.Cases = selectCases(f.Cases, splitList(*repoSel), *taskSel, *caseSel, *limit)
	if len(cfg.Cases) == 0 {
		return fmt.Errorf("no case selected")
	}
	if cfg.RepoDirs, err = repoDirs(cfg.Cases, *reposDir, *repoMap); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *storeURL != "" {
		st, err := pgstore.Open(ctx, *storeURL)
		if err != nil {
			return fmt.Errorf("-store: %w", err)
		}
		defer st.Close()
		parent, err := os.MkdirTemp("", "ctxls-eval-store-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(parent)
		cfg.Store, cfg.StoreParent = st, parent
	}
	if *cpuProfile != "" {
		pf, err := os.Create(*cpuProfile)
		if err != nil {
			return fmt.Errorf("-cpuprofile: %w", err)
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return fmt.Errorf("-cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	fmt.Fprintf(os.Stderr, "eval: %d cases, budgets %v, systems %v, ablations at %v, options %+v, weights %v\n",
		len(cfg.Cases), cfg.Budgets, cfg.Systems, cfg.AblationBudgets, cfg.Options, cfg.Weights)
	results, st, err := runner.Run(ctx, cfg)
	if err != nil && len(results) == 0 {
		return err
	}
	if *out != "" {
		if werr := writeJSONL(*out, results); werr != nil {
			return werr
		}
	}
	var rep bytes.Buffer
	eval.Report(&rep, results, runner.SystemCtxls, runner.SystemBaseline)
	fmt.Fprintf(&rep, "\n%d cases over %d trees (%d tree errors, %d gold files not indexed), %d files indexed; "+
		"trees built in %.0fs, indexed in %.0fs, total %.0fs.\n",
		len(cfg.Cases), st.Trees, st.TreeErrors, st.MissingGold, st.Files, st.Extract.Seconds(), st.Index.Seconds(), st.Total.Seconds())
	for _, n := range slices.Sorted(maps.Keys(st.OldModels)) {
		o := st.OldModels[n]
		fmt.Fprintf(&rep, "Model %d commits back: reused in %d trees, trained again in %d (past the files' threshold in %d, the terms' in %d); %d older commits trained on in %.0fs, loaded for the trees in %.0fs.\n",
			n, o.Reused, o.Retrained, o.PastFiles, o.PastTerms, o.Commits, o.Train.Seconds(), o.Load.Seconds())
	}
	if cfg.Store != nil {
		fmt.Fprintf(&rep, "Store parity: %d ctxls requests answered from the store's replica too, %d contexts differed from the local index's.\n",
			st.StoreChecked, st.StoreMismatches)
	}
	os.Stdout.Write(rep.Bytes())
	if st.StoreMismatches > 0 && err == nil {
		err = fmt.Errorf("store parity: %d of %d contexts differ; the first: %s", st.StoreMismatches, st.StoreChecked, st.StoreFirst)
	}
	if *doc != "" {
		if derr := eval.ReplaceGenerated(*doc, rep.String()); derr != nil {
			return derr
		}
	}
	return err
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

func ints(s string) ([]int, error) {
	var out []int
	for _, x := range splitList(s) {
		n, err := strconv.Atoi(x)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("bad budget %q", x)
		}
		out = append(out, n)
	}
	return out, nil
}

// counts reads a list of positive numbers (-model-ages), sorted and
// without repeats.
func counts(s string) ([]int, error) {
	var out []int
	for _, x := range splitList(s) {
		n, err := strconv.Atoi(x)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("bad count %q (want a positive number of commits)", x)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no count in %q", s)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// parseWeights reads -weights (the engine's own parser and checks).
func parseWeights(s string) (map[string]float64, error) { return retrieve.ParseWeights(s) }

func optionNames() string { return strings.Join(fieldNames(reflect.TypeFor[retrieve.Options]()), ", ") }

// fieldNames are the lower-cased names of t's exported fields, those of
// its embedded structs (each channel's options in retrieve.Options) in
// their place: the names setOptions sets.
func fieldNames(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		switch {
		case f.Anonymous && f.Type.Kind() == reflect.Struct:
			names = append(names, fieldNames(f.Type)...)
		case f.IsExported():
			names = append(names, strings.ToLower(f.Name))
		}
	}
	return names
}

// setOptions sets fields of o named case-insensitively in s
// ("rrfk=30,lexicalk=200").
func setOptions(o any, s string) error {
	v := reflect.ValueOf(o).Elem()
	for _, kv := range splitList(s) {
		k, val, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("bad option %q (want name=value)", kv)
		}
		fv := v.FieldByNameFunc(func(n string) bool { return strings.EqualFold(n, k) })
		if !fv.IsValid() || !fv.CanSet() {
			return fmt.Errorf("unknown option %q (options: %s)", k, strings.Join(fieldNames(v.Type()), ", "))
		}
		switch fv.Kind() {
		case reflect.Int, reflect.Int64, reflect.Int32:
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				return fmt.Errorf("option %s: %w", k, err)
			}
			fv.SetInt(n)
		case reflect.Uint64:
			n, err := strconv.ParseUint(val, 10, 64)
			if err != nil {
				return fmt.Errorf("option %s: %w", k, err)
			}
			fv.SetUint(n)
		case reflect.Float64, reflect.Float32:
			x, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return fmt.Errorf("option %s: %w", k, err)
			}
			fv.SetFloat(x)
		case reflect.Bool:
			b, err := strconv.ParseBool(val)
			if err != nil {
				return fmt.Errorf("option %s: %w", k, err)
			}
			fv.SetBool(b)
		case reflect.String:
			fv.SetString(val)
		default:
			return fmt.Errorf("option %s: cannot set a %s from the command line", k, fv.Kind())
		}
	}
	return nil
}

func selectCases(cs []eval.Case, repos []string, task, id string, limit int) []eval.Case {
	var out []eval.Case
	n := map[string]int{}
	for _, c := range cs {
		if len(repos) > 0 && !slices.ContainsFunc(repos, func(r string) bool { return strings.Contains(c.Repo, r) }) {
			continue
		}
		if task != "all" && task != "" && c.Task != task {
			continue
		}
		if id != "" && !strings.Contains(c.ID, id) {
			continue
		}
		if limit > 0 && n[c.Repo+"/"+c.Task] >= limit {
			continue
		}
		n[c.Repo+"/"+c.Task]++
		out = append(out, c)
	}
	return out
}

func repoDirs(cs []eval.Case, dir, list string) (map[string]string, error) {
	m := map[string]string{}
	for _, kv := range splitList(list) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("bad -repos entry %q (want owner/name=DIR)", kv)
		}
		m[k] = v
	}
	var missing []string
	for _, c := range cs {
		if _, ok := m[c.Repo]; ok {
			continue
		}
		if dir != "" {
			if d, ok := mine.FindRepo(dir, c.Repo); ok {
				m[c.Repo] = d
				continue
			}
		}
		if !slices.Contains(missing, c.Repo) {
			missing = append(missing, c.Repo)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("no git directory for %s: set -repos-dir / EVAL_REPOS_DIR or -repos (scripts/eval.sh -clone fetches them)", strings.Join(missing, ", "))
	}
	return m, nil
}

// check verifies that every repository of f is found and holds its head.
func check(f *eval.File, dir, list string) error {
	var cs []eval.Case
	for _, r := range f.Repos {
		cs = append(cs, eval.Case{Repo: r.Name})
	}
	dirs, err := repoDirs(cs, dir, list)
	if err != nil {
		return err
	}
	bad := 0
	for _, r := range f.Repos {
		if _, err := (mine.Git{Dir: dirs[r.Name]}).Resolve(context.Background(), r.Head); err != nil {
			fmt.Printf("MISSING %s: %s has no commit %s\n", r.Name, dirs[r.Name], r.Head)
			bad++
			continue
		}
		fmt.Printf("ok %s %s\n", r.Name, dirs[r.Name])
	}
	if bad > 0 {
		return fmt.Errorf("%d repositories lack their recorded head", bad)
	}
	return nil
}

func writeJSONL(path string, results []eval.Result) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	round := func(x float64) float64 { return math.Round(x*1e4) / 1e4 }
	for _, r := range results {
		r.FileRecall, r.LineRecall, r.MRR, r.OwnShare = round(r.FileRecall), round(r.LineRecall), round(r.MRR), round(r.OwnShare)
		// Latencies vary from run to run: kept out of the per-case
		// results, so that a file regenerated with the same results is
		// byte-identical and git stores it once (the latency summaries are
		// in the generated tables, from the same run).
		r.LatencyMs = 0
		if err := enc.Encode(r); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
