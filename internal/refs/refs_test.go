package refs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/history/historytest"
	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/index/indextest"
)

// indexFiles is a snapshot of an in-memory index of files (slash path →
// text) written for the test (indextest.Snapshot).
func indexFiles(t testing.TB, files map[string]string) *index.Snapshot {
	return indextest.Snapshot(t, files)
}

// module is a Go module with two types that both have a Write method, a
// package calling one of them beside an http.ResponseWriter's Write, an
// in-package test and a caller of a caller.
var module = map[string]string{
	"go.mod": "module example.com/m\n\ngo 1.22\n",
	"resp/resp.go": `package resp

import "io"

// Response is one response.
type Response struct{ body []byte }

// Write appends to the body.
func (r *Response) Write(b []byte) (int, error) {
	r.body = append(r.body, b...)
	return len(b), nil
}

// Other writes elsewhere.
type Other struct{}

// Write discards b.
func (o *Other) Write(b []byte) (int, error) { return len(b), nil }

// Copy writes through the io.Writer that Response implements.
func Copy(w io.Writer, b []byte) {
	w.Write(b)
}
`,
	"resp/resp_test.go": `package resp

import "testing"

func TestWrite(t *testing.T) {
	r := &Response{}
	r.Write([]byte("x"))
}
`,
	"srv/srv.go": `package srv

import (
	"net/http"

	"example.com/m/resp"
)

// Handle writes to all three.
func Handle(w http.ResponseWriter, r *resp.Response, o *resp.Other) {
	w.Write(nil)
	r.Write(nil)
	o.Write(nil)
}

// Serve calls Handle.
func Serve(w http.ResponseWriter) {
	Handle(w, &resp.Response{}, nil)
}
`,
	"app/app.go": `package app

import "example.com/m/srv"

// Run calls Serve.
func Run() { srv.Serve(nil) }
`,
}

// shared is one index of module for the tests that only read it: the
// standard library's packages it imports are checked once.
var shared struct {
	once    sync.Once
	snap    *index.Snapshot
	cleanup func()
	err     error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.cleanup != nil {
		shared.cleanup()
	}
	os.Exit(code)
}

