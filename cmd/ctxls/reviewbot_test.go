package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ctxlsOnPath returns a directory holding an executable `ctxls` that runs
// this test binary as ctxls.
func ctxlsOnPath(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	wrapper := fmt.Sprintf("#!/bin/sh\n%s=1 exec '%s' \"$@\"\n", runAsMain, self)
	if err := os.WriteFile(filepath.Join(dir, "ctxls"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("%s %v: %v\n%s%s", name, args, err, out, msg)
	}
	return string(out)
}

func gitCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return strings.TrimSpace(run(t, dir, nil, "git", append([]string{"-c", "user.email=t@t", "-c", "user.name=t", "-c", "init.defaultBranch=main", "-c", "advice.detachedHead=false"}, args...)...))
}

// libFile is lib/fN.go: FuncN calls Func(N-1), so the files form a chain
// the graph and diff channels follow.
func libFile(n int, body string) string {
	call := ""
	if n > 1 {
		call = fmt.Sprintf("\tx += Func%d(x)\n", n-1)
	}
	return fmt.Sprintf("package lib\n\n// Func%d scales x by %d %s.\nfunc Func%d(x int) int {\n%s\tx = x*%d + %s\n\treturn x\n}\n", n, n, body, n, call, n, body)
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// botRepo is the fixture of the review-bot tests: a bare origin whose
// main has three commits (old: the commit the cached index was built at;
// fork: where the pull request branched; base: main's tip, which changes
// lib/f7.go after the fork) and a feature branch off fork that changes
// lib/f5.go.
type botRepo struct {
	origin          string
	old, fork, base string
	feature         string
}

// newBotRepo makes the fixture. Every change changes the file's size, so
// that it is seen on file systems with coarse mtimes too.
func newBotRepo(t *testing.T) botRepo {
	t.Helper()
	for _, tool := range []string{"git", "bash", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not installed: scripts/review-bot.sh needs it (apt-get install %s)", tool, tool)
		}
	}
	top := t.TempDir()
	origin := filepath.Join(top, "origin.git")
	dev := filepath.Join(top, "dev")
	gitCmd(t, top, "init", "-q", "--bare", origin)
	gitCmd(t, top, "clone", "-q", origin, dev)
	files := map[string]string{
		"go.mod":     "module example.com/bot\n\ngo 1.22\n",
		"app/app.go": "package app\n\nimport \"example.com/bot/lib\"\n\n// Run computes the answer.\nfunc Run() int { return lib.Func10(1) }\n",
		"README.md":  "# bot\n\nA chain of scaling functions.\n",
	}
	for n := 1; n <= 10; n++ {
		files[fmt.Sprintf("lib/f%d.go", n)] = libFile(n, "1")
	}
	writeFiles(t, dev, files)
	gitCmd(t, dev, "add", "-A")
	gitCmd(t, dev, "commit", "-qm", "old")
	var r botRepo
	r.origin = origin
	r.old = gitCmd(t, dev, "rev-parse", "HEAD")
	// fork: f3 changed, f11 added, f10 removed (app calls f9 now).
	writeFiles(t, dev, map[string]string{
		"lib/f3.go":  libFile(3, "22"),
		"lib/f11.go": libFile(11, "1"),
		"app/app.go": "package app\n\nimport \"example.com/bot/lib\"\n\n// Run computes the answer.\nfunc Run() int { return lib.Func9(1) }\n",
	})
	gitCmd(t, dev, "rm", "-q", "lib/f10.go")
	gitCmd(t, dev, "commit", "-qam", "fork")
	r.fork = gitCmd(t, dev, "rev-parse", "HEAD")
	gitCmd(t, dev, "checkout", "-qb", "feature")
	writeFiles(t, dev, map[string]string{"lib/f5.go": libFile(5, "77")})
	gitCmd(t, dev, "commit", "-qam", "feature: f5 rounds differently")
	r.feature = gitCmd(t, dev, "rev-parse", "HEAD")
	gitCmd(t, dev, "checkout", "-q", "main")
	writeFiles(t, dev, map[string]string{"lib/f7.go": libFile(7, "33")})
	gitCmd(t, dev, "commit", "-qam", "base: f7 after the fork")
	r.base = gitCmd(t, dev, "rev-parse", "HEAD")
	gitCmd(t, dev, "push", "-q", "origin", "main", "feature")
	return r
}

