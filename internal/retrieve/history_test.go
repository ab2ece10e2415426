package retrieve

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/history"
	"github.com/ctxls/ctxls/internal/history/historytest"
	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/tokens"
)

func assembleWith(t *testing.T, snap *index.Snapshot, req Request) (*Response, map[string]bool) {
	t.Helper()
	return assembleOpts(t, snap, DefaultOptions(), req)
}

func assembleOpts(t *testing.T, snap *index.Snapshot, opts Options, req Request) (*Response, map[string]bool) {
	t.Helper()
	req.Explain = true
	res, err := NewEngineWith(tokens.NewRegistry(), opts).Assemble(context.Background(), snap, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.TotalTokens > req.Budget.MaxTokens {
		t.Fatalf("over budget: %d > %d", res.Stats.TotalTokens, req.Budget.MaxTokens)
	}
	shown := map[string]bool{}
	for _, p := range res.Parts {
		shown[p.Path] = true
	}
	return res, shown
}

// firstPath is the path of the first part of the context opts assemble
// for req.
func firstPath(t *testing.T, snap *index.Snapshot, opts Options, req Request) string {
	t.Helper()
	res, _ := assembleOpts(t, snap, opts, req)
	if len(res.Parts) == 0 {
		t.Fatal("no parts")
	}
	return res.Parts[0].Path
}

// byHistory reports whether --explain names the history channel for a
// candidate of path.
func byHistory(res *Response, path string) bool {
	for _, e := range res.Explain {
		if e.Path == path && e.Channels[ChanHistory] > 0 {
			return true
		}
	}
	return false
}

// TestHistoryCoChange: the file that changed with the diff's file in past
// commits is in the context with the history, named by the history
// channel in --explain, and not without it (nor with the channel off).
func TestHistoryCoChange(t *testing.T) {
	snap := indexFiles(t, historytest.Files())
	log := history.New("head", [][]string{
		{"svc/serve03.go"},
		{"svc/handler.go", "books/ledger.go"},
		{"svc/handler.go", "books/ledger.go"},
	}, history.Options{})
	req := Request{Diff: historytest.Diff, Budget: assemble.Budget{MaxTokens: 1000}}
	if _, shown := assembleWith(t, snap, req); shown["books/ledger.go"] {
		t.Fatal("the ledger is shown without history: the test shows nothing")
	}
	req.History = log
	res, shown := assembleWith(t, snap, req)
	if !shown["books/ledger.go"] {
		t.Errorf("with history the ledger (changed twice with the handler) is not shown:\n%s", res.Rendered)
	}
	if !byHistory(res, "books/ledger.go") {
		t.Errorf("--explain does not name the history channel for the ledger: %+v", res.Explain)
	}
	req.Weights = map[string]float64{ChanHistory: 0}
	if _, shown := assembleWith(t, snap, req); shown["books/ledger.go"] {
		t.Error("with the history channel's weight 0 the ledger is still shown")
	}
	// The ledger is out of an include that leaves it out.
	req.Weights = nil
	req.Exclude = []string{"books/ledger.go"}
	if _, shown := assembleWith(t, snap, req); shown["books/ledger.go"] {
		t.Error("the history channel brought an excluded file")
	}
}

// TestHistoryPrior: two files answer a question equally; the one that
// changed lately comes first with the history, the other (by path) without.
func TestHistoryPrior(t *testing.T) {
	body := "package svc\n\n// Refund returns the payment of an order.\nfunc Refund%s(order int) int {\n\treturn order\n}\n"
	snap := indexFiles(t, map[string]string{
		"go.mod":        "module example.com/m\n",
		"svc/alpha.go":  fmt.Sprintf(body, "A"),
		"svc/bravo.go":  fmt.Sprintf(body, "B"),
		"svc/other.go":  "package svc\n\nfunc other() {}\n",
		"svc/other2.go": "package svc\n\nfunc other2() {}\n",
	})
	req := Request{Query: "refund the payment of an order", Budget: assemble.Budget{MaxTokens: 2000}, Strategy: assemble.ByScore}
	res, _ := assembleWith(t, snap, req)
	if len(res.Parts) == 0 || res.Parts[0].Path != "svc/alpha.go" {
		t.Fatalf("without history the first part is %v, want svc/alpha.go (ties by path)", res.Parts)
	}
	req.History = history.New("head", [][]string{{"svc/bravo.go", "svc/other.go"}, {"svc/bravo.go"}, {"svc/other2.go"}}, history.Options{})
	res, _ = assembleWith(t, snap, req)
	if res.Parts[0].Path != "svc/bravo.go" {
		t.Errorf("with history the first part is %s, want svc/bravo.go (changed lately)", res.Parts[0].Path)
	}
}

// TestHistorySeededByQuery: a question without a diff seeds the history
// channel with its best files: the file that always changed with the best
// one is a candidate, named by the history channel.
func TestHistorySeededByQuery(t *testing.T) {
	snap := indexFiles(t, historytest.Files())
	req := Request{Query: "where is Dispatch", Budget: assemble.Budget{MaxTokens: 4000},
		History: history.New("head", [][]string{{"svc/handler.go", "books/ledger.go"}, {"svc/handler.go", "books/ledger.go"}}, history.Options{})}
	named := func(opts Options) bool {
		res, _ := assembleOpts(t, snap, opts, req)
		return byHistory(res, "books/ledger.go")
	}
	on := DefaultOptions()
	on.HistoryPrior = 0 // the seeded channel alone
	if !named(on) {
		t.Error("the ledger is not a history candidate of a question about Dispatch")
	}
	off := on
	off.CoChangeSeeds = 0
	if named(off) {
		t.Error("the ledger is a history candidate with CoChangeSeeds 0: the test shows nothing")
	}
}

// TestHistorySeededByDiff: with CoChangeSeedDiff (off by default) a diff
// seeds the history channel with its best files too: the file that changed
// with one of them, never with the diff's own file, is a history candidate.
func TestHistorySeededByDiff(t *testing.T) {
	snap := indexFiles(t, historytest.Files())
	req := Request{Diff: historytest.Diff, Budget: assemble.Budget{MaxTokens: 4000}}
	res, _ := assembleWith(t, snap, req)
	var best []string // the diff's best files, but its own
	for _, p := range res.Parts {
		if p.Path != "svc/handler.go" && !slices.Contains(best, p.Path) {
			best = append(best, p.Path)
		}
	}
	if len(best) == 0 {
		t.Fatal("the diff brings no other file")
	}
	req.History = history.New("head", [][]string{{best[0], "books/ledger.go"}, {best[0], "books/ledger.go"}}, history.Options{})
	named := func(opts Options) bool {
		res, _ := assembleOpts(t, snap, opts, req)
		return byHistory(res, "books/ledger.go")
	}
	on := DefaultOptions()
	on.HistoryPrior = 0 // the seeded channel alone
	on.CoChangeSeedDiff = true
	if !named(on) {
		t.Errorf("the ledger, changed twice with %s, is not a history candidate of the diff", best[0])
	}
	off := on
	off.CoChangeSeedDiff = false
	if named(off) {
		t.Error("the ledger is a history candidate without CoChangeSeedDiff (the default): the test shows nothing")
	}
}

// TestHistoryMessages: of two files a question matches alike, the one
// that past commits described in the question's words changed comes
// first, though the other changed later; not with MessageCommits 0, and
// --explain gives the file model's message feature.
func TestHistoryMessages(t *testing.T) {
	body := "package svc\n\n// Refund returns the payment of an order.\nfunc Refund%s(order int) int {\n\treturn order\n}\n"
	snap := indexFiles(t, map[string]string{
		"go.mod":       "module example.com/m\n",
		"svc/alpha.go": fmt.Sprintf(body, "A"),
		"svc/bravo.go": fmt.Sprintf(body, "B"),
		"svc/other.go": "package svc\n\nfunc other() {}\n",
	})
	req := Request{Query: "refund the payment of an order twice", Budget: assemble.Budget{MaxTokens: 2000}, Strategy: assemble.ByScore,
		History: history.FromCommits("head", []history.Commit{
			{Message: "Tidy imports", Files: []string{"svc/alpha.go"}},
			{Message: "Do not refund an order twice", Files: []string{"svc/bravo.go"}},
			{Message: "Add other", Files: []string{"svc/other.go"}},
		}, history.Options{})}
	off := DefaultOptions()
	off.MessageCommits = 0
	if got := firstPath(t, snap, off, req); got != "svc/alpha.go" {
		t.Fatalf("without the messages the first part is %s, want svc/alpha.go (changed last)", got)
	}
	res, _ := assembleWith(t, snap, req)
	if res.Parts[0].Path != "svc/bravo.go" {
		t.Errorf("with the messages the first part is %s, want svc/bravo.go (its commit: \"Do not refund an order twice\")", res.Parts[0].Path)
	}
	feature := map[string]float64{}
	for _, e := range res.Explain {
		if e.FileFeatures != nil {
			feature[e.Path] = e.FileFeatures["message"]
		}
	}
	if feature["svc/bravo.go"] != 1 || feature["svc/alpha.go"] != 0 {
		t.Errorf("--explain's message feature: %v, want bravo 1, alpha 0", feature)
	}
}

// TestMessageFiles: with room, a file that only a past commit's message
// points at (no word of the question in it) joins the candidates through
// the history channel, by its first definition; under MessageFilesFrom,
// or with the option off, it does not.
func TestMessageFiles(t *testing.T) {
	snap := indexFiles(t, map[string]string{
		"go.mod":            "module example.com/m\n",
		"svc/refund.go":     "package svc\n\n// Refund returns the payment of an order.\nfunc Refund(order int) int {\n\treturn order\n}\n",
		"billing/ledger.go": "package billing\n\n// Post books an entry.\nfunc Post(entry int) int {\n\treturn entry\n}\n",
		"billing/other.go":  "package billing\n\nfunc other() {}\n",
	})
	hist := history.FromCommits("head", []history.Commit{
		{Message: "Add other", Files: []string{"billing/other.go"}},
		{Message: "Do not refund an order twice", Files: []string{"billing/ledger.go"}},
		{Message: "Tidy imports", Files: []string{"svc/refund.go"}},
	}, history.Options{})
	req := func(budget int) Request {
		return Request{Query: "refund the payment of an order twice", Budget: assemble.Budget{MaxTokens: budget},
			Strategy: assemble.ByScore, History: hist}
	}
	on := DefaultOptions()
	if on.MessageFiles <= 0 || on.MessageFilesFrom <= 0 {
		t.Fatalf("defaults: MessageFiles %d, MessageFilesFrom %d", on.MessageFiles, on.MessageFilesFrom)
	}
	res, shown := assembleOpts(t, snap, on, req(on.MessageFilesFrom))
	if !shown["billing/ledger.go"] || !byHistory(res, "billing/ledger.go") {
		t.Errorf("with room: billing/ledger.go shown %v, by the history channel %v; want both (its commit: \"Do not refund an order twice\")",
			shown["billing/ledger.go"], byHistory(res, "billing/ledger.go"))
	}
	if shown["billing/other.go"] {
		t.Error("billing/other.go shown: its commit's message shares no word with the question")
	}
	off := on
	off.MessageFiles = 0
	for _, c := range []struct {
		name   string
		o      Options
		budget int
	}{{"under MessageFilesFrom", on, on.MessageFilesFrom - 1}, {"MessageFiles 0", off, on.MessageFilesFrom}} {
		res, shown := assembleOpts(t, snap, c.o, req(c.budget))
		if shown["billing/ledger.go"] || byHistory(res, "billing/ledger.go") {
			t.Errorf("%s: billing/ledger.go shown %v, by the history channel %v; want neither", c.name, shown["billing/ledger.go"], byHistory(res, "billing/ledger.go"))
		}
	}
}
