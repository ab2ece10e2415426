package retrieve

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/index/chunk"
	"github.com/ctxls/ctxls/internal/ranges"
	"github.com/ctxls/ctxls/internal/tokens"
)

func TestLinesDeclaring(t *testing.T) {
	text := "type Route struct {\n\t// err is the build error\n\terr error\n\tname, path string\n\tregexp *routeRegexp // errs\n}"
	if got := linesDeclaring(text, 10, []string{"err", "path"}); !slices.Equal(got, []int{12, 13}) {
		t.Errorf("Go fields: %v, want [12 13]", got)
	}
	if got := linesDeclaring("interface Opts {\n  timeout: number;\n  retry?: boolean\n}", 1, []string{"timeout", "retry"}); !slices.Equal(got, []int{2}) {
		t.Errorf("TypeScript fields: %v, want [2]", got)
	}
	if got := linesDeclaring("type err struct {\n\tx int\n}", 1, []string{"err"}); got != nil {
		t.Errorf("the type's own line taken as a field: %v", got)
	}
}

func TestLinesNaming(t *testing.T) {
	text := "func Pack(rs []R) {\n\tNormalizeAll(rs)\n\tranges.Normalize(rs, n)\n\tx := Normalize\n}"
	if got := linesNaming(text, 5, []string{"Normalize"}); !slices.Equal(got, []int{7, 8}) {
		t.Errorf("linesNaming = %v, want [7 8] (NormalizeAll is another name)", got)
	}
}

func TestChangedBudget(t *testing.T) {
	for _, tc := range []struct{ budget, want int }{{8000, 2400}, {6000, 1800}, {2000, 200}, {300, 120}, {100, 50}} {
		if got := changedBudget(tc.budget, 0.3, 6000); got != tc.want {
			t.Errorf("changedBudget(%d) = %d, want %d", tc.budget, got, tc.want)
		}
	}
	if got := changedBudget(2000, 0.3, 0); got != 600 {
		t.Errorf("without a full-from: %d, want 600", got)
	}
	if got := changedBudget(2000, 0, 6000); got != 0 {
		t.Errorf("share 0: %d, want 0", got)
	}
}

func TestNamesOfLines(t *testing.T) {
	n := namesOfLines([]string{
		"\tif len(rs) > maxRanges || x.len() > 0 { // guard against Guard",
		`	log.Printf("normalize %d ranges", n)`,
		"// a comment naming Stitch",
		"\treturn int(total)",
	})
	want := []string{"len", "rs", "maxRanges", "x", "log", "Printf", "n", "int", "total"}
	if !slices.Equal(n.order, want) {
		t.Errorf("names = %q, want %q", n.order, want)
	}
	if !n.bare["len"] || !n.dotted["len"] || n.dotted["maxRanges"] || !n.dotted["Printf"] || n.bare["Printf"] {
		t.Errorf("bare %v dotted %v", n.bare, n.dotted)
	}
	for _, w := range []string{"guard", "Guard", "Stitch", "normalize", "ranges", "if", "return"} {
		if n.bare[w] || n.dotted[w] {
			t.Errorf("%q (a comment's, a string's or a keyword) taken as a reference", w)
		}
	}
	method := chunk.Chunk{Kind: chunk.KindMethod}
	fn := chunk.Chunk{Kind: chunk.KindFunction}
	only := namesOfLines([]string{"\tn := len(rs) + count(rs)"})
	method.Path, fn.Path = "pkg/m.go", "pkg/f.go"
	other := chunk.Chunk{Kind: chunk.KindFunction, Path: "other/f.go"}
	switch {
	case mayRefer(only, "len", "go", "pkg/a.go", method):
		t.Error("a bare len( refers to a method in Go")
	case mayRefer(only, "len", "go", "pkg/a.go", fn):
		t.Error("a bare len( refers to a function named len in Go (it is the builtin)")
	case mayRefer(only, "count", "python", "pkg/a.py", method):
		t.Error("a bare count( refers to a method in Python")
	case !mayRefer(only, "count", "java", "pkg/A.java", method):
		t.Error("a bare count( cannot refer to a method in Java (it can: implicit this)")
	case !mayRefer(only, "count", "go", "pkg/a.go", fn):
		t.Error("a bare count( does not refer to a function count of its own package in Go")
	case mayRefer(only, "count", "go", "pkg/a.go", other):
		t.Error("a bare count( refers to a function of another Go package")
	}
	if !dottedIn("x := b.len() + 1", "len") || dottedIn("x := len(b.length)", "len") || dottedIn("a.lengthy", "len") {
		t.Error("dottedIn")
	}
}