// clone checks the fixture out at dir (a fresh clone: every file new).
func (r botRepo) clone(t *testing.T, dir, rev string) {
	t.Helper()
	gitCmd(t, filepath.Dir(dir), "clone", "-q", r.origin, dir)
	gitCmd(t, dir, "checkout", "-q", rev)
}

// readOutputs parses a $GITHUB_OUTPUT file (NAME=VALUE lines; a later
// line wins).
func readOutputs(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			t.Fatalf("%s: malformed output line %q", path, sc.Text())
		}
		out[k] = v
	}
	return out
}

type indexStats struct {
	Mode      string `json:"mode"`
	Reason    string `json:"reason"`
	Files     int    `json:"files"`
	Read      int    `json:"read"`
	Changed   int    `json:"changed"`
	Removed   int    `json:"removed"`
	StateRoot string `json:"stateRoot"`
}

type botResult struct {
	Rendered string `json:"rendered"`
	Parts    []struct {
		Path    string   `json:"path"`
		Score   float64  `json:"score"`
		Sources []string `json:"sources"`
	} `json:"parts"`
	Stats struct {
		TotalTokens   int    `json:"totalTokens"`
		MaxTokens     int    `json:"maxTokens"`
		IndexState    string `json:"indexState"`
		IndexComplete bool   `json:"indexComplete"`
	} `json:"stats"`
	Omitted []struct {
		Path   string `json:"path"`
		Reason string `json:"reason"`
	} `json:"omitted"`
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	run(t, "/", nil, "cp", "-R", src, dst)
}

const botScript = "../../scripts/review-bot.sh"

