package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/pgstore/pgtest"
)

// hostilePR is a pull request that tries to bring the runner's files
// into the review context: symbolic links to the process's environment,
// to the checkout's .git/config (where actions/checkout leaves the job's
// token), to credential files and any file outside the checkout, and to
// /dev/zero (an endless read); a .env file; a file over the size limit;
// a file its own .gitignore ignores. Besides, it changes lib/f5.go.
type hostilePR struct {
	ws      string   // the pull request's checkout (branch evil)
	diff    string   // git diff main...HEAD in it
	markers []string // text that must never be in a context
	leaks   []string // the paths that must never be parts
	envVar  string   // NAME=VALUE to give ctxls: its /proc/self/environ
}

// newHostilePR clones r at its feature branch into top/ws and commits
// the hostile files on a branch of it.
func newHostilePR(t *testing.T, r botRepo, top string) hostilePR {
	t.Helper()
	p := hostilePR{ws: filepath.Join(top, "ws")}
	r.clone(t, p.ws, "feature")
	gitCmd(t, p.ws, "checkout", "-qb", "evil")
	gitCmd(t, p.ws, "config", "ctxls.marker", "GITCONFIG-MARKER-8c1d")
	home := filepath.Join(top, "home")
	writeFiles(t, home, map[string]string{
		".netrc":              "machine example.com login bot password NETRC-MARKER-51aa\n",
		".docker/config.json": `{"auths": {"registry.example.com": {"auth": "DOCKER-MARKER-93b0"}}}` + "\n",
		"outside.go":          "package lib\n\n// OutsideMarker is OUTSIDE-MARKER-2e4f.\nfunc OutsideMarker() int { return Func5(2) }\n",
	})
	p.envVar = "CTXLS_TEST_ENVIRON_MARKER=ENVIRON-MARKER-6d27"
	links := map[string]string{
		"lib/environ.go":   "/proc/self/environ",
		"lib/gitconfig.go": "../.git/config",
		"lib/netrc.go":     filepath.Join(home, ".netrc"),
		"lib/docker.json":  filepath.Join(home, ".docker", "config.json"),
		"lib/outside.go":   filepath.Join(home, "outside.go"),
		"lib/zero.go":      "/dev/zero",
	}
	for link, target := range links {
		if err := os.Symlink(target, filepath.Join(p.ws, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
		p.leaks = append(p.leaks, link)
	}
	big := "package lib\n\n// BigMarker is BIG-MARKER-0f9e.\nfunc BigMarker() int { return Func5(3) }\n" + strings.Repeat("// padding padding padding padding padding padding padding\n", 20000)
	writeFiles(t, p.ws, map[string]string{
		".env":           "API_TOKEN=DOTENV-MARKER-77c3\n",
		"lib/big.go":     big,
		".gitignore":     "gen/\n",
		"gen/ignored.go": "package gen\n\n// IgnoredMarker is IGNORED-MARKER-a4b2.\nfunc IgnoredMarker() {}\n",
	})
	p.leaks = append(p.leaks, ".env", "lib/big.go", "gen/ignored.go")
	gitCmd(t, p.ws, "add", "-A")
	gitCmd(t, p.ws, "add", "-f", "gen/ignored.go")
	gitCmd(t, p.ws, "commit", "-qm", "evil")
	p.diff = run(t, p.ws, nil, "git", "diff", "--no-color", "main...HEAD")
	for _, l := range p.leaks {
		if !strings.Contains(p.diff, "+++ b/"+l) {
			t.Fatalf("the pull request's diff does not add %s:\n%s", l, p.diff)
		}
	}
	p.markers = []string{"GITCONFIG-MARKER", "NETRC-MARKER", "DOCKER-MARKER", "OUTSIDE-MARKER", "ENVIRON-MARKER", "DOTENV-MARKER", "BIG-MARKER", "IGNORED-MARKER",
		// The checkout's .git/config holds the origin's URL.
		r.origin}
	return p
}

// check fails the test when out (a context or a JSON result) shows what
// the pull request must not bring in, or does not show its own change.
func (p hostilePR) check(t *testing.T, what, out string) {
	t.Helper()
	for _, m := range p.markers {
		if strings.Contains(out, m) {
			t.Errorf("%s: %q is in the context", what, m)
		}
	}
	if strings.Contains(out, "\x00") || strings.Contains(out, `\u0000`) {
		t.Errorf("%s: a NUL byte (the process's environment?) is in the context", what)
	}
	var res botResult
	if err := json.Unmarshal([]byte(out), &res); err == nil {
		for _, part := range res.Parts {
			for _, l := range p.leaks {
				if part.Path == l {
					t.Errorf("%s: %s is a part", what, l)
				}
			}
		}
		out = res.Rendered
	}
	if !strings.Contains(out, "Func5") || !strings.Contains(out, "77") {
		t.Errorf("%s: the pull request's own change (Func5) is not in the context:\n%s", what, out)
	}
}

// ctxlsTimed runs ctxls (this test binary) with env added, failing the
// test when it fails or outlives the deadline (an endless read); it
// returns the standard output and error.
func ctxlsTimed(t *testing.T, stdin string, env []string, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), runAsMain+"=1"), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ctxls %v: %v (deadline: %v)\n%s", args, err, ctx.Err(), stderr.String())
	}
	return string(out), stderr.String()
}

