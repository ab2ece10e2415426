package retrieve

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/ranges"
	"github.com/ctxls/ctxls/internal/tokens"
)

// TestRelatedReach: in the related mode, from Options.RelatedReachFrom
// tokens, what the change reaches is shaped as under review — a long
// caller shows its declaration and its call of the changed function, not
// its 120 other lines — and --explain says why it is there.
func TestRelatedReach(t *testing.T) {
	var body strings.Builder
	for i := range 120 {
		fmt.Fprintf(&body, "\tx += %d // step %d of the long computation, which adds each weight to the running total\n", i, i)
	}
	files := map[string]string{
		"go.mod":   "module example.com/p\n\ngo 1.22\n",
		"norm.go":  "package p\n\n// Normalize normalizes.\nfunc Normalize(n int) int {\n\treturn n\n}\n",
		"long.go":  "package p\n\n// Long calls Normalize deep inside.\nfunc Long() int {\n\tx := 0\n" + body.String() + "\treturn Normalize(x)\n}\n",
		"other.go": "package p\n\n// Other is unrelated.\nfunc Other() int { return 2 }\n",
	}
	diff := "diff --git a/norm.go b/norm.go\n--- a/norm.go\n+++ b/norm.go\n@@ -3,4 +3,4 @@ package p\n // Normalize normalizes.\n func Normalize(n int) int {\n-\treturn n\n+\treturn n + 0\n }\n"
	snap := indexFiles(t, files)
	budget := max(8000, DefaultOptions().RelatedReachFrom)
	resp, err := NewEngine(tokens.NewRegistry()).Assemble(context.Background(), snap, Request{Diff: diff, Explain: true, Budget: assemble.Budget{MaxTokens: budget}})
	if err != nil {
		t.Fatal(err)
	}
	var long *assemble.Part
	for i, p := range resp.Parts {
		if p.Path == "long.go" {
			long = &resp.Parts[i]
		}
	}
	if long == nil || !ranges.ContainsLine(long.Ranges, 4) || !ranges.ContainsLine(long.Ranges, 126) || ranges.Total(long.Ranges) > 20 {
		t.Fatalf("long.go is not shown at its declaration (line 4) and its call of Normalize (line 126) alone: %+v", long)
	}
	if !slices.ContainsFunc(resp.Explain, func(x Explanation) bool {
		return x.Part == long.ID && slices.ContainsFunc(x.Priors, func(p string) bool { return strings.HasPrefix(p, "reached by the change (calls Normalize") })
	}) {
		t.Errorf("the caller's explanation does not say the change reaches it: %+v", resp.Explain)
	}
}
