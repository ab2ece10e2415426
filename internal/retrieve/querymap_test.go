package retrieve

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/tokens"
)

// TestQueryMapsBreadth: twelve files answer the question, each with a long
// function; under a tight budget the context shows a few of them whole
// and names more of the next-best ones by their declaration lines (maps)
// than it would without maps — in budget, and each map part only
// declaration lines.
func TestQueryMapsBreadth(t *testing.T) {
	files := map[string]string{"go.mod": "module example.com/m\n"}
	for i := range 12 {
		var b strings.Builder
		fmt.Fprintf(&b, "package billing\n\n// InvoiceTotal%d sums the invoice lines of batch %d.\nfunc InvoiceTotal%d(lines []int) int {\n\ttotal := 0\n", i, i, i)
		for j := range 30 {
			fmt.Fprintf(&b, "\ttotal += lines[%d] * %d // invoice line %d\n", j, j+i, j)
		}
		b.WriteString("\treturn total\n}\n\n")
		fmt.Fprintf(&b, "// unrelated%d is something else.\nfunc unrelated%d() int { return %d }\n", i, i, i)
		files[fmt.Sprintf("billing/invoice%02d.go", i)] = b.String()
	}
	snap := indexFiles(t, files)
	const budget = 1200
	shown := func(opts Options) (map[string]bool, *Response) {
		res, err := NewEngineWith(tokens.NewRegistry(), opts).Assemble(context.Background(), snap,
			Request{Query: "invoice total of the lines", Budget: assemble.Budget{MaxTokens: budget}, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Stats.TotalTokens > budget {
			t.Fatalf("over budget: %d", res.Stats.TotalTokens)
		}
		out := map[string]bool{}
		for _, p := range res.Parts {
			out[p.Path] = true
		}
		return out, res
	}
	with, res := shown(DefaultOptions())
	off := DefaultOptions()
	off.QueryMapFiles = 0
	without, _ := shown(off)
	if len(with) <= len(without) {
		t.Errorf("maps show %d files, no maps %d: want more with maps", len(with), len(without))
	}
	mapParts := map[string]bool{}
	for _, ex := range res.Explain {
		if ex.Part != "" && strings.Contains(ex.Focus, "a next-best file") {
			mapParts[ex.Part] = true
		}
	}
	if len(mapParts) == 0 {
		t.Errorf("no part is explained as a next-best file's map: %+v", res.Explain)
	}
	for _, p := range res.Parts {
		if mapParts[p.ID] && (strings.Contains(p.Text, "total +=") || !strings.Contains(p.Text, "func InvoiceTotal")) {
			t.Errorf("map part %s of %s is not its declaration lines:\n%s", p.ID, p.Path, p.Text)
		}
	}
}

// TestOmittedMapsNotListed: a map the budget leaves out is not offered
// for expansion (it would expand to its one line); its file's own units
// are.
func TestOmittedMapsNotListed(t *testing.T) {
	files := map[string]string{"go.mod": "module example.com/m\n"}
	for i := range 60 {
		files[fmt.Sprintf("billing/invoice%02d.go", i)] = fmt.Sprintf("package billing\n\n// InvoiceTotal%d sums the invoice lines.\nfunc InvoiceTotal%d(lines []int) int {\n\ttotal := 0\n\tfor _, l := range lines {\n\t\ttotal += l * %d // invoice line\n\t}\n\treturn total\n}\n", i, i, i)
	}
	snap := indexFiles(t, files)
	maps := 0
	for _, b := range []int{300, 600, 900} {
		res, err := NewEngine(tokens.NewRegistry()).Assemble(context.Background(), snap,
			Request{Query: "invoice total of the lines", Budget: assemble.Budget{MaxTokens: b}, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range res.Explain {
			if x.Part != "" && strings.Contains(x.Focus, "a next-best file") {
				maps++
			}
		}
		for _, o := range res.Omitted {
			if o.Symbol == "" && slices.Equal(o.Sources, []string{ChanOverview}) {
				t.Errorf("budget %d: a map is listed as omitted: %+v", b, o)
			}
		}
	}
	if maps == 0 {
		t.Error("no map shown at any budget: the test shows nothing")
	}
}

// TestDeclMapNamesSomething: a declaration line that names nothing (a Go
// `const (` block's first line) is no line of a map.
func TestDeclMapNamesSomething(t *testing.T) {
	const p = "conf/conf.go"
	snap := indexFiles(t, map[string]string{"go.mod": "module m\n", p: "package conf\n\nfunc Load() int {\n\treturn limitA + limitB\n}\n\nconst (\n\tlimitA = 1\n\tlimitB = 2\n)\n\nvar defaultConf = Load()\n"})
	var ids []index.ChunkID
	for _, c := range snap.ChunksOf(p) {
		ids = append(ids, c.ID)
	}
	r := &run{snap: snap}
	rs, _ := r.declMap(p, ids, 10)
	for _, rg := range rs {
		if rg.Start <= 7 && 7 <= rg.End {
			t.Errorf("map %v shows line 7, `const (`", rs)
		}
	}
	if len(rs) == 0 {
		t.Error("empty map")
	}
}

// TestCursorBreadth: a cursor in a file that calls thirty long functions of
// thirty files; at 4 000 tokens the context names more of those files
// (one-line maps beyond the focus maps) with FocusBreadthFrom than without,
// the cursor's own line first among them and the budget held.
func TestCursorBreadth(t *testing.T) {
	files := map[string]string{"go.mod": "module example.com/m\n"}
	var use strings.Builder
	use.WriteString("package billing\n\nfunc useAll() int {\n\tn := 0\n")
	for i := range 30 {
		var b strings.Builder
		fmt.Fprintf(&b, "package billing\n\n// Total%d sums batch %d.\nfunc Total%d(lines []int) int {\n\ttotal := 0\n", i, i, i)
		for j := range 40 {
			fmt.Fprintf(&b, "\ttotal += lines[%d] * %d // line %d\n", j, j+i, j)
		}
		b.WriteString("\treturn total\n}\n")
		files[fmt.Sprintf("billing/total%02d.go", i)] = b.String()
		fmt.Fprintf(&use, "\tn += Total%d(nil)\n", i)
	}
	use.WriteString("\tcursorMarker := n\n\treturn cursorMarker\n}\n")
	files["billing/use.go"] = use.String()
	cursor := strings.Count(use.String()[:strings.Index(use.String(), "cursorMarker := n")], "\n") + 1
	count := func(from int) int {
		opts := DefaultOptions()
		opts.FocusBreadthFrom = from
		res := assembleFocus(t, files, opts, "billing/use.go", cursor, 4000)
		if !strings.Contains(res.Rendered, "cursorMarker := n") {
			t.Fatalf("the cursor's line is not shown:\n%s", res.Rendered)
		}
		shown := map[string]bool{}
		for _, p := range res.Parts {
			shown[p.Path] = true
		}
		return len(shown)
	}
	with, without := count(4000), count(0)
	if with <= without {
		t.Errorf("files shown with breadth maps %d, without %d: want more with", with, without)
	}
}

// TestDeclMapBestFirst: a one-line map of a file shows the declaration of
// its best definition, not the first one in the file — the class line of
// AuroraMysqlQueryRunner said nothing of the clearDatabase the question is
// about.
func TestDeclMapBestFirst(t *testing.T) {
	const p = "src/driver/AuroraQueryRunner.ts"
	snap := indexFiles(t, map[string]string{p: "export class AuroraQueryRunner {\n  connect(): void {\n    this.open = true\n  }\n\n" +
		"  async clearDatabase(): Promise<void> {\n    await this.query(\"DROP\")\n  }\n}\n"})
	var class, clear index.ChunkID
	for _, c := range snap.ChunksOf(p) {
		switch c.Symbol {
		case "AuroraQueryRunner":
			class = c.ID
		case "clearDatabase":
			clear = c.ID
		}
	}
	if class == "" || clear == "" {
		t.Fatalf("chunks of %s: want the class and clearDatabase", p)
	}
	r := &run{snap: snap}
	rs, _ := r.declMap(p, []index.ChunkID{clear, class}, 1)
	if len(rs) != 1 || rs[0].Start != 6 {
		t.Errorf("map of one line = %v, want clearDatabase's declaration (line 6)", rs)
	}
	if rs, _ := r.declMap(p, []index.ChunkID{class, clear}, 1); len(rs) != 1 || rs[0].Start != 1 {
		t.Errorf("map with the class best = %v, want the class line (1)", rs)
	}
}