// A pull request's checkout is read by the walk's rules whichever way a
// review job reads it: laid over a stored index (--overlay), indexed
// itself (--root), or through scripts/review-bot.sh. Symbolic links out
// of the checkout (the process's environment, credential files, any
// file), into .git and to /dev/zero, secret names, files over the size
// limit and files the pull request's own ignore files ignore are left
// out — the context shows the pull request's change and none of them,
// and the job ends (nothing read without a bound).
func TestReviewUntrustedPullRequest(t *testing.T) {
	r := newBotRepo(t)
	top := t.TempDir()
	p := newHostilePR(t, r, top)

	t.Run("overlay", func(t *testing.T) {
		url := pgtest.Start(t).NewDatabase(t, "review")
		base := filepath.Join(top, "base")
		r.clone(t, base, "main")
		ctxlsTimed(t, "", nil, "index", "--root", base, "--cache-dir", t.TempDir(), "--store", url, "--repo", "bot")
		args := []string{"assemble", "--store", url, "--repo", "bot", "--cache-dir", t.TempDir(), "--diff-file", "-", "--overlay", p.ws, "--budget", "6000", "--json"}
		for _, mode := range []string{"review", "related"} {
			out, stderr := ctxlsTimed(t, p.diff, []string{p.envVar}, append(args, "--mode", mode, "--explain", "--query", "OutsideMarker BigMarker IgnoredMarker API_TOKEN machine password auths")...)
			p.check(t, "--overlay --mode "+mode, out)
			// --explain says what was left out, and why.
			for _, want := range []string{"overlay: lib/environ.go left out: symlink_outside_root -> /proc/", "overlay: lib/zero.go left out: symlink_outside_root", "overlay: lib/gitconfig.go left out: vcs_dir", "overlay: .env left out: secret", "overlay: lib/big.go left out: too_large", "overlay: gen/ignored.go left out: ignored"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("--overlay --explain: no %q on stderr:\n%s", want, stderr)
				}
			}
		}
	})

	t.Run("root", func(t *testing.T) {
		out, _ := ctxlsTimed(t, "", []string{p.envVar}, "assemble", "--root", p.ws, "--cache-dir", t.TempDir(), "--diff", "main...HEAD", "--mode", "review", "--budget", "6000", "--json")
		p.check(t, "--root", out)
	})

	t.Run("script", func(t *testing.T) {
		script, err := filepath.Abs(botScript)
		if err != nil {
			t.Fatal(err)
		}
		bin := ctxlsOnPath(t)
		dir := t.TempDir()
		ghOutput := filepath.Join(dir, "github_output")
		env := []string{
			"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), p.envVar,
			"GITHUB_OUTPUT=" + ghOutput, "GITHUB_STEP_SUMMARY=" + filepath.Join(dir, "summary"), "GITHUB_ACTIONS=",
			"RUNNER_OS=Linux", "CTXLS_ROOT=" + p.ws, "CTXLS_BASE_REF=main", "CTXLS_BUDGET=6000",
			"CTXLS_INDEX_DIR=" + filepath.Join(dir, "index"), "CTXLS_OUT_DIR=" + filepath.Join(dir, "out"),
		}
		run(t, p.ws, env, "bash", script, "run")
		o := readOutputs(t, ghOutput)
		res, err := os.ReadFile(o["result-file"])
		if err != nil {
			t.Fatal(err)
		}
		p.check(t, "review-bot.sh", string(res))
	})
}

