package runner

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/ctxls/ctxls/eval"
	"github.com/ctxls/ctxls/eval/baseline"
	"github.com/ctxls/ctxls/eval/mine"
	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/history"
	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/index/chunk"
	"github.com/ctxls/ctxls/internal/pgstore"
	"github.com/ctxls/ctxls/internal/refs"
	"github.com/ctxls/ctxls/internal/retrieve"
	"github.com/ctxls/ctxls/internal/semantic"
	"github.com/ctxls/ctxls/internal/tokens"
)

// Systems.
const (
	SystemCtxls    = "ctxls"
	SystemBaseline = "bm25"
	// SystemZoekt is the zoekt-like peer: BM25F files (path, symbols,
	// content), then windows around their hits (query and diff tasks).
	SystemZoekt = "zoekt"
	// SystemRepoMap is the aider-like repository map: PageRank over the
	// reference graph personalised by the cursor's file, the query's
	// identifiers and files, or the diff's file and identifiers.
	SystemRepoMap = "repomap"
	// AblationPrefix + channel names ctxls with that channel's weight 0.
	AblationPrefix = "ctxls-no-"
)

// Config is one evaluation run.
type Config struct {
	Cases    []eval.Case
	RepoDirs map[string]string // owner/name → git directory
	Work     string            // where trees are built (eval/work)
	// KeepTrees keeps built trees for the next run; otherwise each tree
	// is removed once its cases are done.
	KeepTrees bool

	Budgets []int // e.g. 2000, 8000
	// CursorBudgets are the budgets of the cursor task (e.g. 300, 2000,
	// 8000); none: Budgets.
	CursorBudgets []int
	Systems       []string // SystemCtxls, SystemBaseline, SystemZoekt, SystemRepoMap
	// AblationBudgets are the budgets ablations run at; none: no
	// ablations.
	AblationBudgets []int

	// History makes each tree a git checkout of its case's parent commit
	// (linkGit: only the parent's ancestry reachable) and gives ctxls the
	// history read there; false: no history (as in a tree without .git).
	History bool
	// Semantic builds the workspace embedder's vectors of each tree
	// (SemanticOptions) and gives them to ctxls; ctxls without them runs
	// at every budget too.
	Semantic        bool
	SemanticOptions semantic.Options
	// SemanticHeldOut, in [0, 1), is the share of each tree's files
	// (chosen by a hash of the path) the model is not trained on: they
	// are embedded afterwards by Sync with the same model, as files
	// written since training would be (the experiment on vocabulary
	// drift; set SemanticOptions.RetrainDrift and RetrainFiles to 1 to
	// keep Sync from training again). 0: trained on every file.
	SemanticHeldOut float64
	// ModelAges, with Semantic, answer every ctxls request but a cursor's
	// (which brings no text to embed) also with, for each N, the vectors
	// a CLI call would use when its index cache was made N commits (first
	// parent) before the tree's commit: the model trained there, reused
	// for the tree by semantic.Load unless the tree has drifted past the
	// retrain thresholds (SemanticOptions.RetrainDrift, RetrainFiles).
	// Their system is eval.OldModelSystem(SystemCtxls, N); each result
	// says whether the model was trained again (eval.Result).
	ModelAges []int
	// Store, when set, publishes each tree into this index store and
	// answers every ctxls request from a replica's checkout of it too:
	// the two contexts must be byte-identical (Stats.StoreMismatches).
	// StoreParent is the replica's checkout directory.
	Store       *pgstore.Store
	StoreParent string
	// Activity simulates an editor session on the diff task: the diff's
	// files are the open buffers and its changed lines the edited ranges
	// (Request.Activity), and the question is the commit's subject (no
	// diff); ctxls without the activity (the subject alone) runs at every
	// budget too.
	Activity bool
	// DiffMode, when set, is ctxls's mode for every request with a diff
	// (the diff and review tasks); by default the review task asks for
	// retrieve.ModeReview, the diff task for the default mode.
	DiffMode *retrieve.Mode

	Weights  map[string]float64 // overrides of retrieve.DefaultWeights
	Options  retrieve.Options   // the engine's options
	Baseline baseline.Options
	Zoekt    baseline.ZoektOptions
	Encoding string
	Format   assemble.Format

	Log     io.Writer // progress; nil: none
	Verbose bool      // a line per case
	// Parts records each context's parts (path, shown ranges, tokens) in
	// the results, for diagnosis (the files alone are kept otherwise).
	Parts bool
	// RepeatCheck runs every ctxls request a second time and records an
	// error for the case when the second rendering differs from the first
	// (the same index state and request must give the same bytes).
	RepeatCheck bool
	// Explain records, for ctxls's own requests (not the ablations), the
	// explanation of every candidate (retrieve.Explanation: channels,
	// priors, score, in the context or why not) in the results, for
	// offline study of the ranking.
	Explain bool
}