// reviewFixture is a repository shaped like a change that adds a guard to
// a function three files call, with names that only look alike elsewhere:
// a method called len, a type Guard whose name a comment word matches, a
// method called int.
func reviewFixture() map[string]string {
	files := map[string]string{
		"go.mod": "module example.com/r\n\ngo 1.22\n",
		"ranges/ranges.go": `package ranges

// Range is a 1-based inclusive line range.
type Range struct {
	Start, End int
}

// maxRanges bounds the ranges one call may normalize.
const maxRanges = 100000

// Normalize sorts rs and merges the ranges that touch or overlap.
func Normalize(rs []Range, lineCount int) []Range {
	// guard: nothing to do for too many ranges or none
	if len(rs) == 0 || len(rs) > maxRanges {
		return nil
	}
	out := make([]Range, 0, len(rs))
	for _, r := range rs {
		if r.End > lineCount {
			r.End = lineCount
		}
		out = append(out, r)
	}
	return out
}
`,
		"assemble/pack.go": "package assemble\n\nimport \"example.com/r/ranges\"\n\n// Pack normalizes a part's lines before it counts them.\nfunc Pack(rs []ranges.Range, n int) []ranges.Range {\n\treturn ranges.Normalize(rs, n)\n}\n",
		"render/render.go": "package render\n\nimport \"example.com/r/ranges\"\n\n// Lines renders the normalized lines of a file.\nfunc Lines(rs []ranges.Range, n int) int {\n\treturn len(ranges.Normalize(rs, n))\n}\n",
		"expand/expand.go": "package expand\n\nimport \"example.com/r/ranges\"\n\n// Expand widens the ranges by a margin and normalizes them again.\nfunc Expand(rs []ranges.Range, n int) []ranges.Range {\n\tfor i := range rs {\n\t\trs[i].Start--\n\t}\n\treturn ranges.Normalize(rs, n)\n}\n",
		"semantic/bags.go": "package semantic\n\ntype fileBags struct{ n int }\n\n// len is the number of bags of ranges kept.\nfunc (b *fileBags) len() int { return b.n }\n",
		"access/guard.go":  "package access\n\n// Guard checks every request: a guard against the none and the too many.\ntype Guard struct{ limit int }\n\n// Allow reports whether a guard lets the ranges through.\nfunc (g *Guard) Allow(n int) bool { return n <= g.limit }\n",
		"index/codec.go":   "package index\n\ntype tablesReader struct{ b []byte }\n\n// int reads one int of the ranges table.\nfunc (r *tablesReader) int() int { return int(r.b[0]) }\n",
	}
	for i := range 12 {
		files[fmt.Sprintf("misc/f%02d.go", i)] = fmt.Sprintf("package misc\n\n// F%d counts ranges and lines for a report.\nfunc F%d(lines []int) int {\n\tn := 0\n\tfor range lines {\n\t\tn++\n\t}\n\treturn n\n}\n", i, i)
	}
	return files
}

