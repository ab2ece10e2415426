package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/history"
	"github.com/ctxls/ctxls/internal/retrieve"
)

// gitIn runs git in dir with a fixed identity and returns its output.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=t@t", "-c", "user.name=t", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("git %v: %v\n%s", args, err, msg)
	}
	return string(out)
}

// editFile replaces old by new in one file of the workspace.
func editFile(t *testing.T, ws, path, old, new string) {
	t.Helper()
	p := filepath.Join(ws, filepath.FromSlash(path))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// forkedRepo makes the shop workspace a git repository with a base
// branch, main, and a pull-request branch, feature, checked out: feature
// changes tax.Compute; after the fork main changes total_revenue in
// scripts/report.py, a file feature leaves alone.
func forkedRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ws := workspace(t)
	gitIn(t, ws, "init", "-q")
	gitIn(t, ws, "add", "-A")
	gitIn(t, ws, "commit", "-qm", "shop")
	gitIn(t, ws, "checkout", "-qb", "feature")
	editFile(t, ws, "tax/rates.go", "(cents*bp + 5000) / 10000", "(cents*bp + 4999) / 10000")
	gitIn(t, ws, "commit", "-qam", "round half down")
	gitIn(t, ws, "checkout", "-q", "main")
	editFile(t, ws, "scripts/report.py", `sum(c["total"] for c in carts)`, `sum(c.get("total", 0) for c in carts)`)
	gitIn(t, ws, "commit", "-qam", "carts without a total")
	gitIn(t, ws, "checkout", "-q", "feature")
	return ws
}

// diffTouched lists the paths of the parts and candidates the diff
// channel brought, from an --explain result.
func diffTouched(r *retrieve.Response) map[string]bool {
	out := map[string]bool{}
	for _, e := range r.Explain {
		if e.Channels[retrieve.ChanDiff] > 0 {
			out[e.Path] = true
		}
	}
	return out
}

// TestAssembleDiffRanges: --diff BASE...HEAD is the pull request's own
// change (against the merge base: main's commits after the fork are not
// in it), --diff BASE..HEAD compares the two tips (main's change shows,
// reverted), and both are exactly what git prints for them, as
// --diff-file - shows.
func TestAssembleDiffRanges(t *testing.T) {
	ws := forkedRepo(t)
	cache := t.TempDir()
	run := func(stdin string, args ...string) (string, *retrieve.Response) {
		t.Helper()
		base := []string{"assemble", "--root", ws, "--cache-dir", cache, "--budget", "3000", "--json", "--explain"}
		out, stderr, code := ctxls(t, stdin, append(base, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var r retrieve.Response
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return out, &r
	}

	_, three := run("", "--diff", "main...feature")
	if got := diffTouched(three); !got["tax/rates.go"] || got["scripts/report.py"] {
		t.Errorf("main...feature: the diff channel touched %v; want tax/rates.go and not scripts/report.py (main's change after the fork)", got)
	}
	if !has(three, "cart/cart.go", "Checkout") {
		t.Errorf("main...feature: the caller of tax.Compute is missing: %v", paths(three))
	}
	_, two := run("", "--diff", "main..feature")
	if got := diffTouched(two); !got["tax/rates.go"] || !got["scripts/report.py"] {
		t.Errorf("main..feature: the diff channel touched %v; want tax/rates.go and scripts/report.py", got)
	}
	// An empty end is HEAD, as in git.
	_, headEnd := run("", "--diff", "main...")
	if headEnd.Rendered != three.Rendered {
		t.Error("main... differs from main...feature with feature checked out")
	}

	// The same diffs given on stdin give the same contexts.
	for _, rev := range []string{"main...feature", "main..feature"} {
		patch := gitIn(t, ws, "diff", rev)
		_, fromFile := run(patch, "--diff-file", "-")
		_, fromRev := run("", "--diff", rev)
		if fromFile.Rendered != fromRev.Rendered {
			t.Errorf("--diff %s and --diff-file - of `git diff %s` give different contexts", rev, rev)
		}
	}
	if three.Rendered == two.Rendered {
		t.Error("main...feature and main..feature give the same context")
	}
}

// TestAssembleDiffSubdirRoot: with --root below the repository's top,
// the diff's paths are relative to the root (as the index's are) and
// changes outside it are left out.
func TestAssembleDiffSubdirRoot(t *testing.T) {
	ws := forkedRepo(t)
	r := assembleJSON(t, "--root", filepath.Join(ws, "tax"), "--cache-dir", t.TempDir(), "--diff", "main..feature", "--explain")
	if got := diffTouched(r); !got["rates.go"] || len(got) != 1 {
		t.Errorf("the diff channel touched %v; want rates.go only", got)
	}
}

func TestAssembleDiffErrors(t *testing.T) {
	ws := forkedRepo(t)
	plain := t.TempDir() // not a git repository
	if err := os.WriteFile(filepath.Join(plain, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A shallow clone of both tips: no merge base.
	shallow := filepath.Join(t.TempDir(), "shallow")
	gitIn(t, ws, "clone", "-q", "--depth", "1", "--branch", "feature", "file://"+ws, shallow)
	gitIn(t, shallow, "fetch", "-q", "--depth", "1", "origin", "main:main")

	cases := []struct {
		name string
		root string
		rev  string
		code int
		msg  string
	}{
		{"unknown tip", ws, "main...nope", 2, `--diff: "main...nope": unknown revision "nope"`},
		{"unknown base", ws, "nope..feature", 2, `unknown revision "nope"`},
		{"unknown single", ws, "v9.9.9", 2, `unknown revision "v9.9.9"`},
		{"option as revision", ws, "--output=/tmp/x", 2, "not a revision"},
		{"option as range end", ws, "main...--output=/tmp/x", 2, "is not a revision"},
		{"not a repository", plain, "HEAD~1", 1, "not a git repository"},
		{"no merge base", shallow, "main...feature", 1, "no merge base"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := ctxls(t, "", "assemble", "--root", c.root, "--cache-dir", t.TempDir(), "--diff", c.rev)
			if code != c.code || !strings.Contains(stderr, c.msg) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, stderr, c.code, c.msg)
			}
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
				t.Fatalf("stack trace in stderr: %s", stderr)
			}
		})
	}
	// The shallow clone's own two-dot range needs no merge base.
	if _, stderr, code := ctxls(t, "", "assemble", "--root", shallow, "--cache-dir", t.TempDir(), "--diff", "main..feature"); code != 0 {
		t.Errorf("main..feature in a shallow clone: exit %d: %s", code, stderr)
	}
}

