package soak

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/semantic"
)

// The fault tests run real ctxls processes (the binary TestMain built):
// killed with SIGKILL at random points of a build, a refresh and a
// server's checkpoint; index files truncated or with flipped bits; a
// workspace folder deleted while it is indexed; 100 000 tiny files; a
// 10 MB single-line file. Each checks that the next run answers exactly
// what a clean index answers, or fails with a clear error — never a
// panic, never a damaged answer.
//
// CTXLS_FAULT_POINTS sets the kill points of each kill test (default 5;
// `make faults` runs 50), CTXLS_FAULT_SEED the seed of their times and
// damages (default 1), CTXLS_FAULT_TINY the number of tiny files (default
// 5 000; `make faults` runs 100 000).

func faultEnvInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}

func faultRand(t *testing.T, salt uint64) *rand.Rand {
	seed := uint64(faultEnvInt(t, "CTXLS_FAULT_SEED", 1))
	return rand.New(rand.NewPCG(seed, salt))
}

var (
	gorootOnce sync.Once
	gorootDir  string
	gorootErr  error
)

// faultTree copies ≈ 50 Go files of Go's src into a new directory.
func faultTree(t *testing.T) string {
	t.Helper()
	gorootOnce.Do(func() { gorootDir, gorootErr = GoRoot() })
	if gorootErr != nil {
		t.Fatal(gorootErr)
	}
	root := filepath.Join(t.TempDir(), "tree")
	if _, err := PrepareTree(gorootDir, []string{"net/url", "bufio", "strconv", "context"}, root); err != nil {
		t.Fatal(err)
	}
	return root
}