// TestReviewBotScript runs scripts/review-bot.sh, the GitHub Action's
// logic, on a fixture repository with an index cached at an older commit
// of the base branch: the index is refreshed (only the files that differ
// from that commit re-read), the context is assembled for the pull
// request's own change (main...HEAD), and the files, outputs and step
// summary say so.
func TestReviewBotScript(t *testing.T) {
	t.Parallel() // its own servers and directories: beside the package's other long tests
	r := newBotRepo(t)
	script, err := filepath.Abs(botScript)
	if err != nil {
		t.Fatal(err)
	}
	bin := ctxlsOnPath(t)
	top := t.TempDir()
	ws := filepath.Join(top, "ws")
	cacheAtOld := filepath.Join(top, "cache-at-old")

	// The cache: an index built at the old commit, as a run on main once
	// saved it.
	r.clone(t, ws, r.old)
	run(t, ws, nil, filepath.Join(bin, "ctxls"), "index", "--root", ws, "--cache-dir", cacheAtOld)
	indexDir := filepath.Join(top, "index")
	copyDir(t, cacheAtOld, indexDir)

	// The pull request's checkout in the same workspace: git rewrites
	// only the files that differ, the others keep their mtimes.
	gitCmd(t, ws, "checkout", "-q", "feature")

	out := filepath.Join(top, "out")
	ghOutput := filepath.Join(top, "github_output")
	ghSummary := filepath.Join(top, "step_summary")
	pwned := filepath.Join(top, "pwned")
	env := []string{
		"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"GITHUB_OUTPUT=" + ghOutput, "GITHUB_STEP_SUMMARY=" + ghSummary, "GITHUB_ACTIONS=",
		"RUNNER_OS=Linux", "CTXLS_ROOT=" + ws, "CTXLS_BASE_REF=main", "CTXLS_INDEX_DIR=" + indexDir,
		"CTXLS_OUT_DIR=" + out, "CTXLS_BUDGET=1500",
		"CTXLS_CACHE_MATCHED_KEY=ctxls-index-v1-Linux-cl100k_base-" + r.old,
		// Text from a pull request is never run: not in the query, not in
		// the arguments.
		"CTXLS_QUERY=scaling $(touch " + pwned + ") `touch " + pwned + "`",
		`CTXLS_EXTRA_ARGS=--strategy 'score' --exclude "lib/f1.go"`,
	}

	run(t, ws, env, "bash", script, "prepare")
	prep := readOutputs(t, ghOutput)
	wantPrep := map[string]string{
		"mode": "pull-request", "base-sha": r.base, "head-sha": r.feature, "cache-dir": indexDir,
		"cache-key": "ctxls-index-v1-Linux-cl100k_base-" + r.base, "cache-restore-key": "ctxls-index-v1-Linux-cl100k_base-",
	}
	for k, v := range wantPrep {
		if prep[k] != v {
			t.Errorf("prepare output %s = %q, want %q", k, prep[k], v)
		}
	}
	os.Remove(ghOutput)

	run(t, ws, env, "bash", script, "run")
	o := readOutputs(t, ghOutput)
	if _, err := os.Stat(pwned); err == nil {
		t.Fatal("the query text was run by a shell")
	}

	// The refresh re-read only the files that differ between the old
	// commit and the pull request's tree: f3 (changed on main), f11
	// (added), f5 (the pull request's change); f10 is gone. f7 changed on
	// main after the fork, not in this tree.
	var ist indexStats
	readJSON(t, filepath.Join(out, "index.json"), &ist)
	if ist.Mode != "refresh" || ist.Read != 3 || ist.Changed != 3 || ist.Removed != 1 || ist.Files != 12 {
		t.Errorf("index refresh: %+v; want a refresh of 12 files that read 3, changed 3 and removed 1", ist)
	}
	if o["index-mode"] != "refresh" || o["files-read"] != "3" || o["files-changed"] != "3" {
		t.Errorf("index outputs: mode %q, files-read %q, files-changed %q", o["index-mode"], o["files-read"], o["files-changed"])
	}

	// The diff is the pull request's own change.
	diff, err := os.ReadFile(o["diff-file"])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(diff), "+++ b/lib/f5.go") || strings.Contains(string(diff), "lib/f7.go") || strings.Count(string(diff), "diff --git ") != 1 {
		t.Errorf("diff file: want lib/f5.go's change only:\n%s", diff)
	}
	if o["merge-base"] != r.fork || o["base-sha"] != r.base || o["head-sha"] != r.feature {
		t.Errorf("outputs: merge-base %s base-sha %s head-sha %s; want %s %s %s", o["merge-base"], o["base-sha"], o["head-sha"], r.fork, r.base, r.feature)
	}

	// The context file is the result's rendered text, and the outputs
	// are the result's figures.
	var res botResult
	readJSON(t, o["result-file"], &res)
	ctx, err := os.ReadFile(o["context-file"])
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Ext(o["context-file"]) != ".md" || string(ctx) != res.Rendered || !strings.Contains(string(ctx), "Func5") {
		t.Errorf("context file %s (%d bytes) is not the rendered markdown of the result, with Func5", o["context-file"], len(ctx))
	}
	if o["tokens"] != fmt.Sprint(res.Stats.TotalTokens) || res.Stats.TotalTokens == 0 || res.Stats.TotalTokens > 1500 || res.Stats.MaxTokens != 1500 {
		t.Errorf("tokens output %q; result %+v", o["tokens"], res.Stats)
	}
	if o["index-complete"] != "true" || o["index-state"] != res.Stats.IndexState || res.Stats.IndexState != ist.StateRoot || ist.StateRoot == "" {
		t.Errorf("index outputs: complete %q, state %q; result state %q, index state root %q", o["index-complete"], o["index-state"], res.Stats.IndexState, ist.StateRoot)
	}
	// The extra arguments arrived, unquoted: score order, f1 left out.
	fromDiff := false
	for i, p := range res.Parts {
		if p.Path == "lib/f1.go" {
			t.Errorf("--exclude lib/f1.go from CTXLS_EXTRA_ARGS was not applied")
		}
		if i > 0 && p.Score > res.Parts[i-1].Score {
			t.Errorf("--strategy score from CTXLS_EXTRA_ARGS was not applied: part %d scores %v after %v", i+1, p.Score, res.Parts[i-1].Score)
		}
		fromDiff = fromDiff || slices.Contains(p.Sources, "diff")
	}
	if !fromDiff {
		t.Error("no part came from the diff channel")
	}
	// The bot asks for a review: what the change does not reach is left
	// out, listed as such.
	if !slices.ContainsFunc(res.Omitted, func(o struct {
		Path   string `json:"path"`
		Reason string `json:"reason"`
	}) bool {
		return o.Reason == "not reached by the change (mode review)"
	}) {
		t.Errorf("the context was not assembled in review mode: omitted %+v", res.Omitted)
	}
	sch, err := jsonschema.NewCompiler().Compile("../../docs/result.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(o["result-file"])
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("the result file does not match docs/result.schema.json: %v", err)
	}

	summary, err := os.ReadFile(ghSummary)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"review context for `main..." + r.feature[:12] + "`",
		fmt.Sprintf("%d / 1500 tokens", res.Stats.TotalTokens),
		"refresh of 12 files", "3 read, 3 changed, 1 removed",
		"`ctxls-index-v1-Linux-cl100k_base-" + r.old + "`",
		"`" + r.fork[:12] + "..." + r.feature[:12] + "`",
		"`" + ist.StateRoot + "` (complete: true)",
	} {
		if !strings.Contains(string(summary), want) {
			t.Errorf("step summary lacks %q:\n%s", want, summary)
		}
	}

	checkActionWiring(t, prep, o)

	// A second run on the same workspace: the index opens with nothing to
	// read, and the context is byte-identical.
	os.Remove(ghOutput)
	run(t, ws, env, "bash", script, "run")
	o2 := readOutputs(t, ghOutput)
	ctx2, _ := os.ReadFile(o2["context-file"])
	if o2["index-mode"] != "open" || o2["files-read"] != "0" || string(ctx2) != string(ctx) {
		t.Errorf("second run: index-mode %q, files-read %q, same context %v", o2["index-mode"], o2["files-read"], string(ctx2) == string(ctx))
	}

	// CI's case: a fresh clone at the same path with the index restored
	// from the old commit. Every file is new to the index (its mtime
	// changed), so each is read and hashed; only the three whose content
	// differs are indexed again.
	os.RemoveAll(ws)
	r.clone(t, ws, "feature")
	os.RemoveAll(indexDir)
	copyDir(t, cacheAtOld, indexDir)
	os.Remove(ghOutput)
	run(t, ws, env, "bash", script, "run")
	readJSON(t, filepath.Join(out, "index.json"), &ist)
	o3 := readOutputs(t, ghOutput)
	ctx3, _ := os.ReadFile(o3["context-file"])
	if ist.Mode != "refresh" || ist.Read != 12 || ist.Changed != 3 || ist.Removed != 1 {
		t.Errorf("fresh clone: %+v; want a refresh that read all 12 files and changed 3", ist)
	}
	if string(ctx3) != string(ctx) || o3["index-state"] != o["index-state"] {
		t.Errorf("fresh clone: the context or the index state differs from the first run's")
	}
}