// Stats describe a run.
type Stats struct {
	Trees      int
	TreeErrors int
	// StoreChecked and StoreMismatches count, with Config.Store, the
	// ctxls requests answered from the store's replica too, and those
	// whose context differed from the local index's (StoreFirst: the
	// first of them, described).
	StoreChecked, StoreMismatches int
	StoreFirst                    string
	Files                         int // indexed files, summed over trees
	// MissingGold counts gold files that are not in their tree's index
	// (ignored or filtered by the walker); they still count as misses.
	MissingGold int
	Extract     time.Duration
	Index       time.Duration
	Total       time.Duration
	// OldModels are, by N of Config.ModelAges, the old models' counts.
	OldModels map[int]*OldModelStats
}

type treeKey struct{ repo, tree string }

// Run evaluates cfg.Cases. Results are in case order (by repo and tree),
// systems and budgets in cfg order, then ablations.
func Run(ctx context.Context, cfg Config) ([]eval.Result, Stats, error) {
	start := time.Now()
	logf := func(format string, args ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, format, args...)
		}
	}
	reg := tokens.NewRegistry()
	counter, err := reg.Get(cfg.Encoding)
	if err != nil {
		return nil, Stats{}, err
	}
	eng := retrieve.NewEngineWith(reg, cfg.Options).WithResolver(refs.Resolver{})

	groups := map[treeKey][]*eval.Case{}
	for i := range cfg.Cases {
		c := &cfg.Cases[i]
		k := treeKey{c.Repo, c.Tree()}
		groups[k] = append(groups[k], c)
	}
	keys := slices.SortedFunc(maps.Keys(groups), func(a, b treeKey) int {
		return cmp.Or(strings.Compare(a.repo, b.repo), strings.Compare(a.tree, b.tree))
	})
	for _, k := range keys {
		if _, ok := cfg.RepoDirs[k.repo]; !ok {
			return nil, Stats{}, fmt.Errorf("no git directory for %s (give -repos-dir or -repos)", k.repo)
		}
	}
	if err := prepareWork(cfg.Work); err != nil {
		return nil, Stats{}, err
	}
	var ms *models
	if cfg.Semantic && len(cfg.ModelAges) > 0 {
		if ms, err = newModels(cfg.Work); err != nil {
			return nil, Stats{}, err
		}
		defer ms.close()
	}
	var st Stats
	var results []eval.Result
	for i, k := range keys {
		if err := ctx.Err(); err != nil {
			return results, st, err
		}
		cases := groups[k]
		g := mine.Git{Dir: cfg.RepoDirs[k.repo]}
		t := &tree{cfg: &cfg, eng: eng, counter: counter, stats: &st, repo: k.repo, git: g, rev: treeRev(cases[0]), models: ms}
		if ms != nil && slices.ContainsFunc(cases, func(c *eval.Case) bool { return c.Task != eval.TaskCursor }) {
			t.old = map[int]*oldModel{}
		}
		t0 := time.Now()
		dir, err := treeDir(ctx, cfg.Work, g, cases[0])
		if err == nil && cfg.History {
			err = linkGit(g, cases[0].Parent, dir)
		}
		st.Extract += time.Since(t0)
		if err == nil {
			t1 := time.Now()
			err = t.open(ctx, dir)
			st.Index += time.Since(t1)
		}
		if err != nil {
			st.TreeErrors++
			logf("[%d/%d] %s %s: %v\n", i+1, len(keys), k.repo, short(k.tree), err)
			for _, c := range cases {
				results = append(results, t.failAll(c, err)...)
			}
			continue
		}
		st.Trees++
		st.Files += len(t.snap.Paths())
		logf("[%d/%d] %s %s: %d files, %d chunks, indexed in %.1fs\n", i+1, len(keys), k.repo, short(k.tree),
			len(t.snap.Paths()), t.snap.NumChunks(), time.Since(t0).Seconds())
		for _, c := range cases {
			rs, missing := t.runCase(ctx, c)
			st.MissingGold += missing
			results = append(results, rs...)
			if cfg.Verbose {
				logf("  %s\n", caseLine(c, rs))
			}
		}
		t.close()
		if !cfg.KeepTrees {
			os.RemoveAll(dir)
		}
	}
	st.Total = time.Since(start)
	return results, st, nil
}