// run runs ctxls with args (and env added to the environment).
func runCtxls(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(ctxlsBin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code = cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		t.Fatalf("ctxls %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// crashRE: what a Go program prints when it panics or dies.
var crashRE = regexp.MustCompile(`(?m)^(panic:|fatal error:|goroutine \d+ \[|SIGSEGV)`)

// faultQueries are asked of every damaged or killed index; the second
// names what the tests add to the tree.
var faultQueries = []string{"parse a URL query string and escape it", "SoakFault added function context deadline"}

// answers are ctxls assemble's JSON answers for the queries over root
// with its index in the index directory dir, without the timing (the
// only field that is not deterministic). An answer is "" when assemble
// failed; failures says how.
func answers(t *testing.T, root, dir string) (out []string, failures []string) {
	t.Helper()
	for _, q := range faultQueries {
		stdout, stderr, code := runCtxls(t, nil, "assemble", "--root", root, "--cache-dir", dir, "--query", q, "--budget", "2500", "--format", "json")
		if crashRE.MatchString(stderr) {
			t.Fatalf("ctxls assemble crashed (status %d):\n%s", code, stderr)
		}
		if code != 0 {
			out = append(out, "")
			failures = append(failures, fmt.Sprintf("status %d: %s", code, strings.TrimSpace(stderr)))
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(stdout), &m); err != nil {
			t.Fatalf("ctxls assemble printed no JSON: %v\n%s", err, stdout)
		}
		delete(m, "timing")
		b, _ := json.Marshal(m)
		out = append(out, string(b))
	}
	return out, failures
}

// cleanAnswers are the answers of a fresh index of root.
func cleanAnswers(t *testing.T, root string) []string {
	t.Helper()
	want, failures := answers(t, root, t.TempDir())
	if len(failures) > 0 {
		t.Fatalf("a fresh index fails: %v", failures)
	}
	return want
}

// cleanAnswersLike are the answers of a fresh index of root that reads
// the semantic channel's vectors the index directory dir holds: a kept
// model is reused after a change (its identity is part of the answer's
// state), so a clean index answers alike only with the same model.
func cleanAnswersLike(t *testing.T, root, dir string) []string {
	t.Helper()
	fresh := t.TempDir()
	timed(t, nil, "index", "--root", root, "--cache-dir", fresh, "--embeddings", "off")
	if b, err := os.ReadFile(filepath.Join(dir, semantic.CacheFile)); err == nil {
		must(t, os.WriteFile(filepath.Join(fresh, semantic.CacheFile), b, 0o600))
	}
	want, failures := answers(t, root, fresh)
	if len(failures) > 0 {
		t.Fatalf("a fresh index fails: %v", failures)
	}
	return want
}

// killAfter starts ctxls with args and kills it (SIGKILL) after d; it
// reports whether the process was still running then.
func killAfter(t *testing.T, d time.Duration, env []string, args ...string) bool {
	t.Helper()
	cmd := exec.Command(ctxlsBin, args...)
	cmd.Env = append(os.Environ(), env...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
		if crashRE.MatchString(errb.String()) {
			t.Fatalf("ctxls %v crashed:\n%s", args, errb.String())
		}
		return false
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		return true
	}
}

// timed runs ctxls to the end and returns how long it took.
func timed(t *testing.T, env []string, args ...string) time.Duration {
	t.Helper()
	start := time.Now()
	if _, stderr, code := runCtxls(t, env, args...); code != 0 {
		t.Fatalf("ctxls %v: status %d\n%s", args, code, stderr)
	}
	return time.Since(start)
}

// killPoints runs kill (a run of ctxls killed after d unless it ends
// first; true when the kill landed) at points random delays over span ×
// ref, ref being a measured run's length. Should none land before the
// end — the runs turned out faster than the one measured, as on a
// machine whose load fell after the measurement — up to 6 more points
// follow at ref/4, ref/8, …, until one does. It returns how many landed
// and how many points ran.
func killPoints(rng *rand.Rand, points int, ref time.Duration, span float64, kill func(i int, d time.Duration) bool) (killed, ran int) {
	for i := 0; i < points || (killed == 0 && i < points+6); i++ {
		d := time.Duration(rng.Float64() * span * float64(ref))
		if i >= points {
			d = ref >> (i - points + 2)
		}
		if kill(i, d) {
			killed++
		}
		ran = i + 1
	}
	return killed, ran
}

// sameAnswers fails the test unless got are want.
func sameAnswers(t *testing.T, what string, got, want []string, failures []string) {
	t.Helper()
	if len(failures) > 0 {
		t.Fatalf("%s: assemble failed: %v", what, failures)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: the answer to %q is not a clean index's:\n got %.600s\nwant %.600s", what, faultQueries[i], got[i], want[i])
		}
	}
}

// A `ctxls index` killed at random points of a full build — into an
// empty cache, and with --rebuild over a valid index — never leaves an
// index that is served wrong: the next `ctxls assemble` answers what a
// clean index answers.
func TestKillDuringBuild(t *testing.T) {
	root := faultTree(t)
	want := cleanAnswers(t, root)
	full := timed(t, nil, "index", "--root", root, "--cache-dir", t.TempDir())
	rng := faultRand(t, 1)
	points := faultEnvInt(t, "CTXLS_FAULT_POINTS", 5)
	shared := t.TempDir()
	timed(t, nil, "index", "--root", root, "--cache-dir", shared)
	killed, ran := killPoints(rng, points, full, 1.1, func(i int, d time.Duration) bool {
		args := []string{"index", "--root", root, "--cache-dir", t.TempDir()}
		what := fmt.Sprintf("point %d: build into an empty cache killed after %v of %v", i, d, full)
		if i%2 == 1 {
			args = []string{"index", "--root", root, "--cache-dir", shared, "--rebuild"}
			what = fmt.Sprintf("point %d: --rebuild over a valid index killed after %v of %v", i, d, full)
		}
		landed := killAfter(t, d, nil, args...)
		got, failures := answers(t, root, args[4])
		sameAnswers(t, what, got, want, failures)
		return landed
	})
	t.Logf("%d kill points over a %v build (seed %d), %d killed before the end; every next run answered as a clean index", ran, full, faultEnvInt(t, "CTXLS_FAULT_SEED", 1), killed)
	if killed == 0 {
		t.Error("no kill landed before the end of a build")
	}
}

// mutate changes the tree for kill point i: one file gets a function, one
// is rewritten, one new file appears, one goes.
func mutate(t *testing.T, root string, i int) {
	t.Helper()
	var files []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.HasSuffix(p, ".go") {
			files = append(files, p)
		}
		return nil
	})
	slices.Sort(files)
	if len(files) < 4 {
		t.Fatalf("the tree has %d files", len(files))
	}
	f := files[(7*i)%len(files)]
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, fmt.Sprintf("\n// SoakFaultP%d is a function a kill test added.\nfunc SoakFaultP%d() int { return %d }\n", i, i, i)...)
	must(t, os.WriteFile(f, b, 0o644))
	g := files[(7*i+3)%len(files)]
	must(t, os.WriteFile(g, []byte(fmt.Sprintf("package rewritten\n\n// SoakFaultRewritten%d replaced this file; context deadline.\nfunc SoakFaultRewritten%d() {}\n", i, i)), 0o644))
	must(t, os.WriteFile(filepath.Join(root, fmt.Sprintf("soak_added_%d.go", i)), []byte(fmt.Sprintf("package added\n\n// SoakFaultAdded%d is new.\nfunc SoakFaultAdded%d() {}\n", i, i)), 0o644))
	must(t, os.Remove(files[(7*i+5)%len(files)]))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A `ctxls index` killed at random points while it refreshes an index
