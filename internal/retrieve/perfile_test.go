package retrieve

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
)

// TestPerFileShareByRequest: at 8 000 tokens a question may spend up to
// 60 % of the budget in one file (its changed lines are deep in a few
// files), a cursor request only 30 % (the definitions it needs are in
// many).
func TestPerFileShareByRequest(t *testing.T) {
	var big strings.Builder
	big.WriteString("package ledger\n\n")
	for i := range 120 {
		fmt.Fprintf(&big, "// Reconcile%d reconciles ledger batch %d.\nfunc Reconcile%d(entries []int) int {\n\tsum := 0\n", i, i, i)
		for j := range 6 {
			fmt.Fprintf(&big, "\tsum += entries[%d] // reconcile ledger entry\n", j)
		}
		big.WriteString("\treturn sum\n}\n\n")
	}
	files := map[string]string{"go.mod": "module example.com/m\n", "ledger/ledger.go": big.String(),
		"app/main.go": "package main\n\nimport \"example.com/m/ledger\"\n\nfunc main() {\n\tledger.Reconcile1(nil)\n\n}\n"}
	snap := indexFiles(t, files)
	const budget = 8000
	inBig := func(res *Response) int {
		n := 0
		for _, p := range res.Parts {
			if p.Path == "ledger/ledger.go" {
				n += p.Tokens
			}
		}
		return n
	}
	q, _ := assembleWith(t, snap, Request{Query: "reconcile the ledger entries of a batch", Budget: assemble.Budget{MaxTokens: budget}})
	if n := inBig(q); n <= budget*3/10 || n > budget*6/10 {
		t.Errorf("a question spends %d tokens in the ledger, want between 30 %% and 60 %% of %d", n, budget)
	}
	c, _ := assembleWith(t, snap, Request{Focus: &Focus{Path: "app/main.go", Line: 7}, Budget: assemble.Budget{MaxTokens: budget}})
	if n := inBig(c); n == 0 || n > budget*3/10 {
		t.Errorf("a cursor request spends %d tokens in the ledger, want some and at most 30 %% of %d", n, budget)
	}
}
