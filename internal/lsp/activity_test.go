package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/history/historytest"
)

func TestChangedLines(t *testing.T) {
	for _, c := range []struct {
		old, text  string
		start, end int
		ok         bool
	}{
		{"a\nb\nc\n", "a\nb\nc\n", 0, 0, false},
		{"a\nb\nc\n", "a\nB\nc\n", 2, 2, true},
		{"a\nb\nc\n", "a\nb\nx\ny\nc\n", 3, 4, true},
		{"a\nb\nc\n", "a\nc\n", 2, 2, true},       // a deletion: the line where it happened
		{"a\nb\nc\n", "a\nb\nc\nd\n", 4, 4, true}, // appended
		{"", "x\n", 1, 1, true},                   // from empty
		{"a\nb\n", "", 1, 1, true},                // all deleted
		{"a\nb\nc", "a\nb\nc2", 3, 3, true},       // last line without newline
		{"f()\n\tx\n}\n", "f()\n\tx + y\n}\n", 2, 2, true},
	} {
		s, e, ok := changedLines(c.old, c.text)
		if s != c.start || e != c.end || ok != c.ok {
			t.Errorf("changedLines(%q, %q) = %d, %d, %v; want %d, %d, %v", c.old, c.text, s, e, ok, c.start, c.end, c.ok)
		}
	}
}

// TestActivityEdits: typing in one place is one edit; edits elsewhere are
// new ones, most recent first; a request sees them relative to its folder.
func TestActivityEdits(t *testing.T) {
	var a activity
	a.touch("/w/a.go")
	a.edited("/w/a.go", "1\n2\n3\n4\n", "1\n2x\n3\n4\n")
	a.edited("/w/a.go", "1\n2x\n3\n4\n", "1\n2xy\n3\n4\n")   // the same line again
	a.edited("/w/a.go", "1\n2xy\n3\n4\n", "1\n2xy\n3z\n4\n") // next to it
	a.edited("/w/b.go", "p\nq\n", "p\nQ\n")
	a.edited("/x/c.go", "k\n", "K\n") // another folder
	got := a.snapshot(func(abs string) (string, bool) {
		r, ok := strings.CutPrefix(abs, "/w/")
		return r, ok
	})
	if fmt.Sprint(got.Edits) != "[{b.go 2 2} {a.go 2 3}]" || fmt.Sprint(got.Open) != "[b.go a.go]" {
		t.Errorf("edits %v, open %v", got.Edits, got.Open)
	}
}

// TestActivity: the ranges edited in the session come as activity
// candidates of context/assemble; activity: false leaves them out; the
// history field's earlier turns come as a weaker query.
func TestActivity(t *testing.T) {
	files := map[string]string{"billing/invoice.go": "package billing\n\nfunc header() string {\n\treturn \"invoice\"\n}\n\nfunc footer() string {\n\treturn \"thanks\"\n}\n"}
	for i := range 20 {
		files[fmt.Sprintf("orders/o%02d.go", i)] = fmt.Sprintf("package orders\n\n// Total%d adds the order lines.\nfunc Total%d(lines []int) int {\n\tn := 0\n\tfor _, l := range lines {\n\t\tn += l\n\t}\n\treturn n\n}\n", i, i)
	}
	root := historytest.Write(t, files)
	c := startServer(t, serverOptions(t, nil))
	c.initialize(map[string]any{"rootUri": pathToURI(root), "processId": os.Getpid(), "initializationOptions": map[string]any{"embeddings": "off"}})
	text := files["billing/invoice.go"]
	uri := openDoc(c, root, "billing/invoice.go", text)
	changeDoc(c, uri, 2, strings.Replace(text, "\"thanks\"", "\"thank you\"", 1))
	channels := func(params map[string]any) map[string]bool {
		t.Helper()
		var r struct {
			Explain []struct {
				Path     string             `json:"path"`
				Symbol   string             `json:"symbol"`
				Channels map[string]float64 `json:"channels"`
			} `json:"explain"`
		}
		params["explain"] = true
		params["budget"] = map[string]any{"maxTokens": 600}
		raw := mustResult[json.RawMessage](t, c.call(methodContextAssemble, params))
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, e := range r.Explain {
			for ch, w := range e.Channels {
				if w > 0 {
					out[e.Symbol+" "+ch] = true
				}
			}
		}
		return out
	}
	if got := channels(map[string]any{"query": "order lines total"}); !got["billing.footer activity"] {
		t.Errorf("the edited footer is not an activity candidate: %v", got)
	}
	if got := channels(map[string]any{"query": "order lines total", "activity": false}); got["billing.footer activity"] {
		t.Error("activity: false: the edited footer still comes from the activity")
	}
	if got := channels(map[string]any{"query": "and where is it printed", "activity": false, "history": []string{"how is the invoice header built"}}); !got["billing.header conversation"] {
		t.Errorf("the earlier turn's header is not a conversation candidate: %v", got)
	}
	c.notify(methodDidChangeConfiguration, map[string]any{"settings": map[string]any{"ctxls": map[string]any{"activity": false, "embeddings": "off"}}})
	if got := channels(map[string]any{"query": "order lines total"}); got["billing.footer activity"] {
		t.Error("setting activity: false: the edited footer still comes from the activity")
	}
}