// after files changed, added and deleted on disk (and while it writes its
// checkpoint at the end) never leaves an index that is served wrong.
func TestKillDuringRefresh(t *testing.T) {
	root := faultTree(t)
	cache := t.TempDir()
	timed(t, nil, "index", "--root", root, "--cache-dir", cache)
	mutate(t, root, 1000)
	refresh := timed(t, nil, "index", "--root", root, "--cache-dir", cache)
	rng := faultRand(t, 2)
	points := faultEnvInt(t, "CTXLS_FAULT_POINTS", 5)
	killed, ran := killPoints(rng, points, refresh, 1.2, func(i int, d time.Duration) bool {
		mutate(t, root, i)
		landed := killAfter(t, d, nil, "index", "--root", root, "--cache-dir", cache)
		want := cleanAnswersLike(t, root, cache)
		got, failures := answers(t, root, cache)
		sameAnswers(t, fmt.Sprintf("point %d: refresh killed after %v of %v", i, d, refresh), got, want, failures)
		return landed
	})
	t.Logf("%d kill points over a %v refresh, %d killed before the end; every next run answered as a clean index", ran, refresh, killed)
	if killed == 0 {
		t.Error("no kill landed before the end of a refresh")
	}
}

// serveFace starts `ctxls serve --listen` on loopback with roots and the
// cache parent cache; it returns the process, its address and token.
func serveFace(t *testing.T, cache string, roots ...string) (*proc, string, string) {
	t.Helper()
	dir := t.TempDir()
	token, tokenFile, err := writeToken(dir)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"serve", "--listen", "127.0.0.1:0", "--token-file", tokenFile, "--cache-dir", cache}
	for _, r := range roots {
		args = append(args, "--root", r)
	}
	p, err := startProc("ctxls serve", ctxlsBin, args, filepath.Join(dir, "serve.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.stop(10 * time.Second) })
	m, err := p.waitLine(regexp.MustCompile(`listening on (\S+)`), 0, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return p, m[1], token
}

// lspInit connects and initializes a session on folder.
func lspInit(t *testing.T, addr, token, folder string) *lspConn {
	t.Helper()
	c, err := dialLSP(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.close)
	uri := dirURI(folder)
	if _, err := c.request("initialize", map[string]any{
		"processId": nil, "rootUri": uri, "capabilities": map[string]any{},
		"workspaceFolders":      []map[string]any{{"uri": uri, "name": filepath.Base(folder)}},
		"initializationOptions": map[string]any{"token": token},
	}, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	must(t, c.notify("initialized", map[string]any{}))
	return c
}

// A server killed at random points while it writes the checkpoint of an
// index that changed (files changed on disk and re-read, an editor buffer
// open) never leaves an index that is served wrong, and never one that
// holds the buffer as if it were on disk.
func TestKillServeDuringCheckpoint(t *testing.T) {
	root := faultTree(t)
	cache := t.TempDir()
	dir := index.CacheDirIn(cache, root)
	timed(t, nil, "index", "--root", root, "--cache-dir", dir)
	rng := faultRand(t, 3)
	points := faultEnvInt(t, "CTXLS_FAULT_POINTS", 5)
	var shutdown time.Duration
	killed := 0
	for i := -1; i < points; i++ { // -1: measures the checkpoint, no kill
		mutate(t, root, 2000+i)
		p, addr, token := serveFace(t, cache, root)
		c := lspInit(t, addr, token, root)
		// The disk changes, as an editor's file watcher reports them.
		var changes []map[string]any
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				changes = append(changes, map[string]any{"uri": fileURI(dirURI(root), mustRel(root, p)), "type": 2})
			}
			return nil
		})
		must(t, c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": changes}))
		// A buffer that must never be saved as the file's content.
		buf := fmt.Sprintf("package url\n\n// SoakFaultBuffer%d context deadline only in a buffer.\nfunc SoakFaultBuffer%d() {}\n", i, i)
		must(t, c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": fileURI(dirURI(root), "net/url/url.go"), "languageId": "go", "version": 1, "text": buf}}))
		if _, err := c.request("context/assemble", map[string]any{"query": "SoakFaultBuffer context deadline"}, 60*time.Second); err != nil {
			t.Fatalf("point %d: %v", i, err)
		}
		start := time.Now()
		_, ch, err := c.call("shutdown", nil)
		must(t, err)
		if i < 0 {
			if _, err := wait(ch, 60*time.Second); err != nil {
				t.Fatal(err)
			}
			shutdown = time.Since(start)
			c.notify("exit", nil)
			p.stop(10 * time.Second)
			continue
		}
		d := time.Duration(rng.Float64() * 1.2 * float64(shutdown))
		select {
		case <-ch:
		case <-time.After(d):
			killed++
		}
		p.cmd.Process.Kill()
		<-p.exited
		if lines := p.log.panicLines(); len(lines) > 0 {
			t.Fatalf("point %d: the server log reports %q", i, lines)
		}
		want := cleanAnswersLike(t, root, dir)
		got, failures := answers(t, root, dir)
		sameAnswers(t, fmt.Sprintf("point %d: server killed %v into a %v shutdown checkpoint", i, d, shutdown), got, want, failures)
	}
	t.Logf("%d kill points over a %v shutdown checkpoint, %d killed before it answered; every next run answered as a clean index", points, shutdown, killed)
}

func mustRel(root, p string) string {
	rel, _ := filepath.Rel(root, p)
	return filepath.ToSlash(rel)
}

// Every file of an index, truncated or with bytes flipped, leads the next
// `ctxls assemble` to answer what a clean index answers (it rebuilds) or
// to fail with a message — never to a panic, never to another answer —
// and the run after that answers right.
func TestDamagedIndexFiles(t *testing.T) {
	root := faultTree(t)
	want := cleanAnswers(t, root)
	pristine := t.TempDir()
	timed(t, nil, "index", "--root", root, "--cache-dir", pristine)
	var files []string
	filepath.WalkDir(pristine, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && d.Name() != "lock" {
			files = append(files, mustRel(pristine, p))
		}
		return nil
	})
	rng := faultRand(t, 4)
	rounds := max(1, faultEnvInt(t, "CTXLS_FAULT_POINTS", 5)/5)
	tried, served, refused := 0, 0, 0
	for round := range rounds {
		for _, f := range files {
			for _, damage := range []string{"truncate", "flip"} {
				dir := t.TempDir()
				must(t, os.CopyFS(dir, os.DirFS(pristine)))
				p := filepath.Join(dir, filepath.FromSlash(f))
				b, err := os.ReadFile(p)
				must(t, err)
				what := fmt.Sprintf("round %d: %s %s (%d bytes)", round, damage, f, len(b))
				switch damage {
				case "truncate":
					n := 0
					if len(b) > 0 {
						n = rng.IntN(len(b))
					}
					b = b[:n]
					what += fmt.Sprintf(" to %d", n)
				case "flip":
					if len(b) == 0 {
						continue
					}
					for range 8 {
						b[rng.IntN(len(b))] ^= byte(1 << rng.IntN(8))
					}
				}
				must(t, os.WriteFile(p, b, 0o644))
				tried++
				got, failures := answers(t, root, dir)
				if len(failures) > 0 {
					refused++
					for _, f := range failures {
						if !strings.Contains(f, "status 1") {
							t.Errorf("%s: %s (want status 1 and a message)", what, f)
						}
					}
				} else {
					sameAnswers(t, what, got, want, nil)
					served++
				}
				got, failures = answers(t, root, dir)
				sameAnswers(t, what+", then again", got, want, failures)
			}
		}
	}
	t.Logf("%d damaged index files (%d files × truncate/flip × %d rounds): %d answered as a clean index, %d refused with a message", tried, len(files), rounds, served, refused)
}

// sessionAssemble sends a context/assemble and returns the result or
// the error.
func sessionAssemble(c *lspConn, params map[string]any) (*resultJSON, error) {
	raw, err := c.request("context/assemble", params, 60*time.Second)
	if err != nil {
		return nil, err
	}
	var r resultJSON
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// A workspace folder deleted while it is being indexed: the server keeps
// serving the session's other folder, answers requests about the deleted
// one with a result or an error (never a crash), and the session ends
// cleanly.
func TestFolderDeletedWhileIndexed(t *testing.T) {
	root := faultTree(t)
	extraRoot := t.TempDir()
	p, addr, token := serveFace(t, t.TempDir(), root, extraRoot)
	c := lspInit(t, addr, token, root)
	gone := filepath.Join(extraRoot, "gone")
	if _, err := PrepareTree(gorootDir, []string{"net/http"}, gone); err != nil {
		t.Fatal(err)
	}
	must(t, c.notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{
		"added": []map[string]any{{"uri": dirURI(gone), "name": "gone"}}, "removed": []any{}}}))
	time.Sleep(50 * time.Millisecond) // the build has started
	must(t, os.RemoveAll(gone))
	_, err := sessionAssemble(c, map[string]any{"focus": map[string]any{"uri": fileURI(dirURI(gone), "net/http/server.go"), "position": position{Line: 10}}})
	if err != nil {
		if _, ok := err.(*rpcError); !ok {
			t.Fatalf("a request about the deleted folder: %v", err)
		}
		t.Logf("a request about the deleted folder: %v", err)
	}
	// The other folder may still be in its first build on a loaded machine
	// (a request then answers from what is indexed, possibly nothing): it
	// must be served once that build is done.
	deadline := time.Now().Add(60 * time.Second)
	for {
		r, err := sessionAssemble(c, map[string]any{"query": "parse a URL query string", "focus": map[string]any{"uri": fileURI(dirURI(root), "net/url/url.go"), "position": position{Line: 100}}})
		if err != nil {
			t.Fatalf("the other folder is not served: %v", err)
		}
		if len(r.Parts) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the other folder is not served: no parts after 60 s")
		}
		time.Sleep(200 * time.Millisecond)
	}
	must(t, c.notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{
		"added": []any{}, "removed": []map[string]any{{"uri": dirURI(gone), "name": "gone"}}}}))
	if _, err := c.request("shutdown", nil, 60*time.Second); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	c.notify("exit", nil)
	if lines := p.log.panicLines(); len(lines) > 0 {
		t.Fatalf("the server log reports %q", lines)
	}
}

