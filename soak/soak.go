package soak

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Config configures a run. Zero fields take the defaults of Defaults.
type Config struct {
	// Binary is the ctxls binary to run. Required.
	Binary string
	// WorkDir holds the token file, the index cache, the extra folders
	// and the processes' logs. Required; created if missing.
	WorkDir string
	// Tree is where the tree is copied (default WorkDir/tree); it is
	// emptied first.
	Tree string
	// GoRoot is Go's root, whose src the tree is copied from (default:
	// `go env GOROOT`).
	GoRoot string
	// Packages are the directories of GoRoot/src copied (default
	// LongPackages).
	Packages []string

	// Sessions is the number of concurrent LSP sessions of the load
	// (default 8); Duration how long they run (default 60 s).
	Sessions int
	Duration time.Duration
	// IdleDuration is how long the one idle session runs first (default
	// 10 s).
	IdleDuration time.Duration
	// FilesPerSession is how many tree files each session opens
	// (default 4).
	FilesPerSession int
	// FolderGap is the time between a session adding a workspace folder
	// and removing it, and between removing it and adding the next
	// (default Duration/4, at least 2 s); negative: no folders.
	FolderGap time.Duration
	// Think is the most a client waits between two steps (default
	// 50 ms).
	Think time.Duration
	// Timeout is the longest a request may take before it counts as an
	// error (default 60 s).
	Timeout time.Duration
	// MCPClients is the number of MCP clients of the MCP phase (default
	// 4; negative: no MCP phase); MCPDuration how long they run
	// (default Duration/2).
	MCPClients  int
	MCPDuration time.Duration
	// Seed makes the workload's choices reproducible (default 1).
	Seed uint64

	// AllowStale reports stale buffer parts without counting them as a
	// failed promise.
	AllowStale bool
	// MaxRSSGrowth, when > 0, is the largest growth of the server's RSS
	// allowed after warm-up: the mean of the load's last tenth of
	// samples over the mean of the samples between 25 % and 35 % of it.
	MaxRSSGrowth float64
	// MaxP95Ratio, when > 0, is the largest ratio allowed between the
	// load's context/assemble p95 and the idle one (the target is 4:
	// docs/benchmarks.md, "Serving while busy").
	MaxP95Ratio float64
	// GoroutineSlack is how many more goroutines than after the idle
	// session the server may have once every session has ended (default
	// 10).
	GoroutineSlack int

	// Logf receives progress lines (nil: none).
	Logf func(format string, args ...any)
}

