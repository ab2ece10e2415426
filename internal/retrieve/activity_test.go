package retrieve

import (
	"fmt"
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
)

// activityFiles: twenty files about orders, none about the question, and
// one the user is editing.
func activityFiles() map[string]string {
	files := map[string]string{}
	for i := range 20 {
		files[fmt.Sprintf("orders/o%02d.go", i)] = fmt.Sprintf("package orders\n\n// Total%d adds the order lines.\nfunc Total%d(lines []int) int {\n\tn := 0\n\tfor _, l := range lines {\n\t\tn += l\n\t}\n\treturn n\n}\n", i, i)
	}
	files["billing/invoice.go"] = "package billing\n\nfunc header() string {\n\treturn \"invoice\"\n}\n\nfunc footer() string {\n\treturn \"thanks\"\n}\n"
	return files
}

// TestActivity: the chunk of an edited range comes as an activity
// candidate; an open buffer's file is raised; without activity neither.
func TestActivity(t *testing.T) {
	snap := indexFiles(t, activityFiles())
	req := Request{Query: "order lines total", Budget: assemble.Budget{MaxTokens: 600}}
	_, plain := assembleWith(t, snap, req)
	if plain["billing/invoice.go"] {
		t.Fatal("billing/invoice.go shown without activity: the test says nothing")
	}
	act := req
	act.Activity = &Activity{Open: []string{"billing/invoice.go"}, Edits: []Edit{{Path: "billing/invoice.go", Start: 8, End: 8}}}
	resp, shown := assembleWith(t, snap, act)
	if !shown["billing/invoice.go"] {
		t.Errorf("the edited billing/invoice.go is not shown: %v", shown)
	}
	found := false
	for _, e := range resp.Explain {
		if e.Path == "billing/invoice.go" && e.Symbol == "billing.footer" && e.Channels[ChanActivity] > 0 {
			found = true
		}
	}
	if !found {
		t.Errorf("footer (the edited line 8) is not an activity candidate: %+v", resp.Explain)
	}
	off := act
	off.Weights = map[string]float64{ChanActivity: 0}
	if _, shown := assembleWith(t, snap, off); shown["billing/invoice.go"] {
		t.Error("activity weight 0: billing/invoice.go still shown")
	}
}

// TestConversation: an earlier turn's words find what the question alone
// does not name.
func TestConversation(t *testing.T) {
	snap := indexFiles(t, activityFiles())
	req := Request{Query: "and where is it printed", Budget: assemble.Budget{MaxTokens: 400}}
	_, plain := assembleWith(t, snap, req)
	conv := req
	conv.Conversation = []string{"how is the invoice footer built"}
	resp, shown := assembleWith(t, snap, conv)
	if !shown["billing/invoice.go"] || plain["billing/invoice.go"] {
		t.Errorf("billing/invoice.go: shown %v with the earlier turn, %v without", shown["billing/invoice.go"], plain["billing/invoice.go"])
	}
	by := false
	for _, e := range resp.Explain {
		by = by || e.Channels[ChanConversation] > 0
	}
	if !by {
		t.Error("no candidate from the conversation channel")
	}
}

// TestActivitySkipsDiffFiles: a request with a diff takes no activity
// from the diff's own files (the diff says more about them).
func TestActivitySkipsDiffFiles(t *testing.T) {
	snap := indexFiles(t, activityFiles())
	diff := "--- a/billing/invoice.go\n+++ b/billing/invoice.go\n@@ -8,1 +8,1 @@\n-\treturn \"thanks\"\n+\treturn \"thank you\"\n"
	req := Request{Diff: diff, Budget: assemble.Budget{MaxTokens: 2000},
		Activity: &Activity{Open: []string{"billing/invoice.go"}, Edits: []Edit{{Path: "billing/invoice.go", Start: 8, End: 8}}}}
	resp, _ := assembleWith(t, snap, req)
	for _, e := range resp.Explain {
		if e.Channels[ChanActivity] > 0 {
			t.Errorf("%s came from the activity of the diff's own file", e.Handle)
		}
	}
}