// 100 000 tiny files in one directory (CTXLS_FAULT_TINY; 5 000 by
// default) are indexed and served; the run's time and peak RSS are
// logged.
func TestManyTinyFiles(t *testing.T) {
	n := faultEnvInt(t, "CTXLS_FAULT_TINY", 5000)
	root := filepath.Join(t.TempDir(), "tiny")
	must(t, os.MkdirAll(filepath.Join(root, "many"), 0o755))
	for i := range n {
		must(t, os.WriteFile(filepath.Join(root, "many", fmt.Sprintf("f%06d.go", i)), []byte(fmt.Sprintf("package many\n\nconst Tiny%d = %d\n", i, i)), 0o644))
	}
	cache := t.TempDir()
	cmd := exec.Command(ctxlsBin, "index", "--root", root, "--cache-dir", cache, "--json")
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ctxls index of %d files: %v\n%s", n, err, out)
	}
	d := time.Since(start)
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss / 1024
	var st struct {
		Files int `json:"files"`
	}
	json.Unmarshal(out, &st)
	if st.Files != n {
		t.Fatalf("indexed %d of %d files:\n%s", st.Files, n, out)
	}
	q := fmt.Sprintf("Tiny%d", n/2)
	stdout, stderr, code := runCtxls(t, nil, "assemble", "--root", root, "--cache-dir", cache, "--query", q, "--budget", "300")
	if code != 0 || !strings.Contains(stdout, fmt.Sprintf("f%06d.go", n/2)) {
		t.Fatalf("assemble %s: status %d, %s\n%s", q, code, stderr, stdout)
	}
	t.Logf("%d tiny files in one directory: indexed in %v, peak RSS %d MB", n, d.Round(time.Millisecond), rss)
}