// withDefaults fills in the defaults.
func (c Config) withDefaults() (Config, error) {
	if c.Binary == "" || c.WorkDir == "" {
		return c, errors.New("soak: Config.Binary and Config.WorkDir are required")
	}
	abs, err := filepath.Abs(c.WorkDir)
	if err != nil {
		return c, err
	}
	c.WorkDir = abs
	if c.Tree == "" {
		c.Tree = filepath.Join(c.WorkDir, "tree")
	}
	if c.Tree, err = filepath.Abs(c.Tree); err != nil {
		return c, err
	}
	if c.GoRoot == "" {
		if c.GoRoot, err = GoRoot(); err != nil {
			return c, err
		}
	}
	if len(c.Packages) == 0 {
		c.Packages = LongPackages
	}
	if c.Sessions <= 0 {
		c.Sessions = 8
	}
	if c.Duration <= 0 {
		c.Duration = 60 * time.Second
	}
	if c.IdleDuration <= 0 {
		c.IdleDuration = 10 * time.Second
	}
	if c.FilesPerSession <= 0 {
		c.FilesPerSession = 4
	}
	if c.FolderGap == 0 {
		c.FolderGap = max(c.Duration/4, 2*time.Second)
	}
	if c.Think == 0 {
		c.Think = 50 * time.Millisecond
	}
	if c.Timeout <= 0 {
		c.Timeout = 60 * time.Second
	}
	if c.MCPClients == 0 {
		c.MCPClients = 4
	}
	if c.MCPDuration <= 0 {
		c.MCPDuration = c.Duration / 2
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.GoroutineSlack <= 0 {
		c.GoroutineSlack = 10
	}
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
	return c, nil
}

// Report is what a run measured and found.
type Report struct {
	Tree         string  `json:"tree"`
	TreeFiles    int     `json:"treeFiles"`
	Sessions     int     `json:"sessions"`
	Seconds      float64 `json:"seconds"`
	Seed         uint64  `json:"seed"`
	IndexSeconds float64 `json:"indexSeconds"` // ctxls index of the tree

	Idle PhaseReport  `json:"idle"`
	Load PhaseReport  `json:"load"`
	MCP  *PhaseReport `json:"mcp,omitempty"`
	// P95Ratio is the load's context/assemble p95 over the idle one.
	P95Ratio float64 `json:"p95Ratio"`

	RSS        []RSSSample `json:"rss"`
	RSSSummary RSSSummary  `json:"rssSummary"`
	Goroutines Goroutines  `json:"goroutines"`
	// ServerExit is serve's exit status after SIGTERM (0 expected).
	ServerExit int `json:"serverExit"`
	// ServerPanics are log lines of the servers that report a panic.
	ServerPanics []string `json:"serverPanics,omitempty"`
	// Problems lists every promise that failed; Notes what was allowed
	// (AllowStale).
	Problems []string `json:"problems"`
	Notes    []string `json:"notes,omitempty"`
	Pass     bool     `json:"pass"`
	// Logs are the server logs.
	Logs []string `json:"logs"`
}

// PhaseReport is one phase: idle, load, or MCP.
type PhaseReport struct {
	Clients       int                    `json:"clients"`
	Seconds       float64                `json:"seconds"`
	Methods       map[string]MethodCount `json:"methods"`
	Notifications map[string]int         `json:"notifications,omitempty"`
	// Assemble is every context/assemble (assemble_context) answer;
	// AssembleComplete those with stats.indexComplete true,
	// AssembleIndexing those with false.
	Assemble         Latency            `json:"assemble"`
	AssembleComplete Latency            `json:"assembleComplete"`
	AssembleIndexing Latency            `json:"assembleIndexing"`
	Other            map[string]Latency `json:"other,omitempty"`
	Checks           Checks             `json:"checks"`
	Failures         []string           `json:"failures,omitempty"`
	ClientErrors     []string           `json:"clientErrors,omitempty"`
	// Fresh counts MCP files rewritten on disk whose new function the
	// next find_symbol found (FreshMisses: did not).
	Fresh       int `json:"fresh,omitempty"`
	FreshMisses int `json:"freshMisses,omitempty"`
}

// Errors is the number of error answers of the phase.
func (p *PhaseReport) Errors() int {
	n := 0
	for _, m := range p.Methods {
		n += m.Errors
	}
	return n
}

// Requests is the number of requests of the phase.
func (p *PhaseReport) Requests() int {
	n := 0
	for _, m := range p.Methods {
		n += m.Requests
	}
	return n
}

// RSSSample is the server's RSS at T seconds from its start.
type RSSSample struct {
	T     float64 `json:"t"`
	Phase string  `json:"phase"`
	MB    float64 `json:"mb"`
}

// RSSSummary summarizes the load's RSS samples.
type RSSSummary struct {
	AfterIdleMB float64 `json:"afterIdleMB"`
	// WarmMB is the mean between 25 % and 35 % of the load, EndMB the
	// mean of its last tenth; Growth is EndMB/WarmMB − 1.
	WarmMB float64 `json:"warmMB"`
	EndMB  float64 `json:"endMB"`
	MaxMB  float64 `json:"maxMB"`
	Growth float64 `json:"growth"`
	MCPMax float64 `json:"mcpMaxMB,omitempty"`
}

// Goroutines are the server's goroutine counts.
type Goroutines struct {
	BeforeSessions int `json:"beforeSessions"`
	AfterIdle      int `json:"afterIdle"`
	// End is after every load session has ended (the lowest seen while
	// waiting up to 5 s for it to come back to AfterIdle: folders close in
	// the background).
	End int `json:"end"`
}

// Run prepares the tree, runs the phases and returns the report. An error
// means the run itself could not be made (a process that does not start,
// a tree that cannot be copied); broken promises are in Report.Problems.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.WorkDir, 0o755); err != nil {
		return nil, fmt.Errorf("soak: %w", err)
	}
	rep := &Report{Tree: cfg.Tree, Sessions: cfg.Sessions, Seed: cfg.Seed, Seconds: cfg.Duration.Seconds(), Problems: []string{}}
	if _, err := PrepareTree(cfg.GoRoot, cfg.Packages, cfg.Tree); err != nil {
		return nil, fmt.Errorf("soak: %w", err)
	}
	files, err := indexable(cfg.Tree) // as the index sees it
	if err != nil {
		return nil, fmt.Errorf("soak: %w", err)
	}
	rep.TreeFiles = len(files)
	extraRoot := filepath.Join(cfg.WorkDir, "extra")
	cache := filepath.Join(cfg.WorkDir, "cache")
	for _, d := range []string{extraRoot, cache} {
		if err := os.RemoveAll(d); err != nil {
			return nil, fmt.Errorf("soak: %w", err)
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("soak: %w", err)
		}
	}
	token, tokenFile, err := writeToken(cfg.WorkDir)
	if err != nil {
		return nil, err
	}
	cfg.Logf("tree: %d Go files in %s; indexing", len(files), cfg.Tree)
	start := time.Now()
	// ctxls index's --cache-dir names the index directory itself; the
	// environment variable names the parent, as serve's --cache-dir does.
	index := exec.CommandContext(ctx, cfg.Binary, "index", "--root", cfg.Tree)
	index.Env = append(os.Environ(), "CTXLS_CACHE_DIR="+cache)
	if out, err := index.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("soak: ctxls index: %w\n%s", err, out)
	}
	rep.IndexSeconds = round2(time.Since(start).Seconds())

	serveLog := filepath.Join(cfg.WorkDir, "serve.log")
	os.Remove(serveLog)
	rep.Logs = append(rep.Logs, serveLog)
	srv, err := startProc("ctxls serve", cfg.Binary, []string{"serve", "--listen", "127.0.0.1:0", "--token-file", tokenFile,
		"--root", cfg.Tree, "--root", extraRoot, "--cache-dir", cache}, serveLog)
	if err != nil {
		return nil, err
	}
	defer srv.stop(10 * time.Second)
	m, err := srv.waitLine(regexp.MustCompile(`listening on (\S+)`), 0, 30*time.Second)
	if err != nil {
		return nil, err
	}
	addr := m[1]
	rss := newRSSSampler(srv)
	defer rss.stop()
	if rep.Goroutines.BeforeSessions, err = srv.goroutines(); err != nil {
		return nil, err
	}

	pool := sessionFiles(cfg.Tree, files, cfg.Seed)
	disk := newDiskTexts()
	base := sessionConfig{
		addr: addr, token: token, tree: cfg.Tree, goroot: cfg.GoRoot, timeout: cfg.Timeout,
		think: cfg.Think, seed: cfg.Seed, disk: disk,
	}
	filesOf := func(id int) []string {
		var out []string
		for j := 0; j < cfg.FilesPerSession; j++ {
			out = append(out, pool[(id*cfg.FilesPerSession+j)%len(pool)])
		}
		return out
	}

	// Idle: one session alone.
	cfg.Logf("idle: 1 session for %v", cfg.IdleDuration)
	rss.phase.Store("idle")
	rep.Idle = runPhase(1, cfg.IdleDuration, func(i int, rec *recorder, chk *checker, until time.Time) error {
		c := base
		c.id, c.files, c.rec, c.chk, c.until = 0, filesOf(0), rec, chk, until
		return runSession(c)
	})
	time.Sleep(time.Second) // the session's folder closes in the background
	if rep.Goroutines.AfterIdle, err = srv.goroutines(); err != nil {
		return nil, err
	}
	rep.RSSSummary.AfterIdleMB, _ = srv.rssMB()

	// Load: N sessions at once.
	cfg.Logf("load: %d sessions for %v", cfg.Sessions, cfg.Duration)
	rss.phase.Store("load")
	loadStart := time.Now()
	rep.Load = runPhase(cfg.Sessions, cfg.Duration, func(i int, rec *recorder, chk *checker, until time.Time) error {
		c := base
		c.id, c.files, c.rec, c.chk, c.until = i+1, filesOf(i+1), rec, chk, until
		if cfg.FolderGap > 0 {
			c.extraRoot, c.folderGap = extraRoot, cfg.FolderGap
		}
		return runSession(c)
	})
	loadEnd := time.Now()
	rss.phase.Store("after")
	rep.Goroutines.End = settleGoroutines(srv, rep.Goroutines.AfterIdle, 5*time.Second)
	leak := rep.Goroutines.End > rep.Goroutines.AfterIdle+cfg.GoroutineSlack
	if leak {
		srv.dumpAndStop(10 * time.Second) // the stacks go to the log
		rep.ServerExit = -1
	} else if rep.ServerExit, err = srv.stop(30 * time.Second); err != nil {
		rep.Problems = append(rep.Problems, err.Error())
	}
	rss.stop()
	rep.RSS = rss.samples()
	rep.RSSSummary = summarizeRSS(rep.RSS, rep.RSSSummary.AfterIdleMB, rss.start, loadStart, loadEnd)
	rep.ServerPanics = append(rep.ServerPanics, srv.log.panicLines()...)
	if leak {
		rep.ServerPanics = nil // the SIGQUIT dump is not a panic of the server
		rep.Problems = append(rep.Problems, fmt.Sprintf("goroutines: %d after every session ended, %d after the idle session (slack %d): a leak; stacks in %s",
			rep.Goroutines.End, rep.Goroutines.AfterIdle, cfg.GoroutineSlack, serveLog))
	}

	if cfg.MCPClients > 0 {
		cfg.Logf("mcp: %d clients for %v", cfg.MCPClients, cfg.MCPDuration)
		mcpLog := filepath.Join(cfg.WorkDir, "mcp.log")
		os.Remove(mcpLog)
		rep.Logs = append(rep.Logs, mcpLog)
		mr, panics, err := runMCPPhase(ctx, cfg, tokenFile, token, cache, pool, mcpLog)
		if err != nil {
			return nil, err
		}
		rep.MCP = mr
		rep.ServerPanics = append(rep.ServerPanics, panics...)
	}
	rep.evaluate(cfg)
	return rep, nil
}

