package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
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
// test when it fails or outlives the deadline (an endless read).
func ctxlsTimed(t *testing.T, stdin string, env []string, args ...string) string {
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
	return string(out)
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
			out := ctxlsTimed(t, p.diff, []string{p.envVar}, append(args, "--mode", mode, "--query", "OutsideMarker BigMarker IgnoredMarker API_TOKEN machine password auths")...)
			p.check(t, "--overlay --mode "+mode, out)
		}
	})

	t.Run("root", func(t *testing.T) {
		out := ctxlsTimed(t, "", []string{p.envVar}, "assemble", "--root", p.ws, "--cache-dir", t.TempDir(), "--diff", "main...HEAD", "--mode", "review", "--budget", "6000", "--json")
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