// A 10 MB single-line (minified) file is skipped as too large by the
// index, also when an editor opens it as a buffer; nothing hangs, and the
// other files are served.
func TestHugeMinifiedFile(t *testing.T) {
	root := faultTree(t)
	var sb strings.Builder
	for sb.Len() < 10<<20 {
		sb.WriteString("var a=function(b){return b*2+1};")
	}
	huge := sb.String()
	must(t, os.WriteFile(filepath.Join(root, "bundle.js"), []byte(huge), 0o644))
	start := time.Now()
	out, stderr, code := runCtxls(t, nil, "index", "--root", root, "--cache-dir", t.TempDir(), "--json")
	if code != 0 || !strings.Contains(out, `"too_large": 1`) {
		t.Fatalf("ctxls index: status %d, %s\n%s", code, stderr, out)
	}
	t.Logf("index with a 10 MB one-line file: %v", time.Since(start).Round(time.Millisecond))
	p, addr, token := serveFace(t, t.TempDir(), root)
	c := lspInit(t, addr, token, root)
	uri := fileURI(dirURI(root), "bundle.js")
	must(t, c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "javascript", "version": 1, "text": huge}}))
	must(t, c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []map[string]any{{"range": lspRange{Start: position{0, 5 << 20}, End: position{0, 5<<20 + 3}}, "text": "xyz"}}}))
	start = time.Now()
	r, err := sessionAssemble(c, map[string]any{"query": "function return parse a URL"})
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range r.Parts {
		if part.Path == "bundle.js" {
			t.Fatal("the 10 MB buffer is in an answer")
		}
	}
	t.Logf("assemble with a 10 MB one-line buffer open: %v", time.Since(start).Round(time.Millisecond))
	_, err = sessionAssemble(c, map[string]any{"focus": map[string]any{"uri": uri, "position": position{0, 100}}})
	if e, ok := err.(*rpcError); !ok || e.Code != codeInvalidParams || !strings.Contains(e.Message, "focus") {
		t.Fatalf("a focus on the 10 MB buffer: %v, want InvalidParams naming focus", err)
	}
	if lines := p.log.panicLines(); len(lines) > 0 {
		t.Fatalf("the server log reports %q", lines)
	}
}
