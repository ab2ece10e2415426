package refs

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/ranges"
	"github.com/ctxls/ctxls/internal/retrieve"
	"github.com/ctxls/ctxls/internal/tokens"
)

// misleading is a module whose names mislead the name graph: a Buffer's
// Write beside the http.ResponseWriter's Write a handler calls, and a
// Close defined on six types, one of whose callers calls another's.
func misleading() map[string]string {
	files := map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"store/buffer.go": `package store

// Buffer holds bytes.
type Buffer struct{ data []byte }

// Write appends p to the buffer.
func (b *Buffer) Write(p []byte) (int, error) {
	b.data = append(b.data, p...)
	return len(p), nil
}
`,
		"report/report.go": `package report

import "example.com/m/store"

// Save keeps the report's text in the buffer.
func Save(b *store.Buffer, text string) {
	b.Write([]byte(text))
}
`,
		"app/app.go": `package app

import (
	"net/http"

	"example.com/m/conn"
)

// Shutdown closes the connection and tells the client.
func Shutdown(w http.ResponseWriter, c *conn.Conn) {
	c.Close()
	w.Write([]byte("bye"))
}
`,
		"tidy/tidy.go": `package tidy

import "example.com/m/kinds/file"

// Tidy closes the file.
func Tidy(f *file.Closer) {
	f.Close()
}
`,
		"conn/conn.go": `package conn

// Conn is a connection.
type Conn struct{ open bool }
` + filler + `
// Close closes the connection.
func (c *Conn) Close() error {
	c.open = false
	return nil
}
`,
	}
	for _, k := range []string{"file", "pool", "pipe", "tap", "sink"} {
		files["kinds/"+k+"/"+k+".go"] = fmt.Sprintf(`package %s

// Closer is a %s.
type Closer struct{ n int }

// Close closes the %s.
func (c *Closer) Close() error {
	c.n = 0
	return nil
}
`, k, k, k)
	}
	return files
}

// filler is a long function: what follows it in a file is a part of its
// own.
var filler = "\n// Spin counts.\nfunc Spin() int {\n\tn := 0\n" + strings.Repeat("\tn += len(\"spin the wheel once more\")\n", 40) + "\treturn n\n}\n"

// lineOf is the number of the first line of text holding s.
func lineOf(text, s string) int {
	return strings.Count(text[:strings.Index(text, s)], "\n") + 1
}

// shownPaths are the files a response shows.
func shownPaths(resp *retrieve.Response) map[string]bool {
	out := map[string]bool{}
	for _, p := range resp.Parts {
		out[p.Path] = true
	}
	return out
}

func review(t *testing.T, e *retrieve.Engine, snap *index.Snapshot, diff string) map[string]bool {
	t.Helper()
	resp, err := e.Assemble(context.Background(), snap, retrieve.Request{Diff: diff, Mode: retrieve.ModeReview, Budget: assemble.Budget{MaxTokens: 4000}})
	if err != nil {
		t.Fatal(err)
	}
	return shownPaths(resp)
}