// checkActionWiring checks action.yml against what the script did: every
// step output the action reads is one the script wrote, and every
// CTXLS_ variable the action sets is one the script reads.
func checkActionWiring(t *testing.T, prep, run map[string]string) {
	t.Helper()
	action, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(botScript)
	if err != nil {
		t.Fatal(err)
	}
	refs := regexp.MustCompile(`steps\.(prepare|run)\.outputs\.([a-z-]+)`).FindAllStringSubmatch(string(action), -1)
	if len(refs) < 10 {
		t.Fatalf("action.yml reads %d step outputs of the script; the pattern is out of date", len(refs))
	}
	for _, m := range refs {
		written := prep
		if m[1] == "run" {
			written = run
		}
		if _, ok := written[m[2]]; !ok {
			t.Errorf("action.yml reads steps.%s.outputs.%s, which review-bot.sh %s does not write", m[1], m[2], m[1])
		}
	}
	for _, m := range regexp.MustCompile(`(?m)^\s+(CTXLS_[A-Z_]+):`).FindAllStringSubmatch(string(action), -1) {
		if !strings.Contains(string(script), "${"+m[1]) {
			t.Errorf("action.yml sets %s, which review-bot.sh does not read", m[1])
		}
	}
	for _, m := range regexp.MustCompile(`review-bot\.sh" ([\w-]+)`).FindAllStringSubmatch(string(action), -1) {
		if !strings.Contains(string(script), "\n"+m[1]+") cmd_") {
			t.Errorf("action.yml runs review-bot.sh %s, which the script does not have", m[1])
		}
	}
}