// runPhase runs n clients until d from now and gathers their report.
func runPhase(n int, d time.Duration, client func(i int, rec *recorder, chk *checker, until time.Time) error) PhaseReport {
	rec, chk := newRecorder(), &checker{isolated: true}
	start := time.Now()
	until := start.Add(d)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []string
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := client(i, rec, chk, until); err != nil {
				mu.Lock()
				errs = append(errs, err.Error())
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return phaseReport(n, time.Since(start), rec, chk, errs)
}

// phaseReport gathers a phase's counts.
func phaseReport(n int, d time.Duration, rec *recorder, chk *checker, errs []string) PhaseReport {
	methods, notes := rec.snapshot()
	checks, failures := chk.snapshot()
	sort.Strings(errs)
	return PhaseReport{
		Clients: n, Seconds: round2(d.Seconds()), Methods: methods, Notifications: notes,
		Assemble:         rec.latencyOf(latAssembleComplete, latAssembleIndexing),
		AssembleComplete: rec.latency(latAssembleComplete),
		AssembleIndexing: rec.latency(latAssembleIndexing),
		Other:            rec.others(),
		Checks:           checks, Failures: failures, ClientErrors: errs,
	}
}

// evaluate lists the promises that failed.
func (r *Report) evaluate(cfg Config) {
	phase := func(name string, p *PhaseReport) {
		if n := p.Errors(); n > 0 {
			r.Problems = append(r.Problems, fmt.Sprintf("%s: %d error answers of %d requests", name, n, p.Requests()))
		}
		for _, e := range p.ClientErrors {
			r.Problems = append(r.Problems, fmt.Sprintf("%s: a client failed: %s", name, e))
		}
		c := p.Checks
		if c.BudgetExceeded > 0 {
			r.Problems = append(r.Problems, fmt.Sprintf("%s: %d answers over their budget", name, c.BudgetExceeded))
		}
		if c.PathsOutside > 0 {
			r.Problems = append(r.Problems, fmt.Sprintf("%s: %d parts outside their folder", name, c.PathsOutside))
		}
		if c.DiskMismatches > 0 {
			r.Problems = append(r.Problems, fmt.Sprintf("%s: %d parts whose text is not their file's", name, c.DiskMismatches))
		}
		if c.StaleBufferParts > 0 {
			msg := fmt.Sprintf("%s: %d of %d buffer parts not the buffer's latest text (%d while indexing)", name, c.StaleBufferParts, c.BufferParts, c.StaleWhileIndexing)
			if cfg.AllowStale {
				r.Notes = append(r.Notes, msg+" (allowed: -allow-stale)")
			} else {
				r.Problems = append(r.Problems, msg)
			}
		}
		if p.FreshMisses > 0 {
			r.Problems = append(r.Problems, fmt.Sprintf("%s: %d files written on disk not seen by the next call", name, p.FreshMisses))
		}
		if c.Answers == 0 {
			r.Problems = append(r.Problems, name+": no answer was checked")
		}
	}
	phase("idle", &r.Idle)
	phase("load", &r.Load)
	if r.MCP != nil {
		phase("mcp", r.MCP)
	}
	if r.Idle.Assemble.P95 > 0 {
		r.P95Ratio = round2(r.Load.Assemble.P95 / r.Idle.Assemble.P95)
		if cfg.MaxP95Ratio > 0 && r.P95Ratio > cfg.MaxP95Ratio {
			r.Problems = append(r.Problems, fmt.Sprintf("load: context/assemble p95 %.0f ms is %.1f× the idle p95 %.0f ms (at most %.1f× allowed)",
				r.Load.Assemble.P95, r.P95Ratio, r.Idle.Assemble.P95, cfg.MaxP95Ratio))
		}
	}
	if cfg.MaxRSSGrowth > 0 && r.RSSSummary.Growth > cfg.MaxRSSGrowth {
		r.Problems = append(r.Problems, fmt.Sprintf("RSS grew %.0f %% after warm-up (%.0f → %.0f MB; at most %.0f %% allowed)",
			100*r.RSSSummary.Growth, r.RSSSummary.WarmMB, r.RSSSummary.EndMB, 100*cfg.MaxRSSGrowth))
	}
	if r.ServerExit != 0 && r.ServerExit != -1 {
		r.Problems = append(r.Problems, fmt.Sprintf("ctxls serve exited with status %d after SIGTERM", r.ServerExit))
	}
	for _, l := range r.ServerPanics {
		r.Problems = append(r.Problems, "a server log reports: "+l)
	}
	r.Pass = len(r.Problems) == 0
}

// writeToken writes a random token into a 0600 file.
func writeToken(dir string) (token, path string, err error) {
	b := make([]byte, 24)
	if _, err := crand.Read(b); err != nil {
		return "", "", fmt.Errorf("soak: token: %w", err)
	}
	token = hex.EncodeToString(b)
	path = filepath.Join(dir, "token")
	if err := os.WriteFile(path, []byte(token+"\n"), 0o600); err != nil {
		return "", "", fmt.Errorf("soak: token: %w", err)
	}
	return token, path, os.Chmod(path, 0o600)
}

// sessionFiles are the tree files sessions open, in a seeded order: not
// tests, 2–64 KiB, holding a top-level function.
func sessionFiles(tree string, files []string, seed uint64) []string {
	var pool []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(tree, filepath.FromSlash(f)))
		if err != nil || len(b) < 2<<10 || len(b) > 64<<10 || len(funcLineStarts(string(b))) == 0 {
			continue
		}
		pool = append(pool, f)
	}
	if len(pool) == 0 {
		pool = files
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	return pool
}

