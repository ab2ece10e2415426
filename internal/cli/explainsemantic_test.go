package cli

import (
	"strings"
	"testing"
)

// TestExplainSemanticUnasked: --explain says why a cursor's or a diff's
// request asks nothing of the vectors, instead of calling them off or
// missing; a question still reports the vectors it used.
func TestExplainSemanticUnasked(t *testing.T) {
	ws := workspace(t)
	cache := t.TempDir()
	diff := "--- a/tax/rates.go\n+++ b/tax/rates.go\n@@ -19,4 +19,4 @@ func RateFor(region string) int64 {\n func Compute(region string, cents int64) int64 {\n \tbp := RateFor(region)\n-\treturn (cents*bp + 5000) / 10000\n+\treturn (cents*bp + 9999) / 10000\n }\n"
	for _, tc := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"", []string{"--focus", "cart/cart.go:12"}, "semantic: not asked (a cursor alone"},
		{diff, []string{"--diff-file", "-"}, "semantic: not asked (a diff's weight"},
		{"", []string{"--query", "tax", "--weights", "semantic=0"}, "semantic: not asked (its weight is 0 by --weights)"},
		{"", []string{"--query", "how is the tax computed"}, "semantic: "},
	} {
		_, stderr, code := ctxls(t, tc.stdin, append([]string{"assemble", "--root", ws, "--cache-dir", cache, "--budget", "800", "--explain"}, tc.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, stderr)
		}
		if !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "semantic: none") {
			t.Errorf("%v: --explain says:\n%s\nwant a line starting %q and no \"semantic: none\"", tc.args, stderr, tc.want)
		}
	}
}
