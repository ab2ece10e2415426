package chunk

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ctxls/ctxls/internal/gotree"
)

// outlineCorpus is the Go files the outline is checked on: the package's
// test data and a part of Go's own source tree (CTXLS_OUTLINE_CORPUS names
// another directory to check instead, such as all of Go's src).
func outlineCorpus(t *testing.T) []string {
	t.Helper()
	roots := []string{"testdata"}
	if d := os.Getenv("CTXLS_OUTLINE_CORPUS"); d != "" {
		roots = []string{d}
	} else {
		src := gotree.Src(t)
		for _, d := range []string{"go", "net/http", "encoding", "cmd/compile/internal/types2", "internal/types/testdata"} {
			roots = append(roots, filepath.Join(src, d))
		}
	}
	var files []string
	for _, root := range roots {
		files = append(files, gotree.Files(t, root, gotree.IsGo)...)
	}
	return files
}

// An outline parse gives the chunks a full parse gives, for every file
// whose full parse has no error; files with an error are counted.
func TestOutlineSameChunks(t *testing.T) {
	files := outlineCorpus(t)
	if len(files) < 500 {
		t.Fatalf("only %d Go files to check the outline on", len(files))
	}
	outlined, full := NewChunker(Options{}), NewChunker(Options{})
	defer outlined.Close()
	defer full.Close()
	full.fullParse = true
	var used, broken, differ int
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := full.Chunk(p, src)
		if err != nil {
			t.Fatal(err)
		}
		got, err := outlined.Chunk(p, src)
		if err != nil {
			t.Fatal(err)
		}
		if len(goOutline(src, outlined.opts.MaxLines, nil)) > 0 {
			used++
		}
		if hasParseError(t, full, p, src) {
			broken++
			if !reflect.DeepEqual(got, want) {
				differ++
				t.Logf("%s (a syntax error): chunked differently:\n%s", p, chunkDiff(got, want))
			}
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the outline's chunks differ from a full parse's:\n%s", p, chunkDiff(got, want))
		}
	}
	t.Logf("%d files, %d outlined, %d with a syntax error (%d of them chunked differently)", len(files), used, broken, differ)
	if used < len(files)/2 {
		t.Errorf("only %d of %d files had an outline", used, len(files))
	}
}

// hasParseError reports whether a full parse of src has an error.
func hasParseError(t *testing.T, c *Chunker, path string, src []byte) bool {
	t.Helper()
	spec := specFor(languageFor(path, src))
	if spec == nil || blank(src) || len(src) > c.opts.MaxParseBytes {
		return false
	}
	tree, gaveUp, err := c.parse(spec, src, nil)
	if err != nil || gaveUp {
		t.Fatalf("parse %s: %v (gave up: %v)", path, err, gaveUp)
	}
	defer tree.Close()
	return tree.RootNode().HasError()
}

// chunkDiff describes the first difference between two chunk lists.
func chunkDiff(got, want []Chunk) string {
	for i := range min(len(got), len(want)) {
		if !reflect.DeepEqual(got[i], want[i]) {
			return fmt.Sprintf("outline: %+v\nfull:    %+v", got[i], want[i])
		}
	}
	return fmt.Sprintf("%d chunks against %d", len(got), len(want))
}

// skipped returns the text goOutline leaves out of src, one string per
// body (nil when it gives no outline).
func skipped(src string, maxLines int) []string {
	rs := goOutline([]byte(src), maxLines, nil)
	if rs == nil {
		return nil
	}
	var out []string
	for i := 0; i+1 < len(rs); i++ {
		out = append(out, src[rs[i].EndByte:rs[i+1].StartByte])
	}
	return out
}