// moduleSnap is a snapshot of module, shared by the tests.
func moduleSnap(t testing.TB) *index.Snapshot {
	t.Helper()
	shared.once.Do(func() {
		root, err := os.MkdirTemp("", "ctxls-refs-")
		if err != nil {
			shared.err = err
			return
		}
		for name, text := range module {
			p := filepath.Join(root, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				shared.err = err
				return
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				shared.err = err
				return
			}
		}
		x, err := index.Open(context.Background(), root, index.Options{InMemory: true})
		if err != nil {
			shared.err = err
			return
		}
		snap, release := x.Snapshot()
		shared.snap = snap
		shared.cleanup = func() { release(); x.Close(); os.RemoveAll(root) }
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.snap
}

func sites(r *Result) []string {
	var out []string
	for _, s := range r.Sites {
		e := ""
		if !s.Exact {
			e = " by-name"
		}
		out = append(out, fmt.Sprintf("%s:%d:%d %s %s%s", s.Path, s.Line, s.Column, s.Kind, s.Symbol, e))
	}
	return out
}

func TestGoMethodOfCommonNameResolvesByTypes(t *testing.T) {
	snap := moduleSnap(t)
	res, err := Find(context.Background(), snap, Query{Symbol: "Response.Write"})
	if err != nil {
		t.Fatal(err)
	}
	// Not w.Write on the http.ResponseWriter, not o.Write on Other; the
	// io.Writer's Write in Response's own package, as gopls counts it;
	// the package's own lines first, tests last.
	want := []string{
		"resp/resp.go:22:4 implementation resp.Copy",
		"srv/srv.go:12:4 call srv.Handle",
		"resp/resp_test.go:7:4 call resp.TestWrite",
	}
	if got := sites(res); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("sites:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !res.Exact || res.Target.Kind != "method" || res.Target.Path != "resp/resp.go" || res.Target.Line != 9 {
		t.Errorf("target %+v exact %v", res.Target, res.Exact)
	}
}

func TestGoReferencesAtPosition(t *testing.T) {
	snap := moduleSnap(t)
	// The o.Write call: Other.Write's references are that call and, in
	// its package, the io.Writer's Write that *Other implements.
	res, err := Find(context.Background(), snap, Query{Path: "srv/srv.go", Line: 13, Column: 4})
	if err != nil {
		t.Fatal(err)
	}
	if got := sites(res); len(got) != 2 || got[0] != "resp/resp.go:22:4 implementation resp.Copy" || got[1] != "srv/srv.go:13:4 call srv.Handle" {
		t.Errorf("sites %q", got)
	}
	if res.Target.Name != "Other.Write" {
		t.Errorf("target %+v", res.Target)
	}
	// No column: the line's declaration.
	res, err = Find(context.Background(), snap, Query{Path: "srv/srv.go", Line: 17})
	if err != nil {
		t.Fatal(err)
	}
	if got := sites(res); len(got) != 1 || got[0] != "app/app.go:6:18 call app.Run" {
		t.Errorf("Serve's sites %q", got)
	}
}

func TestBadInputIsNamed(t *testing.T) {
	snap := moduleSnap(t)
	for _, tc := range []struct {
		q           Query
		field, want string
	}{
		{Query{Symbol: "Nowhere"}, FieldSymbol, "no definition of Nowhere"},
		{Query{Symbol: "Write"}, FieldSymbol, "ambiguous: 2 definitions"},
		{Query{Symbol: "two words"}, FieldSymbol, "want one name"},
		{Query{Path: "srv/srv.go", Line: 99}, FieldAt, "past the end of the file (19 lines)"},
		{Query{Path: "srv/srv.go", Line: 3, Column: 80}, FieldAt, "past the end of the line"},
		{Query{Path: "nope.go", Line: 1}, FieldAt, "not in the index"},
	} {
		_, err := Find(context.Background(), snap, tc.q)
		var pe *assemble.ParamError
		if !errors.As(err, &pe) || pe.Field != tc.field || !strings.Contains(pe.Msg, tc.want) {
			t.Errorf("%+v: %v, want %s: …%s…", tc.q, err, tc.field, tc.want)
		}
	}
	// The ambiguous name's candidates are listed.
	_, err := Find(context.Background(), snap, Query{Symbol: "Write"})
	if err == nil || !strings.Contains(err.Error(), "Response.Write (resp/resp.go:8)") || !strings.Contains(err.Error(), "Other.Write (resp/resp.go:17)") {
		t.Errorf("candidates: %v", err)
	}
}

func TestOtherLanguagesByName(t *testing.T) {
	snap := indexFiles(t, map[string]string{
		"lib.py":  "def parse(text):\n    return text\n",
		"main.py": "from lib import parse\n\n\ndef run():\n    # parse is mentioned here\n    return parse('x')\n",
	})
	res, err := Find(context.Background(), snap, Query{Symbol: "parse"})
	if err != nil {
		t.Fatal(err)
	}
	got := sites(res)
	want := []string{"main.py:1:17 use  by-name", "main.py:6:12 call run by-name"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || res.Exact {
		t.Errorf("sites %q exact %v, want %q", got, res.Exact, want)
	}
}

func TestGoFileThatDoesNotParseFallsBackToNames(t *testing.T) {
	files := map[string]string{}
	for k, v := range module {
		files[k] = v
	}
	files["broken/broken.go"] = "package broken\n\nimport \"example.com/m/srv\"\n\nfunc F() {\n\tsrv.Serve(nil)\n\tif {\n}\n"
	snap := indexFiles(t, files)
	res, err := Find(context.Background(), snap, Query{Symbol: "srv.Serve"})
	if err != nil {
		t.Fatal(err)
	}
	got := sites(res)
	if len(got) != 2 || got[0] != "app/app.go:6:18 call app.Run" || !strings.HasPrefix(got[1], "broken/broken.go:6:6 call") || !strings.HasSuffix(got[1], "by-name") {
		t.Errorf("sites %q", got)
	}
	if res.Exact {
		t.Error("a result with a site by name is not exact")
	}
}

func TestListHoldsBudget(t *testing.T) {
	snap := moduleSnap(t)
	res, err := Find(context.Background(), snap, Query{Symbol: "Response.Write"})
	if err != nil {
		t.Fatal(err)
	}
	words := func(s string) int { return len(strings.Fields(s)) }
	full := res.List(0, words)
	if full.Listed != 3 || full.OmittedTotal != 0 {
		t.Fatalf("unbudgeted: %+v", full)
	}
	head := words(strings.SplitAfter(full.Text, "\n")[0])
	l := res.List(head+4, words)
	if l.Listed != 1 || l.OmittedTotal != 2 || len(l.Omitted) != 2 || l.Tokens > head+4 {
		t.Fatalf("budgeted: %+v", l)
	}
	if o := l.Omitted[0]; o.Path != "srv/srv.go" || o.Handle != "srv/srv.go#L9-14" {
		t.Errorf("omitted %+v", o)
	}
}

func TestImpactOfAChange(t *testing.T) {
	snap := moduleSnap(t)
	diff := `--- a/resp/resp.go
+++ b/resp/resp.go
@@ -9,3 +9,3 @@ func (r *Response) Write(b []byte) (int, error) {
 func (r *Response) Write(b []byte) (int, error) {
-	r.body = append(r.body, b...)
+	r.body = append(r.body, b[:len(b)]...)
 	return len(b), nil
`
	_, got := impactLines(t, snap, diff, 2)
	want := []string{
		"0 resp/resp.go Response.Write: changed (lines 10)",
		"1 resp/resp.go resp.Response: used by the changed lines (body)",
		"1 resp/resp.go resp.Copy: calls Response.Write",
		"1 resp/resp_test.go resp.TestWrite: calls Response.Write",
		"1 srv/srv.go srv.Handle: calls Response.Write",
		"2 srv/srv.go srv.Serve: calls srv.Handle",
	}
	sameLines(t, "reached", got, want)
	if _, err := Impact(context.Background(), snap, "not a diff", 1); err == nil {
		t.Error("a text that is no diff is an error")
	}
	var pe *assemble.ParamError
	if _, err := Impact(context.Background(), snap, diff, 9); !errors.As(err, &pe) || pe.Field != FieldDepth {
		t.Errorf("depth 9: %v", err)
	}
}

// In the declaring package, a call of the error interface's Error (which
// has no declaration) is a reference to an Error method of the package,
// as gopls counts it; elsewhere it is not.
func TestErrorInterfaceCallsInTheDeclaringPackage(t *testing.T) {
	snap := indexFiles(t, map[string]string{
		"go.mod":      "module example.com/e\n\ngo 1.22\n",
		"e/e.go":      "package e\n\ntype Oops struct{}\n\nfunc (Oops) Error() string { return \"oops\" }\n\nfunc Say(err error) string { return err.Error() }\n",
		"f/f.go":      "package f\n\nfunc Say(err error) string { return err.Error() }\n",
		"e/x_test.go": "package e\n\nimport \"testing\"\n\nfunc TestOops(t *testing.T) { _ = Oops{}.Error() }\n",
	})
	res, err := Find(context.Background(), snap, Query{Symbol: "Oops.Error"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"e/e.go:7:41 implementation e.Say", "e/x_test.go:5:42 call e.TestOops"}
	if got := sites(res); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("sites %q, want %q", got, want)
	}
}

// Only the index's files are read and listed: a position outside the
// root, or on a name the standard library declares, is refused; no site
// is ever in a file of GOROOT.
func TestOnlyIndexedFiles(t *testing.T) {
	snap := moduleSnap(t)
	for _, tc := range []struct {
		q    Query
		want string
	}{
		{Query{Path: "../outside.go", Line: 1}, "not in the index"},
		{Query{Path: "/etc/passwd", Line: 1}, "not in the index"},
		// w.Write on the io.Writer in resp.Copy.
		{Query{Path: "resp/resp.go", Line: 22, Column: 4}, "Write is declared in the standard library"},
	} {
		_, err := Find(context.Background(), snap, tc.q)
		var pe *assemble.ParamError
		if !errors.As(err, &pe) || pe.Field != FieldAt || !strings.Contains(pe.Msg, tc.want) {
			t.Errorf("%+v: %v, want …%s…", tc.q, err, tc.want)
		}
	}
	res, err := Find(context.Background(), snap, Query{Symbol: "Response.Write"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Sites {
		if _, ok := snap.Stat(s.Path); !ok {
			t.Errorf("a site outside the index: %+v", s)
		}
	}
}

// The type checker's packages are kept per content across snapshots: a
// package none of whose files (nor imports) changed is not checked again,
// one whose file changed is, and the answer follows the new text.
func TestCacheFollowsContent(t *testing.T) {
	root := historytest.Write(t, map[string]string{
		"go.mod": "module example.com/c\n\ngo 1.22\n",
		"a/a.go": "package a\n\nfunc F() {}\n",
		"b/b.go": "package b\n\nimport \"example.com/c/a\"\n\nfunc G() { a.F() }\n",
		"z/z.go": "package z\n\nfunc F() {}\n\nfunc H() { F() }\n",
	})
	x, err := index.Open(context.Background(), root, index.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	find := func() (*goCache, []string) {
		snap, release := x.Snapshot()
		defer release()
		res, err := Find(context.Background(), snap, Query{Symbol: "a.F"})
		if err != nil {
			t.Fatal(err)
		}
		return cacheOf(snap), sites(res)
	}
	c, got := find()
	if len(got) != 1 || got[0] != "b/b.go:5:14 call b.G" {
		t.Fatalf("before: %q", got)
	}
	pa := c.pkgs[variant{"a", varBase}]
	pb := c.pkgs[variant{"b", varBase}]
	if err := x.SetOverlay(context.Background(), "b/b.go", []byte("package b\n\nimport \"example.com/c/a\"\n\nfunc G() {\n\ta.F()\n\ta.F()\n}\n")); err != nil {
		t.Fatal(err)
	}
	c2, got := find()
	if c2 != c || len(got) != 2 || got[1] != "b/b.go:7:4 call b.G" {
		t.Fatalf("after the change: %q (same cache %v)", got, c2 == c)
	}
	if c.pkgs[variant{"a", varBase}] != pa || c.pkgs[variant{"b", varBase}] == pb {
		t.Error("the unchanged package was checked again, or the changed one was not")
	}
}

// A method that implements an interface of another package of the module
// is reached through that interface anywhere (gopls's global rule), and
// the interface's method reaches the method's direct calls.
func TestModuleInterfaceCalls(t *testing.T) {
	snap := indexFiles(t, map[string]string{
		"go.mod":    "module example.com/h\n\ngo 1.22\n",
		"hook/h.go": "package hook\n\n// Hook is fired.\ntype Hook interface{ Fire(n int) error }\n\nfunc FireAll(hs []Hook) {\n\tfor _, h := range hs {\n\t\th.Fire(1)\n\t}\n}\n",
		"impl/i.go": "package impl\n\n// Mine fires.\ntype Mine struct{}\n\nfunc (*Mine) Fire(n int) error { return nil }\n\n// Other fires otherwise.\ntype Other struct{}\n\nfunc (Other) Fire(s string) error { return nil }\n",
		"use/u.go":  "package use\n\nimport \"example.com/h/impl\"\n\nfunc Go(m *impl.Mine, o impl.Other) {\n\tm.Fire(2)\n\to.Fire(\"x\")\n}\n",
	})
	res, err := Find(context.Background(), snap, Query{Symbol: "Mine.Fire"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"hook/h.go:8:5 implementation hook.FireAll", "use/u.go:6:4 call use.Go"}
	if got := sites(res); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Mine.Fire: %q, want %q", got, want)
	}
	res, err = Find(context.Background(), snap, Query{Symbol: "Hook.Fire"})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"hook/h.go:8:5 call hook.FireAll", "use/u.go:6:4 implementation use.Go"}
	if got := sites(res); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Hook.Fire: %q, want %q", got, want)
	}
}

// impactLines runs Impact of diff to depth and gives each unit reached as
// a line: its hop, path, symbol and reason.
func impactLines(t *testing.T, snap *index.Snapshot, diff string, depth int) (*ImpactResult, []string) {
	t.Helper()
	res, err := Impact(context.Background(), snap, diff, depth)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res.Reached {
		got = append(got, fmt.Sprintf("%d %s %s: %s", r.Hop, r.Path, r.Symbol, r.Reason))
	}
	return res, got
}

// sameLines fails t when got is not want, line for line.
func sameLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n%s\nwant:\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