// settleGoroutines waits up to timeout for the server's goroutines to come
// down to want, and returns the lowest count seen.
func settleGoroutines(p *proc, want int, timeout time.Duration) int {
	best := -1
	deadline := time.Now().Add(timeout)
	for {
		n, err := p.goroutines()
		if err == nil && (best < 0 || n < best) {
			best = n
		}
		if (err == nil && n <= want) || time.Now().After(deadline) {
			return best
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// rssSampler samples a process's RSS every second.
type rssSampler struct {
	p     *proc
	start time.Time
	phase atomic.Value // string
	mu    sync.Mutex
	out   []RSSSample
	done  chan struct{}
	once  sync.Once
	wg    sync.WaitGroup
}

func newRSSSampler(p *proc) *rssSampler {
	r := &rssSampler{p: p, start: time.Now(), done: make(chan struct{})}
	r.phase.Store("start")
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			if mb, err := p.rssMB(); err == nil {
				r.mu.Lock()
				r.out = append(r.out, RSSSample{T: round2(time.Since(r.start).Seconds()), Phase: r.phase.Load().(string), MB: round2(mb)})
				r.mu.Unlock()
			}
			select {
			case <-t.C:
			case <-r.done:
				return
			}
		}
	}()
	return r
}

func (r *rssSampler) stop() {
	r.once.Do(func() { close(r.done) })
	r.wg.Wait()
}

func (r *rssSampler) samples() []RSSSample {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]RSSSample(nil), r.out...)
}