// Under review, Go resolves by types: the callers of a changed method
// are its own type's (not a handler's Write on an http.ResponseWriter,
// not another type's Close), and the definitions the changed lines use
// are what their names resolve to. By name (an engine without the
// resolver) the handler and the other Close's caller are reached.
func TestReviewResolvesGoByTypes(t *testing.T) {
	snap := indexFiles(t, misleading())
	reg := tokens.NewRegistry()
	byName := retrieve.NewEngine(reg)
	byTypes := retrieve.NewEngine(reg).WithResolver(Resolver{})
	write := "--- a/store/buffer.go\n+++ b/store/buffer.go\n@@ -7,3 +7,3 @@\n func (b *Buffer) Write(p []byte) (int, error) {\n-\tb.data = append(b.data, p...)\n+\tb.data = append(b.data[:len(b.data):len(b.data)], p...)\n \treturn len(p), nil\n"
	at := lineOf(misleading()["conn/conn.go"], "c.open = false")
	closeDiff := fmt.Sprintf("--- a/conn/conn.go\n+++ b/conn/conn.go\n@@ -%d,3 +%d,3 @@\n func (c *Conn) Close() error {\n-\tc.open = false\n+\tc.open = !true\n \treturn nil\n", at-1, at-1)
	use := "--- a/app/app.go\n+++ b/app/app.go\n@@ -10,4 +10,4 @@\n func Shutdown(w http.ResponseWriter, c *conn.Conn) {\n-\tc.Close()\n-\tw.Write([]byte(\"bye\"))\n+\t_ = c.Close()\n+\t_, _ = w.Write([]byte(\"bye\"))\n }\n"
	for _, tc := range []struct {
		name, diff    string
		want, wantNot []string
		nameWrong     string // what the name graph reaches wrongly
		nameMisses    string // what the name graph misses
	}{
		{"Buffer.Write's callers", write, []string{"report/report.go"}, []string{"app/app.go"}, "app/app.go", ""},
		{"Conn.Close's callers", closeDiff, []string{"app/app.go"}, []string{"tidy/tidy.go", "kinds/file/file.go"}, "tidy/tidy.go", ""},
		{"what Shutdown's changed lines use", use, []string{"conn/conn.go"}, []string{"store/buffer.go"}, "store/buffer.go", "conn/conn.go"},
	} {
		got := review(t, byTypes, snap, tc.diff)
		for _, p := range tc.want {
			if !got[p] {
				t.Errorf("%s: %s is not shown by types: %v", tc.name, p, got)
			}
		}
		for _, p := range tc.wantNot {
			if got[p] {
				t.Errorf("%s: %s is shown by types, though the change does not reach it: %v", tc.name, p, got)
			}
		}
		named := review(t, byName, snap, tc.diff)
		if !named[tc.nameWrong] || tc.nameMisses != "" && named[tc.nameMisses] {
			t.Errorf("%s: by name, want %s shown and %q not (the fixture no longer misleads): %v", tc.name, tc.nameWrong, tc.nameMisses, named)
		}
	}
}

// focusShown are the lines, by path, of the parts the focus channel
// brought.
func focusShown(resp *retrieve.Response) map[string][]ranges.Range {
	out := map[string][]ranges.Range{}
	for _, p := range resp.Parts {
		if slices.Contains(p.Sources, retrieve.ChanFocus) {
			out[p.Path] = ranges.Union(out[p.Path], p.Ranges)
		}
	}
	return out
}

// At the cursor, a Go name defined in many places — by name too many to
// say anything — is the definition it resolves to by types: c.Close() on
// a *conn.Conn brings Conn's Close, though six types define Close, and no
// other type's.
func TestCursorResolvesGoByTypes(t *testing.T) {
	files := misleading()
	snap := indexFiles(t, files)
	closeBody := lineOf(files["conn/conn.go"], "c.open = false")
	reg := tokens.NewRegistry()
	req := retrieve.Request{Focus: &retrieve.Focus{Path: "app/app.go", Line: 11}, Budget: assemble.Budget{MaxTokens: 4000}}
	resp, err := retrieve.NewEngine(reg).WithResolver(Resolver{}).Assemble(context.Background(), snap, req)
	if err != nil {
		t.Fatal(err)
	}
	got := focusShown(resp)
	if !ranges.ContainsLine(got["conn/conn.go"], closeBody) {
		t.Errorf("the focus channel does not bring Conn.Close: %v", got)
	}
	for p := range got {
		if strings.HasPrefix(p, "kinds/") {
			t.Errorf("the focus channel brings %s: another type's Close, not what c.Close resolves to: %v", p, got)
		}
	}
	named, err := retrieve.NewEngine(reg).Assemble(context.Background(), snap, req)
	if err != nil {
		t.Fatal(err)
	}
	if n := focusShown(named); ranges.ContainsLine(n["conn/conn.go"], closeBody) {
		t.Errorf("by name the focus channel brings Conn.Close too (the fixture no longer misleads): %v", n)
	}
}

