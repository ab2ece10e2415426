//go:build cgo

package syntax

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/csharp"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/php"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/ruby"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"

	"github.com/ctxls/ctxls/internal/gotree"
)

// The parity tests compare this build's trees (the native engine, or with
// the ctxls_wasm tag the WebAssembly one) with go-tree-sitter's own
// binding, node by node: type, flags, range, children, the field each
// child is in (the tree cursor's), ChildByFieldName of the look-up fields
// and Parent. CI runs them in both builds.

var sitterGrammars = [numLangs]func() *sitter.Language{golang.GetLanguage, python.GetLanguage, rust.GetLanguage,
	javascript.GetLanguage, typescript.GetLanguage, tsx.GetLanguage, java.GetLanguage, c.GetLanguage, cpp.GetLanguage,
	csharp.GetLanguage, ruby.GetLanguage, php.GetLanguage}

// langByExt maps a corpus file's extension to its grammar.
var langByExt = map[string]Lang{".go": Go, ".py": Python, ".rs": Rust, ".js": JavaScript, ".cjs": JavaScript,
	".mjs": JavaScript, ".ts": TypeScript, ".tsx": TSX, ".java": Java, ".c": C, ".h": C, ".cc": CPP, ".cpp": CPP,
	".cs": CSharp, ".rb": Ruby, ".php": PHP}

// corpusFile is one input of the parity corpus.
type corpusFile struct {
	name    string
	lang    Lang
	src     []byte
	parents bool // also check Parent (slow in go-tree-sitter: it walks from the root)
}

// chunkTestdata returns the inputs of the chunk package's golden tests.
func chunkTestdata(t *testing.T) []corpusFile {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "testdata", "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden files under ../testdata: %v", err)
	}
	var out []corpusFile
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, sec := range bytes.Split(data, []byte("\n-- "))[1:] {
			head, body, _ := bytes.Cut(sec, []byte("\n"))
			name := strings.TrimSuffix(string(head), " --")
			if l, ok := langByExt[filepath.Ext(name)]; ok && strings.HasPrefix(name, "input") {
				out = append(out, corpusFile{name: filepath.Base(p) + "/" + name, lang: l, src: body, parents: true})
			}
		}
	}
	return out
}

// fuzzCorpus returns the chunk package's fuzz seeds, each as every
// language: broken input, where error recovery makes the unusual trees.
func fuzzCorpus(t *testing.T) []corpusFile {
	t.Helper()
	var out []corpusFile
	for _, dir := range []string{"FuzzChunk", "FuzzChunkAgain"} {
		paths, _ := filepath.Glob(filepath.Join("..", "testdata", "fuzz", dir, "*"))
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(string(data), "\n") {
				if !strings.HasPrefix(line, "[]byte(") {
					continue
				}
				s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(line, "[]byte("), ")"))
				if err != nil {
					t.Fatalf("%s:%d: %v", p, i+1, err)
				}
				for l := Lang(0); l < numLangs; l++ {
					out = append(out, corpusFile{name: dir + "/" + filepath.Base(p) + ":" + strconv.Itoa(i+1), lang: l, src: []byte(s), parents: true})
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("no fuzz seeds under ../testdata/fuzz")
	}
	return out
}

// goRootCorpus returns the C, Python and JavaScript files of Go's tree and
// every step-th Go file of its src.
func goRootCorpus(t *testing.T, step int) []corpusFile {
	t.Helper()
	var out []corpusFile
	add := func(p string) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, corpusFile{name: p, lang: langByExt[filepath.Ext(p)], src: b})
	}
	for _, p := range gotree.Files(t, gotree.Root(t), func(p string) bool {
		switch filepath.Ext(p) {
		case ".c", ".h", ".cc", ".py", ".js":
			return true
		}
		return false
	}) {
		add(p)
	}
	for i, p := range gotree.Files(t, gotree.Src(t), gotree.IsGo) {
		if i%step == 0 {
			add(p)
		}
	}
	return out
}

