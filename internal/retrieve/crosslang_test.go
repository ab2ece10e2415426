package retrieve

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/tokens"
)

// TestReviewNoCrossLanguageNames: a name in a changed line of YAML, TOML,
// JSON or Markdown reaches no code by name alone — a workflow's run: key
// is not a Python method run, its version: and setup: not the docs'
// configuration script's functions — while the same names written in
// Python reach them.
func TestReviewNoCrossLanguageNames(t *testing.T) {
	files := map[string]string{
		".github/workflows/ci.yml": "name: ci\non: push\njobs:\n  test:\n    steps:\n      - name: setup\n        uses: actions/setup-python@v5\n        with:\n          version: '3.12'\n      - run: make test\n",
		"pyproject.toml":           "[project]\nname = \"tool\"\nversion = \"1.0\"\n",
		"README.md":                "# tool\n\nCall `setup` and then `run`.\n",
		"tool/runner.py":           "class Runner:\n    def run(self, cmd):\n        return cmd\n\n    def setup(self):\n        return None\n",
		"docs/conf.py":             "def version():\n    return '1.0'\n\n\ndef setup(app):\n    return app\n",
		"tool/main.py":             "from tool.runner import Runner\n\n\ndef main():\n    r = Runner()\n    r.setup()\n    return r.run('x')\n",
	}
	diffs := map[string]string{
		"yaml":     "diff --git a/.github/workflows/ci.yml b/.github/workflows/ci.yml\n--- a/.github/workflows/ci.yml\n+++ b/.github/workflows/ci.yml\n@@ -8,3 +8,3 @@ jobs:\n         with:\n-          version: '3.11'\n+          version: '3.12'\n-      - run: make check\n+      - run: make test\n",
		"toml":     "diff --git a/pyproject.toml b/pyproject.toml\n--- a/pyproject.toml\n+++ b/pyproject.toml\n@@ -2,2 +2,2 @@\n name = \"tool\"\n-version = \"0.9\"\n+version = \"1.0\"\n",
		"markdown": "diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1,3 +1,3 @@\n # tool\n \n-Call `run`.\n+Call `setup` and then `run`.\n",
	}
	for _, lang := range []string{"markdown", "toml", "yaml"} {
		paths := reviewPaths(t, files, diffs[lang], 4000)
		for _, p := range []string{"tool/runner.py", "docs/conf.py"} {
			if slices.Contains(paths, p) {
				t.Errorf("%s: the review of a %s change shows %s, reached by a name alone: %q", lang, lang, p, paths)
			}
		}
	}
	// Python's own rules still link r.run( to Runner.run.
	py := "diff --git a/tool/main.py b/tool/main.py\n--- a/tool/main.py\n+++ b/tool/main.py\n@@ -5,3 +5,3 @@ def main():\n     r = Runner()\n     r.setup()\n-    return r.run('y')\n+    return r.run('x')\n"
	resp, err := NewEngine(tokens.NewRegistry()).Assemble(context.Background(), indexFiles(t, files), Request{Diff: py, Mode: ModeReview, Budget: assemble.Budget{MaxTokens: 4000}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(resp.Parts, func(p assemble.Part) bool { return p.Path == "tool/runner.py" }) {
		t.Errorf("a Python change calling r.run( does not reach Runner.run: %+v", resp.Parts)
	}
}

// TestReviewRemovedUnits: under review the units a diff removes — two
// deleted tests of a file that stays, a deleted file's function — appear
// as removed, by file; a function whose body moved within the diff does
// not.
func TestReviewRemovedUnits(t *testing.T) {
	files := map[string]string{
		"go.mod":    "module example.com/p\n\ngo 1.22\n",
		"a.go":      "package p\n\n// Keep stays.\nfunc Keep() int {\n\treturn 2\n}\n",
		"a_test.go": "package p\n\nimport \"testing\"\n\nfunc TestKeep(t *testing.T) {\n\tif Keep() != 2 {\n\t\tt.Fatal(\"keep\")\n\t}\n}\n",
	}
	diff := "diff --git a/a_test.go b/a_test.go\n--- a/a_test.go\n+++ b/a_test.go\n@@ -9,11 +9,1 @@ func TestKeep(t *testing.T) {\n }\n-\n-func TestOld(t *testing.T) {\n-\tt.Skip()\n-}\n-\n-func TestGone(t *testing.T) {\n-\tt.Skip()\n-}\n" +
		"diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -3,4 +3,4 @@ package p\n // Keep stays.\n-func Keep() int {\n-\treturn 1\n+func Keep() int {\n+\treturn 2\n }\n" +
		"diff --git a/gone.go b/gone.go\ndeleted file mode 100644\n--- a/gone.go\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-package p\n-\n-func helper() {}\n"
	resp, err := NewEngine(tokens.NewRegistry()).Assemble(context.Background(), indexFiles(t, files), Request{Diff: diff, Mode: ModeReview, Budget: assemble.Budget{MaxTokens: 2000}})
	if err != nil {
		t.Fatal(err)
	}
	want := "removed by the change: a_test.go: TestOld, TestGone; gone.go: helper"
	if !strings.Contains(resp.Stats.Note, want) || strings.Contains(resp.Stats.Note, "Keep") {
		t.Errorf("note = %q, want it to hold %q and not Keep", resp.Stats.Note, want)
	}
}