// writeReleaseArchive writes DIR/NAME.tar.gz holding NAME/ctxls (the
// script text, executable) and DIR/SHA256SUMS listing it, as make dist
// lays a release out.
func writeReleaseArchive(t *testing.T, dir, name, script string) {
	t.Helper()
	src := t.TempDir()
	if err := os.MkdirAll(filepath.Join(src, name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, name, "ctxls"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("tar", "-C", src, "-czf", filepath.Join(dir, name+".tar.gz"), name).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, b)
	}
	b, err := os.ReadFile(filepath.Join(dir, name+".tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	sums := fmt.Sprintf("%x  %s.tar.gz\n%x  other.tar.gz\n", sum, name, sha256.Sum256(nil))
	if err := os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte(sums), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReviewBotScriptIndexOnly: without a base ref (a push to main) the
// script builds the index of HEAD, keyed by HEAD, and assembles nothing;
// nor does it for an empty diff.
func TestReviewBotScriptIndexOnly(t *testing.T) {
	t.Parallel() // its own servers and directories: beside the package's other long tests
	r := newBotRepo(t)
	script, err := filepath.Abs(botScript)
	if err != nil {
		t.Fatal(err)
	}
	bin := ctxlsOnPath(t)
	top := t.TempDir()
	ws := filepath.Join(top, "ws")
	r.clone(t, ws, "main")
	ghOutput := filepath.Join(top, "github_output")
	env := []string{
		"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"GITHUB_OUTPUT=" + ghOutput, "GITHUB_STEP_SUMMARY=" + filepath.Join(top, "summary"), "GITHUB_BASE_REF=",
		"RUNNER_OS=Linux", "CTXLS_ROOT=" + ws, "CTXLS_ENCODING=o200k_base",
		// Inside the workspace, as GitLab's cache and artifacts want
		// them: the script keeps both out of the index.
		"CTXLS_INDEX_DIR=" + filepath.Join(ws, ".ctxls-index"),
		"CTXLS_OUT_DIR=" + filepath.Join(ws, "ctxls-out"),
	}
	run(t, ws, env, "bash", script, "prepare")
	if o := readOutputs(t, ghOutput); o["mode"] != "index" || o["cache-key"] != "ctxls-index-v1-Linux-o200k_base-"+r.base {
		t.Errorf("prepare without a base: %v", o)
	}
	os.Remove(ghOutput)
	run(t, ws, env, "bash", script, "run")
	o := readOutputs(t, ghOutput)
	var ist indexStats
	readJSON(t, filepath.Join(ws, "ctxls-out", "index.json"), &ist)
	if o["mode"] != "index" || o["index-mode"] != "build" || ist.Files != 12 || o["index-state"] != ist.StateRoot || o["context-file"] != "" {
		t.Errorf("run without a base: outputs %v, index %+v", o, ist)
	}
	if exclude, _ := os.ReadFile(filepath.Join(ws, ".git", "info", "exclude")); strings.Count(string(exclude), "/.ctxls-index/\n") != 1 ||
		strings.Count(string(exclude), "/ctxls-out/\n") != 1 {
		t.Errorf(".git/info/exclude does not ignore the index and output directories once each:\n%s", exclude)
	}

	// A pull request with nothing to show (its base is its head): an
	// empty context file, no result, the index refreshed all the same.
	os.Remove(ghOutput)
	run(t, ws, append(env, "CTXLS_BASE_REF=main"), "bash", script, "run")
	o = readOutputs(t, ghOutput)
	ctx, err := os.ReadFile(o["context-file"])
	if err != nil || len(ctx) != 0 || o["tokens"] != "0" || o["result-file"] != "" || o["mode"] != "pull-request" || o["index-mode"] != "open" {
		t.Errorf("empty diff: outputs %v, context %q (%v)", o, ctx, err)
	}
	// The second run met the first one's files in the output directory:
	// none of them is indexed (they would come back as context).
	readJSON(t, filepath.Join(ws, "ctxls-out", "index.json"), &ist)
	if ist.Files != 12 {
		t.Errorf("the second run indexed %d files, want the repository's 12 (the output directory left out)", ist.Files)
	}
}

// TestReviewBotScriptErrors: bad input fails with the script's message,
// before anything is assembled.
func TestReviewBotScriptErrors(t *testing.T) {
	t.Parallel() // its own servers and directories: beside the package's other long tests
	r := newBotRepo(t)
	script, err := filepath.Abs(botScript)
	if err != nil {
		t.Fatal(err)
	}
	bin := ctxlsOnPath(t)
	top := t.TempDir()
	ws := filepath.Join(top, "ws")
	r.clone(t, ws, "feature")
	base := []string{
		"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "GITHUB_ACTIONS=",
		"GITHUB_OUTPUT=" + filepath.Join(top, "o"), "GITHUB_STEP_SUMMARY=" + filepath.Join(top, "s"),
		"CTXLS_ROOT=" + ws, "CTXLS_INDEX_DIR=" + filepath.Join(top, "index"), "CTXLS_OUT_DIR=" + filepath.Join(top, "out"),
	}
	cases := []struct {
		name, step string
		env        []string
		msg        string
	}{
		{"unknown base", "prepare", []string{"CTXLS_BASE_REF=nope"}, "base nope: not a commit or ref here"},
		{"bad format", "run", []string{"CTXLS_BASE_REF=main", "CTXLS_FORMAT=html"}, "format html"},
		{"unbalanced quote", "run", []string{"CTXLS_BASE_REF=main", "CTXLS_EXTRA_ARGS=--exclude 'lib"}, "extra args"},
		{"bad extra argument", "run", []string{"CTXLS_BASE_REF=main", "CTXLS_EXTRA_ARGS=--frobnicate"}, "ctxls assemble failed"},
		{"no step", "", nil, "usage: review-bot.sh"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := []string{script}
			if c.step != "" {
				args = append(args, c.step)
			}
			cmd := exec.Command("bash", args...)
			cmd.Dir = ws
			cmd.Env = append(append(os.Environ(), base...), c.env...)
			b, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(string(b), c.msg) {
				t.Errorf("err %v, output:\n%s\nwant a failure saying %q", err, b, c.msg)
			}
		})
	}
}

// TestReviewBotInstall: `review-bot.sh install` installs the version
// asked for, else the action's ref, else builds the action's own
// checkout (here: this repository, with the real go).
func TestReviewBotInstall(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	script, err := filepath.Abs(botScript)
	if err != nil {
		t.Fatal(err)
	}
	// A go that records its install arguments and leaves a binary.
	fake := t.TempDir()
	fakeBin := t.TempDir()
	calls := filepath.Join(t.TempDir(), "calls")
	goScript := fmt.Sprintf(`#!/bin/sh
case "$1 $2" in
"env GOBIN") echo %q ;;
"env GOPATH") echo /nonexistent ;;
install*) echo "$*" >>%q; printf '#!/bin/sh\n' >%q/ctxls; chmod +x %q/ctxls ;;
*) exit 3 ;;
esac
`, fakeBin, calls, fakeBin, fakeBin)
	if err := os.WriteFile(filepath.Join(fake, "go"), []byte(goScript), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		env  []string
		want string
	}{
		{"version input", []string{"CTXLS_VERSION=v1.2.3", "CTXLS_ACTION_REF=main"}, "install github.com/ctxls/ctxls/cmd/ctxls@v1.2.3"},
		{"action ref", []string{"CTXLS_VERSION=", "CTXLS_ACTION_REF=0123456789abcdef0123456789abcdef01234567"}, "install github.com/ctxls/ctxls/cmd/ctxls@0123456789abcdef0123456789abcdef01234567"},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.Remove(calls)
			out := filepath.Join(t.TempDir(), "out")
			// No release archive of that version: go install builds it.
			env := append([]string{"PATH=" + fake + string(os.PathListSeparator) + os.Getenv("PATH"), "GITHUB_OUTPUT=" + out, "GITHUB_PATH=",
				"CTXLS_RELEASE_URL=file://" + t.TempDir()}, c.env...)
			run(t, t.TempDir(), env, "bash", script, "install")
			b, _ := os.ReadFile(calls)
			if got := strings.TrimSpace(string(b)); got != c.want {
				t.Errorf("go %s; want go %s", got, c.want)
			}
			if o := readOutputs(t, out); o["ctxls-bin"] != filepath.Join(fakeBin, "ctxls") {
				t.Errorf("ctxls-bin output %q", o["ctxls-bin"])
			}
		})
	}
	// A release: its archive for this machine, checked against the
	// release's SHA256SUMS; go is not run. A tampered archive is refused,
	// not installed and not replaced by a build.
	t.Run("release archive", func(t *testing.T) {
		if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
			t.Skip("release archives are made for linux/amd64 and linux/arm64")
		}
		if _, err := exec.LookPath("curl"); err != nil {
			t.Fatal("curl not installed: scripts/review-bot.sh needs it (apt-get install curl)")
		}
		rel := t.TempDir()
		name := "ctxls_v1.2.3_linux_" + runtime.GOARCH
		writeReleaseArchive(t, rel, name, "#!/bin/sh\necho ctxls v1.2.3\n")
		for _, sub := range []string{"install", "install-release"} {
			os.Remove(calls)
			out, ghPath, tmp := filepath.Join(t.TempDir(), "out"), filepath.Join(t.TempDir(), "path"), t.TempDir()
			run(t, t.TempDir(), []string{"PATH=" + fake + string(os.PathListSeparator) + os.Getenv("PATH"), "GITHUB_OUTPUT=" + out,
				"GITHUB_PATH=" + ghPath, "RUNNER_TEMP=" + tmp, "CTXLS_VERSION=v1.2.3", "CTXLS_RELEASE_URL=file://" + rel}, "bash", script, sub)
			if b, _ := os.ReadFile(calls); len(b) > 0 {
				t.Errorf("%s: go was run for a release: %s", sub, b)
			}
			o := readOutputs(t, out)
			bin := o["ctxls-bin"]
			if bin == "" || !strings.HasPrefix(bin, tmp) {
				t.Fatalf("%s: ctxls-bin output %q, want the unpacked archive's binary under %s", sub, bin, tmp)
			}
			if got := run(t, t.TempDir(), nil, bin); strings.TrimSpace(got) != "ctxls v1.2.3" {
				t.Errorf("%s: the installed binary says %q", sub, got)
			}
			if p, _ := os.ReadFile(ghPath); strings.TrimSpace(string(p)) != filepath.Dir(bin) {
				t.Errorf("%s: GITHUB_PATH got %q", sub, p)
			}
			if sub == "install-release" && o["release"] != "true" {
				t.Errorf("install-release: release output %q", o["release"])
			}
		}
		// Outside GitHub (no GITHUB_PATH: GitLab's recipe), the next step
		// runs in a new shell: the binary is copied where go install puts
		// binaries, which the recipe puts on PATH, and run finds it there.
		os.Remove(calls)
		out := filepath.Join(t.TempDir(), "out")
		run(t, t.TempDir(), []string{"PATH=" + fake + string(os.PathListSeparator) + os.Getenv("PATH"), "GITHUB_OUTPUT=" + out,
			"GITHUB_PATH=", "RUNNER_TEMP=" + t.TempDir(), "CTXLS_VERSION=v1.2.3", "CTXLS_RELEASE_URL=file://" + rel}, "bash", script, "install")
		if b, _ := os.ReadFile(calls); len(b) > 0 {
			t.Errorf("go was run for a release: %s", b)
		}
		if o := readOutputs(t, out); o["ctxls-bin"] != filepath.Join(fakeBin, "ctxls") {
			t.Errorf("outside GitHub: ctxls-bin output %q, want %s", o["ctxls-bin"], filepath.Join(fakeBin, "ctxls"))
		}
		if got := run(t, t.TempDir(), nil, filepath.Join(fakeBin, "ctxls")); strings.TrimSpace(got) != "ctxls v1.2.3" {
			t.Errorf("outside GitHub: the installed binary says %q", got)
		}
		// CTXLS_INSTALL_DIR names the directory.
		dir := filepath.Join(t.TempDir(), "bin")
		out = filepath.Join(t.TempDir(), "out")
		run(t, t.TempDir(), []string{"PATH=" + fake + string(os.PathListSeparator) + os.Getenv("PATH"), "GITHUB_OUTPUT=" + out,
			"GITHUB_PATH=", "RUNNER_TEMP=" + t.TempDir(), "CTXLS_INSTALL_DIR=" + dir, "CTXLS_VERSION=v1.2.3", "CTXLS_RELEASE_URL=file://" + rel}, "bash", script, "install")
		if o := readOutputs(t, out); o["ctxls-bin"] != filepath.Join(dir, "ctxls") {
			t.Errorf("CTXLS_INSTALL_DIR: ctxls-bin output %q", o["ctxls-bin"])
		}
		// Tampered: the archive no longer matches SHA256SUMS.
		if err := os.WriteFile(filepath.Join(rel, name+".tar.gz"), []byte("not the archive"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Remove(calls)
		cmd := exec.Command("bash", script, "install")
		cmd.Env = append(os.Environ(), "PATH="+fake+string(os.PathListSeparator)+os.Getenv("PATH"), "GITHUB_OUTPUT="+filepath.Join(t.TempDir(), "out"),
			"GITHUB_PATH=", "GITHUB_ACTIONS=", "RUNNER_TEMP="+t.TempDir(), "CTXLS_VERSION=v1.2.3", "CTXLS_RELEASE_URL=file://"+rel)
		if b, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(b), "does not match its checksum") {
			t.Errorf("a tampered archive: %v\n%s", err, b)
		}
		if b, _ := os.ReadFile(calls); len(b) > 0 {
			t.Errorf("a tampered archive was replaced by a build: go %s", b)
		}
		// Not a release: install-release says so and installs nothing.
		out = filepath.Join(t.TempDir(), "out")
		run(t, t.TempDir(), []string{"GITHUB_OUTPUT=" + out, "GITHUB_PATH=", "RUNNER_TEMP=" + t.TempDir(), "CTXLS_VERSION=main",
			"CTXLS_RELEASE_URL=file://" + t.TempDir()}, "bash", script, "install-release")
		if o := readOutputs(t, out); o["release"] != "false" || o["ctxls-bin"] != "" {
			t.Errorf("install-release of a branch: outputs %v", o)
		}
	})
	t.Run("no version", func(t *testing.T) {
		env := []string{"PATH=" + fake + string(os.PathListSeparator) + os.Getenv("PATH"), "CTXLS_VERSION=", "CTXLS_ACTION_REF=", "CTXLS_ACTION_PATH=" + t.TempDir(), "GITHUB_ACTIONS="}
		cmd := exec.Command("bash", script, "install")
		cmd.Env = append(os.Environ(), env...)
		if b, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(b), "no ctxls version") {
			t.Errorf("install with no version and no source: %v\n%s", err, b)
		}
	})
	t.Run("action checkout", func(t *testing.T) {
		if testing.Short() {
			t.Skip("builds ctxls")
		}
		repo, err := filepath.Abs("../..")
		if err != nil {
			t.Fatal(err)
		}
		gobin, ghPath, out := t.TempDir(), filepath.Join(t.TempDir(), "path"), filepath.Join(t.TempDir(), "out")
		run(t, t.TempDir(), []string{"GOBIN=" + gobin, "CTXLS_VERSION=", "CTXLS_ACTION_REF=", "CTXLS_ACTION_PATH=" + repo,
			"GITHUB_OUTPUT=" + out, "GITHUB_PATH=" + ghPath}, "bash", script, "install")
		bin := filepath.Join(gobin, "ctxls")
		if o := readOutputs(t, out); o["ctxls-bin"] != bin {
			t.Errorf("ctxls-bin output %q, want %q", o["ctxls-bin"], bin)
		}
		if p, _ := os.ReadFile(ghPath); strings.TrimSpace(string(p)) != gobin {
			t.Errorf("GITHUB_PATH got %q, want %q", p, gobin)
		}
		if help := run(t, t.TempDir(), nil, bin, "help"); !strings.Contains(help, "assemble") {
			t.Errorf("the installed ctxls: %q", help)
		}
	})
}