func TestParityWithGoTreeSitter(t *testing.T) {
	if raceOn && testing.Short() {
		// One goroutine comparing trees: nothing for the race detector,
		// which makes it several times slower. make test runs it.
		t.Skip("a single goroutine's node-by-node comparison: run without -race")
	}
	corpus := append(chunkTestdata(t), fuzzCorpus(t)...)
	// Every 29th Go file of Go's src (about 300, every package's kind of
	// code) beside all of its C, Python and JavaScript files;
	// CTXLS_PARITY_STEP=1 compares every file (minutes), -short every 61st.
	step := 29
	if testing.Short() {
		step = 61
	}
	if v := os.Getenv("CTXLS_PARITY_STEP"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("CTXLS_PARITY_STEP=%q: want a positive whole number", v)
		}
		step = n
	}
	corpus = append(corpus, goRootCorpus(t, step)...)
	p := NewParser()
	defer p.Close()
	var sp [numLangs]*sitter.Parser
	defer func() {
		for _, s := range sp {
			if s != nil {
				s.Close()
			}
		}
	}()
	nodes, otherParents := 0, 0
	for _, f := range corpus {
		if sp[f.lang] == nil {
			sp[f.lang] = sitter.NewParser()
			sp[f.lang].SetLanguage(sitterGrammars[f.lang]())
		}
		// The whole file, and its second half left out but for its last
		// line (an included-range parse, as the chunker's outline does).
		for _, ranges := range [][]Range{nil, halfRanges(f.src)} {
			want, err := sitterParse(sp[f.lang], f.src, ranges)
			if err != nil {
				t.Fatalf("%s: go-tree-sitter: %v", f.name, err)
			}
			got, err := p.Parse(f.lang, f.src, ranges, nil)
			if err != nil {
				t.Fatalf("%s: %v", f.name, err)
			}
			lookups, err := p.LookupFields(f.lang)
			if err != nil {
				t.Fatal(err)
			}
			nodes += compareTrees(t, f.name, want.RootNode(), got.RootNode(), lookups, f.parents, &otherParents)
			got.Close()
			want.Close()
			if t.Failed() {
				return
			}
		}
	}
	t.Logf("%s engine: %d files, %d nodes identical (go-tree-sitter's Parent differs for %d of the small files' nodes)", Engine, len(corpus), nodes, otherParents)
}

// sitterParse parses with go-tree-sitter, within ranges when given.
func sitterParse(p *sitter.Parser, src []byte, ranges []Range) (*sitter.Tree, error) {
	if len(ranges) > 0 {
		rs := make([]sitter.Range, len(ranges))
		for i, r := range ranges {
			rs[i] = sitter.Range{StartPoint: sitter.Point{Row: r.StartPoint.Row, Column: r.StartPoint.Column},
				EndPoint:  sitter.Point{Row: r.EndPoint.Row, Column: r.EndPoint.Column},
				StartByte: r.StartByte, EndByte: r.EndByte}
		}
		p.SetIncludedRanges(rs)
		defer p.SetIncludedRanges([]sitter.Range{{EndByte: ^uint32(0), EndPoint: sitter.Point{Row: ^uint32(0), Column: ^uint32(0)}}})
	}
	return p.ParseCtx(context.Background(), nil, src)
}

// halfRanges returns two ranges: the first half of src, and its last
// line; nil when src has fewer than two lines.
func halfRanges(src []byte) []Range {
	mid := bytes.IndexByte(src[len(src)/2:], '\n')
	last := bytes.LastIndexByte(bytes.TrimRight(src, "\n"), '\n')
	if mid < 0 || last < 0 {
		return nil
	}
	mid += len(src) / 2
	if last <= mid {
		return nil
	}
	return []Range{
		{StartPoint: Point{}, EndPoint: pointOf(src, mid), StartByte: 0, EndByte: uint32(mid)},
		{StartPoint: pointOf(src, last), EndPoint: pointOf(src, len(src)), StartByte: uint32(last), EndByte: uint32(len(src))},
	}
}

// pointOf is tree-sitter's point of offset i.
func pointOf(src []byte, i int) Point {
	row := bytes.Count(src[:i], []byte{'\n'})
	return Point{Row: uint32(row), Column: uint32(i - (bytes.LastIndexByte(src[:i], '\n') + 1))}
}