func short(tree string) string {
	if len(tree) > 12 && !strings.Contains(tree, "+") {
		return tree[:12]
	}
	if a, b, ok := strings.Cut(tree, "+"); ok {
		return a[:min(12, len(a))] + "+" + b
	}
	return tree
}

// caseLine summarizes one case's results at its first budget.
func caseLine(c *eval.Case, rs []eval.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-48s", c.ID)
	for _, r := range rs {
		if r.System == SystemCtxls || r.System == SystemBaseline {
			fmt.Fprintf(&b, " %s@%d fr=%.2f lr=%.2f mrr=%.2f", r.System, r.Budget, r.FileRecall, r.LineRecall, r.MRR)
			if r.Error != "" {
				fmt.Fprintf(&b, " ERR %s", r.Error)
			}
		}
	}
	return b.String()
}

// tree is one indexed tree and what runs over it.
type tree struct {
	cfg     *Config
	eng     *retrieve.Engine
	counter tokens.Counter
	x       *index.Index
	snap    *index.Snapshot
	release func()
	bm25    *baseline.Index
	zoekt   *baseline.Zoekt
	repomap *baseline.RepoMap
	hist    *history.Log    // nil without Config.History
	sem     *semantic.Store // nil without Config.Semantic
	// The replica's side, with Config.Store: the tree checked out of the
	// store and indexed from its stored chunks.
	rco      *pgstore.Checkout
	rx       *index.Index
	rsnap    *index.Snapshot
	rrelease func()
	rhist    *history.Log
	rsem     *semantic.Store
	stats    *Stats
	// The tree's repository and commit, and with Config.ModelAges the
	// vectors made with each older model (nil: none asked for the tree's
	// cases), the run's caches of those models and the tree's copies.
	repo   string
	git    mine.Git
	rev    string
	old    map[int]*oldModel
	models *models
	caches []string
}

func (t *tree) open(ctx context.Context, dir string) error {
	x, err := index.Open(ctx, dir, index.Options{InMemory: true, Counters: map[string]tokens.Counter{t.cfg.Encoding: t.counter}})
	if err != nil {
		return err
	}
	if err := x.Wait(ctx); err != nil {
		x.Close()
		return err
	}
	t.x = x
	t.snap, t.release = x.Snapshot()
	if t.cfg.History {
		if t.hist, err = history.Read(ctx, dir, history.DefaultOptions()); err != nil {
			return fmt.Errorf("history: %w", err)
		}
	}
	if t.cfg.Semantic {
		if t.sem, err = buildSemantic(ctx, t.snap, t.cfg); err != nil {
			return fmt.Errorf("semantic: %w", err)
		}
	}
	if t.old != nil {
		for _, n := range t.cfg.ModelAges {
			if err := t.openOldModel(ctx, n); err != nil {
				return fmt.Errorf("the model of %d commits back: %w", n, err)
			}
		}
	}
	if t.cfg.Store != nil {
		if err := t.openReplica(ctx, dir); err != nil {
			return fmt.Errorf("store: %w", err)
		}
	}
	if slices.Contains(t.cfg.Systems, SystemCtxls) {
		// One untimed request first, as BenchmarkRequest does: the index
		// builds its name maps and memos on first use, a cost every
		// tree's first case would otherwise carry alone.
		if _, err := t.eng.Assemble(ctx, t.snap, retrieve.Request{Query: "warm up the index", Budget: assemble.Budget{MaxTokens: 2000},
			History: t.hist, Semantic: t.sem}); err != nil {
			return fmt.Errorf("warm-up request: %w", err)
		}
	}
	if slices.Contains(t.cfg.Systems, SystemBaseline) {
		files := map[string]string{}
		for _, p := range t.snap.Paths() {
			if f, err := t.snap.File(p); err == nil {
				files[p] = f.Text
			}
		}
		t.bm25 = baseline.Build(files, t.cfg.Baseline)
	}
	if slices.Contains(t.cfg.Systems, SystemZoekt) {
		t.zoekt = baseline.BuildZoekt(ZoektFiles(t.snap), t.cfg.Zoekt)
	}
	if slices.Contains(t.cfg.Systems, SystemRepoMap) {
		t.repomap = baseline.BuildRepoMap(MapFiles(t.snap))
	}
	return nil
}