// The review bot's own files — the context, the result, the diff, the
// index statistics — are never context, whatever the pull request's
// ignore files say: here its .ctxlsignore re-includes everything ("!*"),
// the output directory is inside the checkout (as GitLab wants it: a
// directory, one whose name holds glob characters, the checkout itself)
// and the second run meets the first one's files there.
func TestReviewBotOutputIsNeverContext(t *testing.T) {
	r := newBotRepo(t)
	script, err := filepath.Abs(botScript)
	if err != nil {
		t.Fatal(err)
	}
	bin := ctxlsOnPath(t)
	for _, outRel := range []string{"ctxls-out", "out [1]{*}", ""} {
		t.Run("out="+outRel, func(t *testing.T) {
			top := t.TempDir()
			ws := filepath.Join(top, "ws")
			r.clone(t, ws, "feature")
			writeFiles(t, ws, map[string]string{".ctxlsignore": "!*\n"})
			gitCmd(t, ws, "add", "-A")
			gitCmd(t, ws, "commit", "-qm", "re-include everything")
			ghOutput := filepath.Join(top, "github_output")
			env := []string{
				"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
				"GITHUB_OUTPUT=" + ghOutput, "GITHUB_STEP_SUMMARY=" + filepath.Join(top, "summary"), "GITHUB_ACTIONS=",
				"RUNNER_OS=Linux", "CTXLS_ROOT=" + ws, "CTXLS_BASE_REF=main", "CTXLS_BUDGET=8000", "CTXLS_MODE=related",
				"CTXLS_QUERY=Func5 scales x review context result diff rendered parts",
				"CTXLS_INDEX_DIR=" + filepath.Join(ws, ".ctxls-index"), "CTXLS_OUT_DIR=" + filepath.Join(ws, outRel),
			}
			own := func(p string) bool {
				if outRel == "" {
					return slices.Contains([]string{"context.md", "result.json", "diff.patch", "index.json", "query.txt"}, p)
				}
				return strings.HasPrefix(p, outRel+"/")
			}
			for i := range 2 {
				os.Remove(ghOutput)
				run(t, ws, env, "bash", script, "run")
				o := readOutputs(t, ghOutput)
				var res botResult
				readJSON(t, o["result-file"], &res)
				if !strings.Contains(res.Rendered, "Func5") {
					t.Errorf("run %d: the pull request's change is not in the context", i+1)
				}
				for _, p := range res.Parts {
					if own(p.Path) {
						t.Errorf("run %d: the bot's own file %s is a part", i+1, p.Path)
					}
				}
				for _, p := range res.Omitted {
					if own(p.Path) {
						t.Errorf("run %d: the bot's own file %s is a candidate", i+1, p.Path)
					}
				}
			}
		})
	}
}

// A pull request whose diff is over the 16 MiB ctxls reads (here a data
// file of 17 MiB beside a change to lib/f5.go) still gets its context:
// the one of the diff without the changes of its largest files, said in
// the outputs and the summary; diff.patch stays the whole diff.
func TestReviewBotLargeDiff(t *testing.T) {
	r := newBotRepo(t)
	script, err := filepath.Abs(botScript)
	if err != nil {
		t.Fatal(err)
	}
	bin := ctxlsOnPath(t)
	top := t.TempDir()
	ws := filepath.Join(top, "ws")
	r.clone(t, ws, "feature")
	row := "row 0123456789 abcdefghijklmnopqrstuvwxyz\n"
	writeFiles(t, ws, map[string]string{"data/dump.txt": strings.Repeat(row, 17<<20/len(row)+1)})
	gitCmd(t, ws, "add", "-A")
	gitCmd(t, ws, "commit", "-qm", "a data dump")
	ghOutput := filepath.Join(top, "github_output")
	summary := filepath.Join(top, "summary")
	out := filepath.Join(top, "out")
	env := []string{
		"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"GITHUB_OUTPUT=" + ghOutput, "GITHUB_STEP_SUMMARY=" + summary, "GITHUB_ACTIONS=",
		"RUNNER_OS=Linux", "CTXLS_ROOT=" + ws, "CTXLS_BASE_REF=main", "CTXLS_BUDGET=4000",
		"CTXLS_INDEX_DIR=" + filepath.Join(top, "index"), "CTXLS_OUT_DIR=" + out,
	}
	run(t, ws, env, "bash", script, "run")
	o := readOutputs(t, ghOutput)
	full, err := os.ReadFile(o["diff-file"])
	if err != nil {
		t.Fatal(err)
	}
	reduced, err := os.ReadFile(o["context-diff-file"])
	if err != nil {
		t.Fatal(err)
	}
	if len(full) <= 16<<20 || !strings.Contains(string(full), "+++ b/data/dump.txt") {
		t.Errorf("diff-file is %d bytes, want the whole diff (over 16 MiB, with data/dump.txt)", len(full))
	}
	if o["context-diff-file"] != filepath.Join(out, "diff.reduced.patch") || o["diff-left-out"] != "1" ||
		strings.Contains(string(reduced), "dump.txt") || !strings.Contains(string(reduced), "+++ b/lib/f5.go") {
		t.Errorf("outputs %v; the reduced diff (%d bytes) should hold lib/f5.go's change only:\n%.2000s", o, len(reduced), reduced)
	}
	var res botResult
	readJSON(t, o["result-file"], &res)
	if !strings.Contains(res.Rendered, "Func5") || res.Stats.TotalTokens == 0 {
		t.Errorf("the context does not show the pull request's change to lib/f5.go: %+v", res.Stats)
	}
	if s, err := os.ReadFile(summary); err != nil || !strings.Contains(string(s), "over the 16 MiB ctxls reads") {
		t.Errorf("the step summary does not say the diff was reduced (%v):\n%s", err, s)
	}
	// The same reduction, for a job of its own (the store's --overlay).
	again := filepath.Join(top, "again.patch")
	if n := strings.TrimSpace(run(t, ws, env, "bash", script, "reduce-diff", o["diff-file"], again)); n != "1" {
		t.Errorf("reduce-diff left out %s files, want 1", n)
	}
	if b, err := os.ReadFile(again); err != nil || string(b) != string(reduced) {
		t.Errorf("reduce-diff wrote another diff than run (%v)", err)
	}
}