func TestGoOutlineBodies(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want []string
	}{
		{"function and method", "package p\n\nfunc f() { a() }\n\nfunc (r *T) m(x int) (int, error) {\n\treturn 0, nil\n}\n",
			[]string{" a() ", "\n\treturn 0, nil\n"}},
		{"struct and interface results", "package p\n\nfunc f() struct{ x int } { return s }\nfunc g() interface{ M() } { return nil }\n",
			[]string{" return s ", " return nil "}},
		{"constraint with braces", "package p\n\nfunc f[T interface{ ~int }](x T) map[string]struct{} { return nil }\n",
			[]string{" return nil "}},
		{"no body, then a body", "package p\n\nfunc asm(x int) int\n\nfunc g() { b() }\n",
			[]string{" b() "}},
		{"function literal in a declaration", "package p\n\nvar f = func() int { return 1 }\n\nvar g =\n\tfunc() {}\n\nfunc h() { c() }\n",
			[]string{" return 1 ", " c() "}},
		{"composite literals in var and const declarations", "package p\n\nvar (\n\tm = map[string]T{\"a\": {1}}\n\tn = 2\n)\n\nconst c = 1\n\nvar s = struct{ x int }{x: 1}\n",
			[]string{`"a": {1}`, " x int ", "x: 1"}},
		{"type declarations are read whole", "package p\n\ntype T struct {\n\tx struct{ y int }\n}\n", nil},
		{"empty bodies", "package p\n\nfunc f() {}\n", nil},
		{"nested braces and strings", "package p\n\nfunc f() { if x { s := \"}\"; _ = '}' } /* } */ }\n",
			[]string{" if x { s := \"}\"; _ = '}' } /* } */ "}},
		{"scanner error", "package p\n\nfunc f() { s := \"unterminated }\n", nil},
		{"unbalanced", "package p\n\nfunc f() { if x { }\n", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := skipped(c.src, 150); !reflect.DeepEqual(got, c.want) {
				t.Errorf("left out %q, want %q", got, c.want)
			}
		})
	}

	// A function is left out only when it cannot make a unit longer than
	// maxLines, its doc comment included.
	long := "package p\n\nvar x = 1\n// doc\n// more doc\nfunc f() {\n\ta()\n\tb()\n}\n"
	if got := skipped(long, 6); got != nil {
		t.Errorf("maxLines 6: left out %q of a function spanning 7 lines from the token before it", got)
	}
	if got := skipped(long, 7); !reflect.DeepEqual(got, []string{"\n\ta()\n\tb()\n"}) {
		t.Errorf("maxLines 7: left out %q", got)
	}
	// Of a longer function only what is inside its statements is left
	// out: the walker cuts it between statements.
	nested := "package p\n\nfunc f() {\n\tif x {\n\t\ta()\n\t}\n\ts := T{1, 2} // {\n\tgo func() { b() }()\n\tfor {}\n}\n"
	if got, want := skipped(nested, 3), []string{"\n\t\ta()\n\t", "1, 2", " b() "}; !reflect.DeepEqual(got, want) {
		t.Errorf("a long function: left out %q, want %q", got, want)
	}
	// Lines are the file's own, whatever a //line directive says (here
	// one that would make the function look 2 lines long).
	directive := "package p\n\nvar x = 1\n//line other.go:1\nfunc f() {\n\ta()\n\tb()\n}\n"
	if got := skipped(directive, 5); got != nil {
		t.Errorf("after a //line directive, maxLines 5: left out %q of a function 6 lines from the token before it", got)
	}
	if got := skipped(directive, 6); !reflect.DeepEqual(got, []string{"\n\ta()\n\tb()\n"}) {
		t.Errorf("after a //line directive, maxLines 6: left out %q", got)
	}
}

// A syntax error inside a left-out body does not reach the tree: the
// function keeps its chunk through its closing brace, and ChunkAgain,
// which parses whole files, gives the same chunks.
func TestOutlineBrokenBody(t *testing.T) {
	src := []byte("package p\n\n// A is broken.\nfunc A() {\n\tx := := 1\n}\n\n// B is fine.\nfunc B() int { return 2 }\n")
	c := NewChunker(Options{})
	defer c.Close()
	got, err := c.Chunk("p.go", src)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ch := range got {
		if ch.Kind == KindFunction {
			names = append(names, fmt.Sprintf("%s %d-%d", ch.Symbol, ch.StartLine, ch.EndLine))
		}
	}
	if want := []string{"A 3-6", "B 8-9"}; !reflect.DeepEqual(names, want) {
		t.Errorf("functions %q, want %q", names, want)
	}
	again := NewChunker(Options{})
	again.KeepTrees(1)
	defer again.Close()
	for range 2 {
		a, _, err := again.ChunkAgain("p.go", src)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, got) {
			t.Fatalf("ChunkAgain differs from Chunk:\n%s", chunkDiff(a, got))
		}
	}
	if c.liveTrees != 0 || again.liveTrees != 0 {
		t.Errorf("trees left open: %d, %d", c.liveTrees, again.liveTrees)
	}
}

// FuzzOutline checks an outline parse against a full one on arbitrary Go:
// whenever the full parse has no error, the chunks are the same.
func FuzzOutline(f *testing.F) {
	f.Add([]byte("package p\n\n// F does.\nfunc F() { a(); b() }\n\nfunc (t T) M() struct{ x int } {\n\treturn s\n}\n"))
	f.Add([]byte("package p\n\nfunc f[T interface{ ~int }](x T) map[string]struct{} {\n\tif x {\n\t\treturn nil\n\t}\n\treturn m\n}\nvar g = func() {}\n"))
	f.Add([]byte("package p\n\nfunc asm(x int) int\n\ntype S struct {\n\tf func() { }\n}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		outlined, full := NewChunker(fuzzOpts), NewChunker(fuzzOpts)
		defer outlined.Close()
		defer full.Close()
		full.fullParse = true
		want, err := full.Chunk("f.go", src)
		if err != nil {
			t.Fatal(err)
		}
		got, err := outlined.Chunk("f.go", src)
		if err != nil {
			t.Fatal(err)
		}
		if outlined.liveTrees != 0 {
			t.Fatalf("%d trees left open", outlined.liveTrees)
		}
		checkInvariants(t, src, got)
		if !hasParseError(t, full, "f.go", src) && !reflect.DeepEqual(got, want) {
			t.Fatalf("the outline's chunks differ from a full parse's:\n%s", chunkDiff(got, want))
		}
	})
}