// ZoektFiles are the zoekt-like peer's input from a snapshot: every
// indexed file's text, the names its code units define (what ctags gives
// zoekt), and whether it is low priority (tests, examples, fixtures,
// vendored or generated code, by eval/mine's rules).
func ZoektFiles(snap *index.Snapshot) []baseline.ZoektFile {
	var out []baseline.ZoektFile
	for _, p := range snap.Paths() {
		text, ok := snap.Text(p)
		if !ok {
			continue
		}
		k := mine.Classify(p)
		f := baseline.ZoektFile{Path: p, Text: text, LowPriority: k == mine.Test || k == mine.Vendor}
		for _, c := range snap.ChunksOf(p) {
			if chunk.IsCode(c.Language) && c.Symbol != "" && c.Kind != chunk.KindHeader && c.Kind != chunk.KindWindow && c.Part <= 1 {
				f.Symbols = append(f.Symbols, c.Symbol)
			}
		}
		out = append(out, f)
	}
	return out
}

// MapFiles are the repository map's input from a snapshot: each code
// file's named definitions (a unit's symbol at its signature's first
// line) and how many of its units refer to each name.
func MapFiles(snap *index.Snapshot) []baseline.MapFile {
	var out []baseline.MapFile
	for _, p := range snap.Paths() {
		f := baseline.MapFile{Path: p, Refs: map[string]int{}}
		for _, c := range snap.ChunksOf(p) {
			if !chunk.IsCode(c.Language) {
				break
			}
			if c.Symbol != "" && c.Kind != chunk.KindHeader && c.Kind != chunk.KindWindow && c.Part <= 1 {
				l := c.StartLine
				if c.DocStartLine > 0 && c.SigEndLine >= c.StartLine {
					l = max(c.StartLine, c.SigEndLine-strings.Count(strings.TrimRight(c.Signature, "\n"), "\n"))
				}
				f.Defs = append(f.Defs, baseline.Def{Name: c.Symbol, Line: l})
			}
			for _, r := range c.References {
				f.Refs[r]++
			}
		}
		if len(f.Defs)+len(f.Refs) > 0 {
			out = append(out, f)
		}
	}
	return out
}

func (t *tree) close() {
	if t.release != nil {
		t.release()
	}
	if t.x != nil {
		t.x.Close()
	}
	if t.rrelease != nil {
		t.rrelease()
	}
	if t.rx != nil {
		t.rx.Close()
	}
	if t.rco != nil {
		t.rco.Close()
	}
	for _, d := range t.caches {
		os.RemoveAll(d)
	}
}