// compareTrees checks got against want node by node and returns how many
// nodes it compared; it stops at the first difference.
func compareTrees(t *testing.T, name string, want *sitter.Node, got *Node, lookups []string, parents bool, otherParents *int) int {
	t.Helper()
	type pair struct {
		w    *sitter.Node
		g    *Node
		path string
	}
	cur := sitter.NewTreeCursor(want)
	defer cur.Close()
	stack := []pair{{want, got, want.Type()}}
	n := 0
	for len(stack) > 0 {
		pr := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		w, g := pr.w, pr.g
		n++
		fail := func(what string, a, b any) {
			t.Errorf("%s: node %s [%d,%d): %s: go-tree-sitter %v, %s engine %v", name, pr.path, w.StartByte(), w.EndByte(), what, a, Engine, b)
		}
		switch {
		case w.Type() != g.Type():
			fail("type", w.Type(), g.Type())
		case uint16(w.Symbol()) != g.Symbol():
			fail("symbol", w.Symbol(), g.Symbol())
		case w.StartByte() != g.StartByte() || w.EndByte() != g.EndByte():
			fail("range", [2]uint32{w.StartByte(), w.EndByte()}, [2]uint32{g.StartByte(), g.EndByte()})
		case w.IsNamed() != g.IsNamed() || w.IsMissing() != g.IsMissing() || w.IsExtra() != g.IsExtra() ||
			w.HasError() != g.HasError() || w.IsError() != g.IsError():
			fail("flags (named, missing, extra, has error, error)",
				[]bool{w.IsNamed(), w.IsMissing(), w.IsExtra(), w.HasError(), w.IsError()},
				[]bool{g.IsNamed(), g.IsMissing(), g.IsExtra(), g.HasError(), g.IsError()})
		case w.ChildCount() != g.ChildCount() || w.NamedChildCount() != g.NamedChildCount():
			fail("children (all, named)", [2]uint32{w.ChildCount(), w.NamedChildCount()}, [2]uint32{g.ChildCount(), g.NamedChildCount()})
		}
		if t.Failed() {
			return n
		}
		kids := make([]*sitter.Node, 0, w.ChildCount())
		cur.Reset(w)
		for ok, i := cur.GoToFirstChild(), 0; ok; ok, i = cur.GoToNextSibling(), i+1 {
			wc, gc := cur.CurrentNode(), g.Child(i)
			if f := cur.CurrentFieldName(); f != gc.FieldName() {
				fail("field of child "+strconv.Itoa(i), f, gc.FieldName())
				return n
			}
			if gc.Parent() != g {
				fail("parent of child "+strconv.Itoa(i), "the node", gc.Parent())
				return n
			}
			if parents && !nodeEqual(wc.Parent(), w) {
				// go-tree-sitter's Parent searches down from the root by
				// byte range and can stop in a neighbour where a node is
				// empty (error recovery, missing tokens); ours is the
				// node whose child it is.
				*otherParents++
			}
			kids = append(kids, wc)
			stack = append(stack, pair{wc, gc, pr.path + "/" + wc.Type()})
		}
		named := 0
		for i, wc := range kids {
			if wc.IsNamed() {
				if g.NamedChild(named) != g.Child(i) {
					fail("named child "+strconv.Itoa(named), i, "another child")
					return n
				}
				named++
			}
		}
		for _, f := range lookups {
			wi, gi := childIndex(kids, w.ChildByFieldName(f)), -1
			if gc := g.ChildByFieldName(f); gc != nil {
				gi = indexOf(g, gc)
			}
			if wi != gi {
				wc := w.ChildByFieldName(f)
				if wi == -2 {
					t.Logf("go-tree-sitter's %s is %s [%d,%d), whose parent is %v", f, wc.Type(), wc.StartByte(), wc.EndByte(), wc.Parent())
				}
				fail("ChildByFieldName("+f+")", wi, gi)
				return n
			}
		}
	}
	return n
}

// childIndex returns the index of c among kids, -1 for nil, -2 when c is
// not one of them.
func childIndex(kids []*sitter.Node, c *sitter.Node) int {
	if c == nil {
		return -1
	}
	for i, k := range kids {
		if nodeEqual(k, c) {
			return i
		}
	}
	return -2
}

func indexOf(parent, c *Node) int {
	for i := 0; i < int(parent.ChildCount()); i++ {
		if parent.Child(i) == c {
			return i
		}
	}
	return -2
}

func nodeEqual(a, b *sitter.Node) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(b)
}