// summarizeRSS computes the load's RSS summary.
func summarizeRSS(samples []RSSSample, afterIdle float64, start, loadStart, loadEnd time.Time) RSSSummary {
	s := RSSSummary{AfterIdleMB: afterIdle}
	t0 := loadStart.Sub(start).Seconds()
	d := loadEnd.Sub(loadStart).Seconds()
	mean := func(a, b float64) float64 {
		sum, n := 0.0, 0
		for _, x := range samples {
			if x.Phase == "load" && x.T >= t0+a*d && x.T <= t0+b*d {
				sum += x.MB
				n++
			}
		}
		if n == 0 {
			return 0
		}
		return round2(sum / float64(n))
	}
	s.WarmMB, s.EndMB = mean(0.25, 0.35), mean(0.9, 1)
	if s.WarmMB == 0 { // a short load: the sample nearest to 30 %
		best := -1.0
		for _, x := range samples {
			if dist := math.Abs(x.T - (t0 + 0.3*d)); x.Phase == "load" && (best < 0 || dist < best) {
				best, s.WarmMB = dist, x.MB
			}
		}
	}
	for _, x := range samples {
		if x.Phase == "load" {
			s.MaxMB = max(s.MaxMB, x.MB)
		}
	}
	if s.WarmMB > 0 {
		s.Growth = round2(s.EndMB/s.WarmMB - 1)
	}
	return s
}