// TestResolverBoundsItsWork: one request's answers by types may need at
// most its budget of packages checked, all of them together: a name
// written in more packages than that goes by name, and so does an answer
// that would take the request past what its earlier answers used; an
// answer within what they admitted costs nothing more. find_references
// is not bounded.
func TestResolverBoundsItsWork(t *testing.T) {
	const max = 64
	files := map[string]string{
		"go.mod":           "module example.com/m\n\ngo 1.22\n",
		"target/target.go": "package target\n\n// Ping answers.\nfunc Ping() int { return 1 }\n\n// Pong answers too.\nfunc Pong() int { return 2 }\n",
		"other/other.go":   "package other\n\n// Pang answers.\nfunc Pang() int { return 3 }\n",
	}
	for i := range max + 4 {
		call := "Ping"
		if i < 3 {
			call = "Pong"
		}
		files[fmt.Sprintf("user%02d/user.go", i)] = fmt.Sprintf("package user%02d\n\nimport \"example.com/m/target\"\n\n// Use calls %s.\nfunc Use() int { return target.%s() }\n", i, call, call)
	}
	for i := range 3 {
		files[fmt.Sprintf("pang%02d/pang.go", i)] = fmt.Sprintf("package pang%02d\n\nimport \"example.com/m/other\"\n\n// UsePang calls Pang.\nfunc UsePang() int { return other.Pang() }\n", i)
	}
	snap := indexFiles(t, files)
	unit := func(path, name string) index.IndexedChunk {
		for _, c := range snap.ChunksOf(path) {
			if c.Symbol == name {
				return c
			}
		}
		t.Fatalf("no unit %s", name)
		return index.IndexedChunk{}
	}
	ping, pong, pang := unit("target/target.go", "Ping"), unit("target/target.go", "Pong"), unit("other/other.go", "Pang")
	for range 2 { // cold, then with the packages checked
		b := &retrieve.ResolveBudget{Max: max}
		if got, ok := (Resolver{}).Callers(context.Background(), snap, pong, b); !ok || len(got) != 3 {
			t.Errorf("Pong, called from 3 packages: %v %v, want its 3 callers", got, ok)
		}
		used := len(b.Admitted)
		if got, ok := (Resolver{}).Callers(context.Background(), snap, ping, b); ok {
			t.Errorf("Ping, called from %d packages: %d callers by types, want none (by name)", max+1, len(got))
		}
		if len(b.Admitted) != used {
			t.Errorf("an answer not given took %d packages of the budget", len(b.Admitted)-used)
		}
		if got, ok := (Resolver{}).Callers(context.Background(), snap, pong, b); !ok || len(got) != 3 || len(b.Admitted) != used {
			t.Errorf("Pong again: %v %v, budget used %d then %d", got, ok, used, len(b.Admitted))
		}
		// A request whose earlier answers used nearly all of its budget:
		// Pang's 4 packages do not fit in what is left; in a budget of
		// its own they do.
		tight := &retrieve.ResolveBudget{Max: used + 3}
		if _, ok := (Resolver{}).Callers(context.Background(), snap, pong, tight); !ok {
			t.Fatal("Pong within a budget of its size")
		}
		if _, ok := (Resolver{}).Callers(context.Background(), snap, pang, tight); ok {
			t.Errorf("Pang answered by types past the request's budget (%d of %d used)", len(tight.Admitted), tight.Max)
		}
		if got, ok := (Resolver{}).Callers(context.Background(), snap, pang, &retrieve.ResolveBudget{Max: max}); !ok || len(got) != 3 {
			t.Errorf("Pang in a budget of its own: %v %v, want its 3 callers", got, ok)
		}
		if _, err := Find(context.Background(), snap, Query{Symbol: "target.Ping"}); err != nil {
			t.Fatal(err) // find_references is not bounded
		}
	}
}