// TestAssembleGitHistory: in a git checkout, the file that changed with
// the diff's file in past commits is a candidate of the history channel;
// its cache is written beside the index; --git-history=false and a
// history weight of 0 leave it out.
func TestAssembleGitHistory(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is needed (make test installs it): %v", err)
	}
	ws := workspace(t)
	gitIn(t, ws, "init", "-q")
	gitIn(t, ws, "add", "-A")
	gitIn(t, ws, "commit", "-qm", "shop")
	for i := range 3 {
		for _, p := range []string{"tax/rates.go", "scripts/report.py"} {
			f, err := os.OpenFile(filepath.Join(ws, filepath.FromSlash(p)), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("\n")
			f.Close()
		}
		gitIn(t, ws, "commit", "-qam", "rates and report "+string(rune('a'+i)))
	}
	editFile(t, ws, "tax/rates.go", "(cents*bp + 5000) / 10000", "(cents*bp + 4999) / 10000")
	cache := t.TempDir()
	if _, stderr, code := ctxls(t, "", "index", "--root", ws, "--cache-dir", cache); code != 0 {
		t.Fatalf("ctxls index: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(cache, history.CacheFile)); err != nil {
		t.Errorf("ctxls index did not read the history into its cache: %v", err)
	}
	run := func(args ...string) *retrieve.Response {
		t.Helper()
		base := []string{"assemble", "--root", ws, "--cache-dir", cache, "--budget", "3000", "--json", "--explain", "--diff", "HEAD"}
		out, stderr, code := ctxls(t, "", append(base, args...)...)
		if code != 0 || stderr != "" {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var r retrieve.Response
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return &r
	}
	byHistory := func(r *retrieve.Response) bool {
		for _, e := range r.Explain {
			if e.Path == "scripts/report.py" && e.Channels[retrieve.ChanHistory] > 0 {
				return true
			}
		}
		return false
	}
	if r := run(); !byHistory(r) {
		t.Errorf("scripts/report.py, changed three times with tax/rates.go, is not a history candidate: %+v", r.Explain)
	}
	if r := run("--git-history=false"); byHistory(r) {
		t.Error("--git-history=false: scripts/report.py still comes from the history")
	}
	if r := run("--weights", "history=0"); byHistory(r) {
		t.Error("--weights history=0: scripts/report.py still comes from the history")
	}
}