// openReplica publishes the tree's index (and its history) into the
// store and opens a replica's index of it: the checkout's, from the
// stored chunks, with the history that came with it and vectors trained
// as for the local index.
func (t *tree) openReplica(ctx context.Context, dir string) error {
	sum := sha256.Sum256([]byte(dir))
	repo := "eval/" + hex.EncodeToString(sum[:8])
	po := pgstore.PublishOptions{Producer: t.x.ChunkingKey()}
	if t.hist != nil {
		b, err := t.hist.MarshalBinary()
		if err != nil {
			return err
		}
		side := filepath.Join(t.cfg.StoreParent, repo+"-"+history.CacheFile)
		if err := os.MkdirAll(filepath.Dir(side), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(side, b, 0o600); err != nil {
			return err
		}
		defer os.Remove(side)
		po.Sides = []pgstore.Side{{Name: history.CacheFile, Path: side}}
	}
	if _, err := t.cfg.Store.Publish(ctx, repo, t.snap, po); err != nil {
		return err
	}
	co, err := t.cfg.Store.Checkout(ctx, repo, t.cfg.StoreParent, nil)
	if err != nil {
		return err
	}
	t.rco = co
	sides := filepath.Join(t.cfg.StoreParent, repo+"-sides")
	if err := os.MkdirAll(sides, 0o700); err != nil {
		return err
	}
	defer os.RemoveAll(sides)
	if err := co.InstallSides(sides); err != nil {
		return err
	}
	if t.hist != nil {
		if t.rhist = history.LoadCache(filepath.Join(sides, history.CacheFile)); t.rhist == nil {
			return errors.New("the history published did not come back")
		}
	}
	rx, err := index.Open(ctx, co.Root, index.Options{InMemory: true, Counters: map[string]tokens.Counter{t.cfg.Encoding: t.counter},
		Lister: co.Lister(), Files: co.Files(), NewChunker: co.NewChunker, ConfigKey: pgstore.ConfigKey})
	if err != nil {
		return err
	}
	if err := rx.Wait(ctx); err != nil {
		rx.Close()
		return err
	}
	t.rx = rx
	t.rsnap, t.rrelease = rx.Snapshot()
	if t.cfg.Semantic {
		if t.rsem, err = buildSemantic(ctx, t.rsnap, t.cfg); err != nil {
			return err
		}
	}
	return nil
}

// checkReplica answers req from the replica too and counts a context
// that differs from resp's.
func (t *tree) checkReplica(ctx context.Context, c *eval.Case, req retrieve.Request, resp *retrieve.Response) {
	req.History, req.Semantic = t.rhist, t.rsem
	t.stats.StoreChecked++
	r2, err := t.eng.Assemble(ctx, t.rsnap, req)
	if err == nil && r2.Rendered == resp.Rendered {
		return
	}
	t.stats.StoreMismatches++
	if t.stats.StoreFirst == "" {
		if err != nil {
			t.stats.StoreFirst = fmt.Sprintf("%s (budget %d): %v", c.ID, req.Budget.MaxTokens, err)
		} else {
			t.stats.StoreFirst = fmt.Sprintf("%s (budget %d): the contexts differ (%d vs %d bytes)", c.ID, req.Budget.MaxTokens, len(resp.Rendered), len(r2.Rendered))
		}
	}
}

// run is one request of one system.
type run struct {
	system  string
	budget  int
	weights map[string]float64 // ctxls only
	model   int                // ctxls: the model of that many commits back (Config.ModelAges); 0: the tree's own
}

// runs lists the requests for c: each system at each budget, then each
// applicable ablation at each ablation budget.
func (t *tree) runs(c *eval.Case) []run {
	var out []run
	budgets := t.cfg.Budgets
	if c.Task == eval.TaskCursor && len(t.cfg.CursorBudgets) > 0 {
		budgets = t.cfg.CursorBudgets
	}
	for _, b := range budgets {
		for _, s := range t.cfg.Systems {
			if s == SystemZoekt && c.Task == eval.TaskCursor {
				continue
			}
			out = append(out, run{system: s, budget: b, weights: t.cfg.Weights})
		}
		if t.old != nil && c.Task != eval.TaskCursor && slices.Contains(t.cfg.Systems, SystemCtxls) {
			for _, n := range t.cfg.ModelAges {
				out = append(out, run{system: eval.OldModelSystem(SystemCtxls, n), budget: b, weights: t.cfg.Weights, model: n})
			}
		}
	}
	if !slices.Contains(t.cfg.Systems, SystemCtxls) {
		return out
	}
	off := func(ch string, b int) run {
		w := maps.Clone(t.cfg.Weights)
		if w == nil {
			w = map[string]float64{}
		}
		w[ch] = 0
		return run{system: AblationPrefix + ch, budget: b, weights: w}
	}
	for _, b := range t.cfg.AblationBudgets {
		for _, ch := range Channels() {
			if applies(ch, c.Task) && ch != retrieve.ChanHistory && ch != retrieve.ChanSemantic {
				out = append(out, off(ch, b))
			}
		}
	}
	// Without history is the tree without .git: compared at every budget.
	if t.cfg.History && len(t.cfg.AblationBudgets) > 0 && applies(retrieve.ChanHistory, c.Task) {
		for _, b := range budgets {
			out = append(out, off(retrieve.ChanHistory, b))
		}
	}
	if t.cfg.Activity && len(t.cfg.AblationBudgets) > 0 && c.Task == eval.TaskDiff {
		for _, b := range budgets {
			out = append(out, off(retrieve.ChanActivity, b))
		}
	}
	if t.cfg.Semantic && len(t.cfg.AblationBudgets) > 0 && applies(retrieve.ChanSemantic, c.Task) {
		for _, b := range budgets {
			out = append(out, off(retrieve.ChanSemantic, b))
		}
	}
	return out
}

// diffPaths are the new-side paths of a diff's files, in its order.
func diffPaths(diff string) []string {
	if a := diffActivity(diff); a != nil {
		return a.Open
	}
	return nil
}

// diffActivity is the editor session a diff stands for: its files open
// (in the diff's order, the first as the most recent) and its changed
// lines edited. Nil when the diff does not parse.
func diffActivity(diff string) *retrieve.Activity {
	files, err := retrieve.ParseDiff(diff)
	if err != nil {
		return nil
	}
	a := &retrieve.Activity{}
	for _, f := range files {
		if f.Path == "" {
			continue
		}
		a.Open = append(a.Open, f.Path)
		for _, r := range f.Changed {
			a.Edits = append(a.Edits, retrieve.Edit{Path: f.Path, Start: r.Start, End: r.End})
		}
	}
	return a
}

// Channels are the engine's channels, sorted.
func Channels() []string { return slices.Sorted(slices.Values(retrieve.Channels())) }

// applies tells whether switching channel ch off can change a task's
// result: only cursor cases have a cursor, only diff cases a diff, and a
// cursor request takes nothing from the history (retrieve.historyPrior).
func applies(ch, task string) bool {
	switch ch {
	case retrieve.ChanFocus:
		return task == eval.TaskCursor
	case retrieve.ChanDiff:
		return task == eval.TaskDiff || task == eval.TaskReview
	case retrieve.ChanHistory, retrieve.ChanSemantic:
		return task != eval.TaskCursor
	case retrieve.ChanActivity, retrieve.ChanConversation:
		return false // the eval's requests bring neither
	}
	return true
}

func (t *tree) failAll(c *eval.Case, err error) []eval.Result {
	var out []eval.Result
	for _, r := range t.runs(c) {
		out = append(out, eval.Result{Case: c.ID, Repo: c.Repo, Task: c.Task, System: r.system, Budget: r.budget, Error: err.Error()})
	}
	return out
}

func (t *tree) runCase(ctx context.Context, c *eval.Case) ([]eval.Result, int) {
	missing := 0
	for _, g := range c.Gold {
		if _, ok := t.snap.Stat(g.Path); !ok {
			missing++
		}
	}
	var out []eval.Result
	for _, r := range t.runs(c) {
		res := eval.Result{Case: c.ID, Repo: c.Repo, Task: c.Task, System: r.system, Budget: r.budget}
		if m := t.old[r.model]; m != nil {
			res.ModelAge, res.ModelRetrained = m.age, m.retrained
		}
		parts, rendered, lat, expl, err := t.labeledRequest(ctx, c, r, "request", t.cfg.Explain && r.system == SystemCtxls)
		res.LatencyMs = float64(lat.Microseconds()) / 1000
		if err == nil && t.cfg.RepeatCheck && r.system == SystemCtxls {
			// The second run explains itself (which must not change a
			// byte): the false-match check reads its channels.
			if _, again, _, why, err2 := t.labeledRequest(ctx, c, r, "repeat", true); err2 != nil {
				err = fmt.Errorf("second run: %w", err2)
			} else if again != rendered {
				err = errors.New("not deterministic: a second run of the same request rendered other bytes")
			} else {
				res.FalseMatches = eval.FalseMatches(c, why)
			}
		}
		if err != nil {
			res.Error = err.Error()
		} else {
			res.Score = eval.ScoreParts(c.Gold, c.RequestLines(), parts)
			res.Noise = eval.Noise(parts, c.Gold, c.RequestLines())
			res.Tokens = t.counter.Count(rendered)
			res.Over = res.Tokens > r.budget
			if c.Task == eval.TaskDiff {
				res.OwnShare = eval.OwnShare(parts, c.DiffFile)
			}
			if c.Task == eval.TaskCursor && eval.Shows(parts, c.Focus.Path, c.Focus.Line) {
				res.CursorShown = 1
			}
			if !strings.HasPrefix(r.system, AblationPrefix) {
				if expl != nil {
					b, merr := json.Marshal(expl)
					if merr != nil {
						res.Error = fmt.Sprintf("explanation: %v", merr)
					}
					res.Explain = b
				}
				if t.cfg.Parts {
					res.Parts = parts
				}
				for _, p := range parts {
					if len(res.Files) == 0 || res.Files[len(res.Files)-1] != p.Path {
						res.Files = append(res.Files, p.Path)
					}
				}
			}
		}
		out = append(out, res)
	}
	return out, missing
}

// labeledRequest is request with the profiler's labels system, phase and repo
// set, so that a CPU profile of a run (eval/cmd/run -cpuprofile) can be
// cut to the requests alone, or to the first of each.
func (t *tree) labeledRequest(ctx context.Context, c *eval.Case, r run, phase string, explain bool) (parts []eval.Part, rendered string, lat time.Duration, expl []retrieve.Explanation, err error) {
	pprof.Do(ctx, pprof.Labels("system", r.system, "phase", phase, "repo", c.Repo), func(ctx context.Context) {
		parts, rendered, lat, expl, err = t.request(ctx, c, r, explain)
	})
	return parts, rendered, lat, expl, err
}

// request runs one system on one case and returns the context's parts in
// rendered order, the rendered text, the request's latency and, for an
// engine's request with explain, its explanation.
func (t *tree) request(ctx context.Context, c *eval.Case, r run, explain bool) (parts []eval.Part, rendered string, lat time.Duration, expl []retrieve.Explanation, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	budget := assemble.Budget{MaxTokens: r.budget}
	var res *assemble.Result
	start := time.Now()
	switch r.system {
	case SystemBaseline:
		q := c.Query
		switch c.Task {
		case eval.TaskDiff, eval.TaskReview:
			q = c.Diff
		case eval.TaskCursor:
			q = t.above(c)
		}
		cands := t.bm25.Candidates(q)
		res, err = assemble.Assemble(ctx, assemble.Request{Budget: budget, Format: t.cfg.Format, Policy: assemble.DefaultPolicy()},
			cands, t.snap, t.counter)
	case SystemZoekt:
		q := c.Query
		if c.Task == eval.TaskDiff || c.Task == eval.TaskReview {
			q = c.Diff
		}
		res, err = assemble.Assemble(ctx, assemble.Request{Budget: budget, Format: t.cfg.Format, Policy: assemble.DefaultPolicy()},
			t.zoekt.Candidates(q), t.snap, t.counter)
	case SystemRepoMap:
		var cands []assemble.Candidate
		switch c.Task {
		case eval.TaskCursor:
			cands = t.repomap.Candidates(c.Focus.Path, retrieve.Analyze(t.above(c)).Identifiers, mapLimit)
		case eval.TaskDiff:
			cands = t.repomap.Rank(baseline.MapQuery{Chat: []string{c.DiffFile}, Mentioned: baseline.Words(c.Diff),
				MentionedFiles: baseline.FileMentions(c.Diff, t.snap.Paths()), PathMatch: true, Limit: mapLimit})
		case eval.TaskReview:
			cands = t.repomap.Rank(baseline.MapQuery{Chat: diffPaths(c.Diff), Mentioned: baseline.Words(c.Diff),
				MentionedFiles: baseline.FileMentions(c.Diff, t.snap.Paths()), PathMatch: true, Limit: mapLimit})
		default:
			cands = t.repomap.Rank(baseline.MapQuery{Mentioned: baseline.Words(c.Query),
				MentionedFiles: baseline.FileMentions(c.Query, t.snap.Paths()), PathMatch: true, Limit: mapLimit})
		}
		res, err = assemble.Assemble(ctx, assemble.Request{Budget: budget, Format: t.cfg.Format, Policy: assemble.DefaultPolicy()},
			cands, t.snap, t.counter)
	default:
		sem := t.sem
		if r.model > 0 {
			m := t.old[r.model]
			if m == nil {
				return nil, "", 0, nil, fmt.Errorf("no model of %d commits back", r.model)
			}
			sem = m.store
		}
		req := retrieve.Request{Budget: budget, Format: t.cfg.Format, Encoding: t.cfg.Encoding, Weights: r.weights, History: t.hist, Semantic: sem,
			Explain: explain}
		switch c.Task {
		case eval.TaskReview:
			req.Diff, req.Mode = c.Diff, retrieve.ModeReview
		case eval.TaskDiff:
			req.Diff = c.Diff
			if t.cfg.Activity {
				// The session: the user edited the diff's files and asks
				// the commit's subject.
				req.Diff, req.Query, req.Activity = "", c.Subject, diffActivity(c.Diff)
			}
		case eval.TaskCursor:
			req.Focus = &retrieve.Focus{Path: c.Focus.Path, Line: c.Focus.Line}
		default:
			req.Query = c.Query
		}
		if m := t.cfg.DiffMode; m != nil && req.Diff != "" {
			req.Mode = *m
		}
		var resp *retrieve.Response
		resp, err = t.eng.Assemble(ctx, t.snap, req)
		if err == nil {
			res, expl = resp.Result, resp.Explain
		}
		if err == nil && t.rsnap != nil && r.model == 0 {
			t.checkReplica(ctx, c, req, resp)
		}
	}
	lat = time.Since(start)
	if err != nil {
		return nil, "", lat, nil, err
	}
	for _, p := range res.Parts {
		parts = append(parts, eval.Part{Path: p.Path, Ranges: p.Ranges, Tokens: p.Tokens})
	}
	return parts, res.Rendered, lat, expl, nil
}

// mapLimit is how many ranked definitions the repository map passes to
// the assembler (more than an 8 000-token map shows).
const mapLimit = 400

// aboveLines is how many lines above the cursor the peers' queries read.
const aboveLines = 30

// above is the text of the 30 lines above a cursor case's cursor.
func (t *tree) above(c *eval.Case) string {
	text, ok := t.snap.Text(c.Focus.Path)
	if !ok {
		return ""
	}
	lines := strings.Split(text, "\n")
	end := min(c.Focus.Line-1, len(lines))
	return strings.Join(lines[max(0, end-aboveLines):end], "\n")
}

// buildSemantic builds a tree's vectors: on every file, or with
// Config.SemanticHeldOut on the others first and then synced to all
// (the drift experiment), the drift logged.
func buildSemantic(ctx context.Context, snap *index.Snapshot, cfg *Config) (*semantic.Store, error) {
	if cfg.SemanticHeldOut <= 0 {
		s, _, err := semantic.Build(ctx, snap, cfg.SemanticOptions)
		return s, err
	}
	heldOut := func(p string) bool {
		h := fnv.New32a()
		h.Write([]byte(p))
		return float64(h.Sum32()%10000) < cfg.SemanticHeldOut*10000
	}
	s, _, err := semantic.BuildOn(ctx, snap, cfg.SemanticOptions, func(p string) bool { return !heldOut(p) })
	if err != nil {
		return nil, err
	}
	s, st, err := s.Sync(ctx, snap)
	if err != nil {
		return nil, err
	}
	if cfg.Log != nil {
		fmt.Fprintf(cfg.Log, "semantic: %d files held out of training, drift %+.4f, file drift %.4f, trained again %v\n", st.Embedded, s.Drift(), s.FileDrift(), st.Trained)
	}
	return s, nil
}