// TestReviewGuardChange: a guard added to Normalize shows its three
// callers among the first parts, and nothing is reached from the change
// through a name that cannot refer to it: the builtins len and int met the
// methods called len and int by name alone.
func TestReviewGuardChange(t *testing.T) {
	snap := indexFiles(t, reviewFixture())
	diff := guardDiff
	e := NewEngine(tokens.NewRegistry())
	resp, err := e.Assemble(context.Background(), snap, Request{Diff: diff, Budget: assemble.Budget{MaxTokens: 8000}, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, p := range resp.Parts {
		order = append(order, fmt.Sprintf("%s %s %v", p.Path, p.Symbol, p.Ranges))
	}
	// The changed function leads as a signpost (its signature and changed
	// lines: the related mode's request); its three callers follow among
	// the next four parts.
	if p := resp.Parts[0]; p.Path != "ranges/ranges.go" || !ranges.ContainsLine(p.Ranges, 12) || !ranges.ContainsLine(p.Ranges, 14) || ranges.ContainsLine(p.Ranges, 25) {
		t.Errorf("Normalize's signpost is not the first part:\n%s", strings.Join(order, "\n"))
	}
	callers := map[string]bool{"assemble/pack.go": true, "render/render.go": true, "expand/expand.go": true}
	n := 0
	for _, p := range resp.Parts[1:5] {
		if callers[p.Path] {
			n++
		}
	}
	if n != 3 {
		t.Errorf("the three callers are not among the four parts after the change:\n%s", strings.Join(order, "\n"))
	}
	// Under 4 000 tokens the default mode spends the budget on what the
	// diff does not show (Options.DiffChangedFrom); a review's changed
	// lines lead at any budget, trimmed.
	small, err := e.Assemble(context.Background(), snap, Request{Diff: diff, Mode: ModeReview, Budget: assemble.Budget{MaxTokens: 300}})
	if err != nil {
		t.Fatal(err)
	}
	if p := small.Parts[0]; p.Path != "ranges/ranges.go" || !ranges.ContainsLine(p.Ranges, 14) {
		t.Errorf("at 300 tokens the changed lines do not lead: %+v", small.Parts)
	}
	// The methods named like builtins may still match the diff's words
	// (lexical: "ranges" is in their doc comments), but no reference
	// channel reaches them.
	for _, x := range resp.Explain {
		switch x.Symbol {
		case "fileBags.len", "tablesReader.int":
			for _, ch := range []string{ChanSymbol, ChanGraph, ChanDiff} {
				if _, ok := x.Channels[ch]; ok {
					t.Errorf("%s is reached through the %s channel: %v", x.Symbol, ch, x.Channels)
				}
			}
		}
	}
}

// TestFocusBareBuiltin: a cursor whose lines call Python's next( bare
// does not resolve that name to a method called next in another file (a
// method is called through its receiver); the same name written after a
// '.' does.
func TestFocusBareBuiltin(t *testing.T) {
	files := map[string]string{
		"pkg/bar.py": "class Bar:\n    def next(self):\n        return 1\n",
		"pkg/use.py": "def walk(items):\n    it = iter(items)\n    first = next(it)\n    second = next(it)\n    return first + second\n",
	}
	named := func(files map[string]string) bool {
		for _, x := range assembleFocus(t, files, DefaultOptions(), "pkg/use.py", 4, 2000).Explain {
			if x.Symbol == "Bar.next" && strings.HasPrefix(x.Focus, "used near the cursor") {
				return true
			}
		}
		return false
	}
	if named(files) {
		t.Error("a bare next( was resolved to the method Bar.next")
	}
	files["pkg/use.py"] = "def walk(bar):\n    first = bar.next()\n    second = bar.next()\n    return first + second\n"
	if !named(files) {
		t.Error("bar.next() was not resolved to Bar.next")
	}
}

// guardDiff is the guard change of reviewFixture as a unified diff.
const guardDiff = `diff --git a/ranges/ranges.go b/ranges/ranges.go
--- a/ranges/ranges.go
+++ b/ranges/ranges.go
@@ -11,6 +11,10 @@ const maxRanges = 100000
 // Normalize sorts rs and merges the ranges that touch or overlap.
 func Normalize(rs []Range, lineCount int) []Range {
+	// guard: nothing to do for too many ranges or none
+	if len(rs) == 0 || len(rs) > maxRanges {
+		return nil
+	}
 	out := make([]Range, 0, len(rs))
 	for _, r := range rs {
 		if r.End > lineCount {
`

// TestReviewMode: under review the guard change shows Normalize whole
// first, then exactly what it reaches — its three callers at their calls
// and the constant its changed lines use, at its declaration — and
// nothing the diff's words only match: access.Guard (the comment's word
// "guard") is listed as omitted, not reached by the change.
func TestReviewMode(t *testing.T) {
	snap := indexFiles(t, reviewFixture())
	e := NewEngine(tokens.NewRegistry())
	for _, budget := range []int{8000, 2000} {
		resp, err := e.Assemble(context.Background(), snap, Request{Diff: guardDiff, Mode: ModeReview, Budget: assemble.Budget{MaxTokens: budget}})
		if err != nil {
			t.Fatal(err)
		}
		var order []string
		shown := map[string][]ranges.Range{}
		for _, p := range resp.Parts {
			order = append(order, fmt.Sprintf("%s %s %v", p.Path, p.Symbol, p.Ranges))
			shown[p.Path] = ranges.Union(shown[p.Path], p.Ranges)
		}
		if p := resp.Parts[0]; p.Path != "ranges/ranges.go" || ranges.Total(ranges.Intersect(p.Ranges, []ranges.Range{{Start: 11, End: 25}})) != 15 {
			t.Errorf("%d: Normalize, whole, is not the first part:\n%s", budget, strings.Join(order, "\n"))
		}
		want := map[string]int{"assemble/pack.go": 7, "render/render.go": 7, "expand/expand.go": 10, "ranges/ranges.go": 9}
		for _, path := range slices.Sorted(maps.Keys(want)) {
			if !ranges.ContainsLine(shown[path], want[path]) {
				t.Errorf("%d: %s:%d (a call of Normalize, or maxRanges's declaration) is not shown:\n%s", budget, path, want[path], strings.Join(order, "\n"))
			}
		}
		for path := range shown {
			if _, ok := want[path]; !ok {
				t.Errorf("%d: %s is shown, though the change does not reach it:\n%s", budget, path, strings.Join(order, "\n"))
			}
		}
		if !slices.ContainsFunc(resp.Omitted, func(o assemble.Omitted) bool {
			return o.Path == "access/guard.go" && o.Reason == reasonNotReached
		}) {
			t.Errorf("%d: access/guard.go is not listed as omitted, not reached: %+v", budget, resp.Omitted)
		}
	}
	// The default mode still offers what the words match.
	related, err := e.Assemble(context.Background(), snap, Request{Diff: guardDiff, Budget: assemble.Budget{MaxTokens: 8000}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(related.Parts, func(p assemble.Part) bool { return p.Path == "access/guard.go" }) {
		t.Error("the default mode no longer shows what the diff's words match")
	}
}

// TestModeParams: an unknown mode and a review without a diff are
// refused, naming the field.
func TestModeParams(t *testing.T) {
	e := NewEngine(tokens.NewRegistry())
	for _, tc := range []struct {
		req  Request
		want string
	}{
		{Request{Diff: guardDiff, Mode: "audit", Budget: assemble.Budget{MaxTokens: 100}}, `unknown mode "audit"`},
		{Request{Query: "guard", Mode: ModeReview, Budget: assemble.Budget{MaxTokens: 100}}, "needs a diff"},
	} {
		err := validate(e, &tc.req)
		var pe *assemble.ParamError
		if !errors.As(err, &pe) || pe.Field != "mode" || !strings.Contains(pe.Msg, tc.want) {
			t.Errorf("%+v: error %v, want a mode error saying %q", tc.req.Mode, err, tc.want)
		}
	}
	req := Request{Diff: guardDiff, Mode: "related", Budget: assemble.Budget{MaxTokens: 100}}
	if err := validate(e, &req); err != nil || req.Mode != ModeRelated {
		t.Errorf("mode related: %v, %q", err, req.Mode)
	}
}

// TestCallsOwnMethodOnly: a Go method that calls a name only on its own
// receiver calls its own type's method of that name, not another type's.
func TestCallsOwnMethodOnly(t *testing.T) {
	routeMatch := chunk.Chunk{Language: "go", Kind: chunk.KindMethod, Symbol: "Match", QualifiedName: "Route.Match"}
	caller := func(qn, sig string) chunk.Chunk {
		return chunk.Chunk{Language: "go", Kind: chunk.KindMethod, QualifiedName: qn, Signature: sig}
	}
	serve := caller("Router.ServeHTTP", "func (r *Router) ServeHTTP(w http.ResponseWriter, req *http.Request)")
	for _, tc := range []struct {
		c    chunk.Chunk
		text string
		want bool
	}{
		{serve, "func (r *Router) ServeHTTP(w, req) {\n\tif r.Match(req, &m) {\n\t}\n}", true},
		{serve, "func (r *Router) ServeHTTP(w, req) {\n\tfor _, route := range r.routes {\n\t\troute.Match(req, &m)\n\t}\n}", false},
		{serve, "func (r *Router) ServeHTTP(w, req) {\n\tr.Match(req, &m)\n\tcur.Match(req, &m)\n}", false},
		{serve, "func (r *Router) ServeHTTP(w, req) {\n\tr.MatchAll(req)\n}", false},
		{caller("Route.Other", "func (r *Route) Other()"), "func (r *Route) Other() {\n\tr.Match(nil, nil)\n}", false},
		{chunk.Chunk{Language: "go", Kind: chunk.KindFunction, QualifiedName: "mux.Serve", Signature: "func Serve(r *Router)"}, "func Serve(r *Router) {\n\tr.Match(nil, nil)\n}", false},
	} {
		if got := callsOwnMethodOnly(tc.c, tc.text, routeMatch); got != tc.want {
			t.Errorf("%s %q: %v, want %v", tc.c.QualifiedName, tc.text, got, tc.want)
		}
	}
}

// TestGoImportNames: the names a Go file's imports go by.
func TestGoImportNames(t *testing.T) {
	text := "package p\n\nimport \"fmt\"\n\nimport (\n\t\"net/http\"\n\tctx \"context\"\n\t_ \"embed\"\n\t\"github.com/labstack/echo/v4\"\n\t\"gopkg.in/yaml.v3\"\n\t\"example.com/go-kit/log\"\n\t\"github.com/mattn/go-sqlite3\"\n\t\"github.com/opentracing/opentracing-go\"\n)\nimport (\"os\")\n\nvar m = map[string]int{\n\t\"http\": 1,\n}\n"
	got := goImportNames(text)
	want := map[string]string{"fmt": "fmt", "http": "net/http", "ctx": "context", "echo": "github.com/labstack/echo/v4",
		"yaml": "gopkg.in/yaml.v3", "log": "example.com/go-kit/log", "sqlite3": "github.com/mattn/go-sqlite3",
		"opentracing": "github.com/opentracing/opentracing-go", "os": "os"}
	if !maps.Equal(got, want) {
		t.Errorf("goImportNames = %v, want %v", got, want)
	}
}

// TestImportedFrom: a name selected only on imported packages' names is
// theirs; one selected on a value anywhere may be the workspace's.
func TestImportedFrom(t *testing.T) {
	imports := map[string]string{"http": "net/http", "echo": "github.com/labstack/echo/v4"}
	for _, tc := range []struct {
		lines []string
		name  string
		want  []string
	}{
		{[]string{"\th := http.Header{}", "\tvar x http.Header"}, "Header", []string{"net/http"}},
		{[]string{"\th := http.Header{}", "\tc.Header.Set(k, v)"}, "Header", nil},
		{[]string{"\te := echo.New()", "\thttp.NewRequest()"}, "New", []string{"github.com/labstack/echo/v4"}},
		{[]string{"\tx := a.http.Header"}, "Header", nil},
		{[]string{"\tx := http.HeaderValue"}, "Header", nil},
	} {
		if got := importedFrom(tc.lines, tc.name, imports); !slices.Equal(got, tc.want) {
			t.Errorf("%q %s: %v, want %v", tc.lines, tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		path, ip string
		want     bool
	}{
		{"middleware/proxy.go", "github.com/labstack/echo/v4/middleware", true},
		{"echo.go", "github.com/labstack/echo/v4", true},
		{"middleware/proxy.go", "github.com/other/middleware2", false},
		{"backend/api/x.go", "example.com/proj/api", true}, // a go.mod below the root
		{"api/x.go", "myapp/api", true},                    // a module path without a dot
		{"api/x.go", "example.com/proj/other", false},
		{"x.go", "fmt", false},
		{"x.go", "example.com/proj", true},
		// A workspace directory named like a standard package passes: only
		// the module's path would tell them apart.
		{"http/header.go", "net/http", true},
	} {
		if got := inGoPackage(tc.path, tc.ip); got != tc.want {
			t.Errorf("inGoPackage(%s, %s) = %v", tc.path, tc.ip, got)
		}
	}
}

// TestGoBareNameNotMember: in Go a bare name is not a type's field or
// method, which the symbol table lists among the type's names (but for
// a composite literal's keys, which a review does not count).
func TestGoBareNameNotMember(t *testing.T) {
	ctxType := chunk.Chunk{Language: "go", Kind: chunk.KindType, Symbol: "context", Path: "echo/context.go"}
	names := namesOfLines([]string{"\tpath := c.Request().URL.Path", "\treturn path, context{}"})
	if !goMemberBare(names, "path", "go", ctxType) {
		t.Error("a local variable path taken for struct context's field path")
	}
	if goMemberBare(names, "context", "go", ctxType) {
		t.Error("a bare context taken for a member of the type context")
	}
	if goMemberBare(names, "Path", "go", ctxType) {
		t.Error("a selected Path taken for a bare name")
	}
	if goMemberBare(names, "path", "python", ctxType) {
		t.Error("the Go rule applied to Python")
	}
}

// reviewPaths are the paths of the parts, in order, of a review of diff
// over files at budget.
func reviewPaths(t *testing.T, files map[string]string, diff string, budget int) []string {
	t.Helper()
	resp, err := NewEngine(tokens.NewRegistry()).Assemble(context.Background(), indexFiles(t, files), Request{Diff: diff, Mode: ModeReview, Budget: assemble.Budget{MaxTokens: budget}})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, p := range resp.Parts {
		paths = append(paths, p.Path)
	}
	return paths
}

// TestReviewCallersCall: under review, a Go method's callers are the
// units that call it (.Name(), on something else than their own receiver
// of another type: a field selection req.URL.Path or the type io.Writer
// does not call Route.URL or Logger.Writer.
func TestReviewCallersCall(t *testing.T) {
	files := map[string]string{
		"go.mod":    "module example.com/r\n\ngo 1.22\n",
		"route.go":  "package r\n\ntype Route struct{ host string }\n\n// URL builds the route's URL.\nfunc (r *Route) URL() string {\n\treturn \"http://\" + r.host\n}\n",
		"build.go":  "package r\n\n// Link links to a route.\nfunc Link(rt *Route) string {\n\treturn rt.URL()\n}\n",
		"serve.go":  "package r\n\nimport \"net/http\"\n\n// Path is the request's path.\nfunc Path(req *http.Request) string {\n\treturn req.URL.Path\n}\n",
		"router.go": "package r\n\ntype Router struct{ base string }\n\n// URL is the router's base URL.\nfunc (rr *Router) URL() string { return rr.base }\n\n// Self shows the router's own URL.\nfunc (rr *Router) Self() string {\n\treturn rr.URL()\n}\n",
	}
	diff := "diff --git a/route.go b/route.go\n--- a/route.go\n+++ b/route.go\n@@ -5,4 +5,4 @@ type Route struct{ host string }\n // URL builds the route's URL.\n func (r *Route) URL() string {\n-\treturn \"http://\" + r.host\n+\treturn \"https://\" + r.host\n }\n"
	paths := reviewPaths(t, files, diff, 4000)
	if !slices.Contains(paths, "build.go") || slices.Contains(paths, "serve.go") || slices.Contains(paths, "router.go") {
		t.Errorf("parts %v: want build.go (rt.URL()), not serve.go (req.URL.Path) nor router.go (rr.URL() on its own receiver)", paths)
	}
}

// TestReviewValueSelectionsLast: under review, a definition reached only
// through x.Name on a value (some type's Name; only types tell which)
// comes after the definitions the changed lines name outright.
func TestReviewValueSelectionsLast(t *testing.T) {
	files := map[string]string{
		"go.mod":  "module example.com/p\n\ngo 1.22\n",
		"a.go":    "package p\n\n// helper is one.\nfunc helper() int { return 1 }\n",
		"size.go": "package p\n\ntype Box struct{ n int }\n\n// Size is the box's size.\nfunc (b Box) Size() int { return b.n }\n",
		"use.go":  "package p\n\n// Use adds.\nfunc Use(v Box) int {\n\treturn helper() + v.Size()\n}\n",
	}
	diff := "diff --git a/use.go b/use.go\n--- a/use.go\n+++ b/use.go\n@@ -3,4 +3,4 @@ package p\n // Use adds.\n func Use(v Box) int {\n-\treturn helper()\n+\treturn helper() + v.Size()\n }\n"
	order := reviewPaths(t, files, diff, 4000)
	a, s := slices.Index(order, "a.go"), slices.Index(order, "size.go")
	if a < 0 || s < 0 || a > s {
		t.Errorf("parts %v: want a.go (helper(), named outright) before size.go (v.Size(), on a value), both shown", order)
	}
}

// TestReviewExplainsTrimmedReach: a reached unit cut around its call
// still says, with --explain, why it is there.
func TestReviewExplainsTrimmedReach(t *testing.T) {
	var body strings.Builder
	for i := range 80 {
		fmt.Fprintf(&body, "\tx += %d\n", i)
	}
	files := map[string]string{
		"go.mod":   "module example.com/p\n\ngo 1.22\n",
		"norm.go":  "package p\n\n// Normalize normalizes.\nfunc Normalize(n int) int {\n\treturn n\n}\n",
		"long.go":  "package p\n\n// Long calls Normalize deep inside.\nfunc Long() int {\n\tx := 0\n" + body.String() + "\treturn Normalize(x)\n}\n",
		"other.go": "package p\n\n// Other is unrelated.\nfunc Other() int { return 2 }\n",
	}
	diff := "diff --git a/norm.go b/norm.go\n--- a/norm.go\n+++ b/norm.go\n@@ -3,4 +3,4 @@ package p\n // Normalize normalizes.\n func Normalize(n int) int {\n-\treturn n\n+\treturn n + 0\n }\n"
	snap := indexFiles(t, files)
	resp, err := NewEngine(tokens.NewRegistry()).Assemble(context.Background(), snap, Request{Diff: diff, Mode: ModeReview, Explain: true, Budget: assemble.Budget{MaxTokens: 400}})
	if err != nil {
		t.Fatal(err)
	}
	var long *assemble.Part
	for i, p := range resp.Parts {
		if p.Path == "long.go" {
			long = &resp.Parts[i]
		}
	}
	if long == nil || ranges.Total(long.Ranges) > 20 || !ranges.ContainsLine(long.Ranges, 86) {
		t.Fatalf("long.go is not shown cut around its call (line 86): %+v", resp.Parts)
	}
	for _, x := range resp.Explain {
		if x.Part == long.ID && !slices.ContainsFunc(x.Priors, func(p string) bool { return strings.Contains(p, "calls Normalize") }) {
			t.Errorf("the cut caller's explanation does not say it calls Normalize: %+v", x)
		}
	}
}

// TestReviewNothingReached: a review of a diff that only deletes a file
// shows nothing and says why; what its words match is listed as omitted.
func TestReviewNothingReached(t *testing.T) {
	snap := indexFiles(t, reviewFixture())
	diff := "diff --git a/gone.go b/gone.go\ndeleted file mode 100644\n--- a/gone.go\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-package ranges\n-\n-func Normalize() {}\n"
	resp, err := NewEngine(tokens.NewRegistry()).Assemble(context.Background(), snap, Request{Diff: diff, Mode: ModeReview, Budget: assemble.Budget{MaxTokens: 2000}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Parts) != 0 || !strings.Contains(resp.Stats.Note, "mode review: the diff changes no indexed unit") || len(resp.Omitted) == 0 {
		t.Errorf("parts %d, note %q, omitted %d", len(resp.Parts), resp.Stats.Note, len(resp.Omitted))
	}
}

// TestReviewDiffOrder: the reach of a diff of several files does not
// depend on their order (a type one file names stays a definition it
// uses though another file only selects its field).
func TestReviewDiffOrder(t *testing.T) {
	files := map[string]string{
		"go.mod":  "module example.com/p\n\ngo 1.22\n",
		"box.go":  "package p\n\n// Box holds a size.\ntype Box struct {\n\tsize int\n}\n",
		"a.go":    "package p\n\n// Grow grows b.\nfunc Grow(b *Box) {\n\tb.size++\n}\n",
		"b.go":    "package p\n\n// Make makes one.\nfunc Make() Box {\n\treturn Box{}\n}\n",
		"misc.go": "package p\n\n// Misc is unrelated.\nfunc Misc() int { return 3 }\n",
		// Four more types with a field size: the name alone is ambiguous.
		"other/sizes.go": "package other\n\ntype A struct{ size int }\n\ntype B struct{ size int }\n\ntype C struct{ size int }\n\ntype D struct{ size int }\n",
	}
	da := "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -3,4 +3,4 @@ package p\n // Grow grows b.\n func Grow(b *Box) {\n-\tb.size--\n+\tb.size++\n }\n"
	db := "diff --git a/b.go b/b.go\n--- a/b.go\n+++ b/b.go\n@@ -3,4 +3,4 @@ package p\n // Make makes one.\n func Make() Box {\n-\treturn Box{size: 1}\n+\treturn Box{}\n }\n"
	var got []string
	for _, diff := range []string{da + db, db + da} {
		paths := reviewPaths(t, files, diff, 2000)
		slices.Sort(paths)
		got = append(got, strings.Join(slices.Compact(paths), " "))
	}
	if got[0] != got[1] || !strings.Contains(got[0], "box.go") {
		t.Errorf("files shown: %q in one order, %q in the other; want the same, box.go among them", got[0], got[1])
	}
}
