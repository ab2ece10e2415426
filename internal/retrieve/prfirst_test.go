package retrieve

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestReviewOwnChangesFirst: under review, a pull request of ten files
// (five functions and their five tests) shows its own changed units,
// the tests' too, before the framework helpers only the tests' changed
// lines call: those come after, in what the budget leaves.
func TestReviewOwnChangesFirst(t *testing.T) {
	files := map[string]string{"go.mod": "module example.com/pr\n\ngo 1.22\n"}
	var helpers strings.Builder
	helpers.WriteString("package check\n\nimport \"testing\"\n")
	var diff strings.Builder
	var changed []string
	for _, n := range []string{"Alpha", "Bravo", "Charlie", "Delta", "Echo"} {
		// A long helper per test: asserting, with a report of the values.
		fmt.Fprintf(&helpers, "\n// Same%s fails t when got and want differ.\nfunc Same%s(t testing.TB, got, want int) {\n\tt.Helper()\n", n, n)
		for i := range 12 {
			fmt.Fprintf(&helpers, "\tif got-want == %d {\n\t\tt.Errorf(\"%s: got %%d, want %%d (off by %d)\", got, want)\n\t}\n", i+1, n, i+1)
		}
		helpers.WriteString("}\n")

		low := strings.ToLower(n)
		code := fmt.Sprintf("package pr\n\n// %s computes one step.\nfunc %s(x int) int {\n\treturn x + 1\n}\n", n, n)
		test := fmt.Sprintf("package pr\n\nimport (\n\t\"testing\"\n\n\t\"example.com/pr/check\"\n)\n\nfunc Test%s(t *testing.T) {\n\tcheck.Same%s(t, %s(1), 2)\n\tcheck.Same%s(t, %s(2), 3)\n}\n", n, n, n, n, n)
		files[low+".go"], files[low+"_test.go"] = code, test
		changed = append(changed, low+".go", low+"_test.go")
		fmt.Fprintf(&diff, "diff --git a/%s.go b/%s.go\n--- a/%s.go\n+++ b/%s.go\n@@ -3,4 +3,4 @@ package pr\n // %s computes one step.\n func %s(x int) int {\n-\treturn x\n+\treturn x + 1\n }\n", low, low, low, low, n, n)
		fmt.Fprintf(&diff, "diff --git a/%s_test.go b/%s_test.go\n--- a/%s_test.go\n+++ b/%s_test.go\n@@ -9,4 +9,5 @@ import (\n func Test%s(t *testing.T) {\n \tcheck.Same%s(t, %s(1), 2)\n+\tcheck.Same%s(t, %s(2), 3)\n }\n", low, low, low, low, n, n, n, n, n)
	}
	files["check/check.go"] = helpers.String()
	paths := reviewPaths(t, files, diff.String(), 600)
	for _, p := range changed {
		if !slices.Contains(paths, p) {
			t.Errorf("%s, changed by the pull request, is not shown (parts %v)", p, paths)
		}
	}
	if !slices.Contains(paths, "check/check.go") {
		t.Errorf("the helpers the tests call are not shown after the changed units (parts %v)", paths)
	}
}
