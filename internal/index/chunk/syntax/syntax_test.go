package syntax

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// dump renders a tree as an S-expression with fields, ranges and flags,
// for comparing trees.
func dump(n *Node) string {
	var b strings.Builder
	var rec func(n *Node)
	rec = func(n *Node) {
		fmt.Fprintf(&b, "(%s %d-%d", n.Type(), n.StartByte(), n.EndByte())
		if n.IsMissing() {
			b.WriteString(" MISSING")
		}
		for i := 0; i < int(n.ChildCount()); i++ {
			c := n.Child(i)
			b.WriteByte(' ')
			if f := c.FieldName(); f != "" {
				b.WriteString(f + ":")
			}
			rec(c)
		}
		b.WriteByte(')')
	}
	rec(n)
	return b.String()
}

const goSrc = `package p

// F adds.
func F(a, b int) int {
	return a + b
}

type T struct{ x int }

func (t *T) M() {}
`

func TestParseAndNavigate(t *testing.T) {
	p := NewParser()
	defer p.Close()
	tree, err := p.Parse(Go, []byte(goSrc), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	root := tree.RootNode()
	if root.Type() != "source_file" || root.HasError() || root.Parent() != nil {
		t.Fatalf("root: %s, error %v, parent %v", root.Type(), root.HasError(), root.Parent())
	}
	var types []string
	for i := 0; i < int(root.NamedChildCount()); i++ {
		types = append(types, root.NamedChild(i).Type())
	}
	if got, want := strings.Join(types, " "), "package_clause comment function_declaration type_declaration method_declaration"; got != want {
		t.Fatalf("top-level nodes: %s, want %s", got, want)
	}
	fn := root.NamedChild(2)
	name := fn.ChildByFieldName("name")
	if name == nil || name.Type() != "identifier" || string(goSrc[name.StartByte():name.EndByte()]) != "F" ||
		name.FieldName() != "name" || name.Parent() != fn {
		t.Fatalf("F's name: %v", name)
	}
	body := fn.ChildByFieldName("body")
	if body == nil || body.Type() != "block" || body.Child(0).Type() != "{" || body.Child(0).IsNamed() {
		t.Fatalf("F's body: %v", body)
	}
	if fn.ChildByFieldName("receiver") != nil || fn.ChildByFieldName("no such field") != nil || fn.Child(-1) != nil ||
		fn.Child(int(fn.ChildCount())) != nil || fn.NamedChild(int(fn.NamedChildCount())) != nil {
		t.Fatal("a missing child is not nil")
	}
	m := root.NamedChild(4)
	if r := m.ChildByFieldName("receiver"); r == nil || r.Type() != "parameter_list" {
		t.Fatalf("M's receiver: %v", r)
	}
	// "parameters" is not a look-up field: found through the cursor's fields.
	if ps := fn.ChildByFieldName("parameters"); ps == nil || ps.Type() != "parameter_list" {
		t.Fatalf("F's parameters: %v", ps)
	}
}

func TestSyntaxError(t *testing.T) {
	p := NewParser()
	defer p.Close()
	tree, err := p.Parse(Go, []byte("package p\n\nfunc F( {\n"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	if !tree.RootNode().HasError() || !strings.Contains(dump(tree.RootNode()), "(ERROR") {
		t.Fatalf("no error in %s", dump(tree.RootNode()))
	}
}

// Incremental parses (the chunker's ChunkAgain) give the fresh parse's
// tree.
func TestIncrementalParse(t *testing.T) {
	p := NewParser()
	defer p.Close()
	old := []byte(goSrc)
	tree, err := p.Parse(Go, old, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(old, []byte("a + b"))
	src := append(append(append([]byte{}, old[:at]...), "a * (b - 1)"...), old[at+len("a + b"):]...)
	row, col := uint32(4), uint32(at-bytes.LastIndexByte(old[:at], '\n')-1)
	tree.Edit(EditInput{
		StartIndex: uint32(at), OldEndIndex: uint32(at + 5), NewEndIndex: uint32(at + 11),
		StartPoint: Point{row, col}, OldEndPoint: Point{row, col + 5}, NewEndPoint: Point{row, col + 11},
	})
	again, err := p.Parse(Go, src, nil, tree)
	if err != nil {
		t.Fatal(err)
	}
	tree.Close()
	defer again.Close()
	fresh, err := p.Parse(Go, src, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if a, f := dump(again.RootNode()), dump(fresh.RootNode()); a != f {
		t.Fatalf("incremental:\n%s\nfresh:\n%s", a, f)
	}
}

// Included ranges leave text out of the parse: F's body is read as an
// empty block.
func TestIncludedRanges(t *testing.T) {
	p := NewParser()
	defer p.Close()
	src := []byte(goSrc)
	open := bytes.Index(src, []byte("{\n\treturn"))
	end := bytes.Index(src, []byte("\n}\n")) + 1
	ranges := []Range{
		{EndPoint: Point{3, 21}, EndByte: uint32(open + 1)},
		{StartPoint: Point{5, 0}, EndPoint: Point{^uint32(0), ^uint32(0)}, StartByte: uint32(end), EndByte: ^uint32(0)},
	}
	tree, err := p.Parse(Go, src, ranges, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	body := tree.RootNode().NamedChild(2).ChildByFieldName("body")
	if tree.RootNode().HasError() || body == nil || body.NamedChildCount() != 0 {
		t.Fatalf("outline tree: %s", dump(tree.RootNode()))
	}
	// The ranges apply to that parse only.
	whole, err := p.Parse(Go, src, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer whole.Close()
	if whole.RootNode().NamedChild(2).ChildByFieldName("body").NamedChildCount() == 0 {
		t.Fatal("the next parse still left the body out")
	}
}

func TestEveryLanguage(t *testing.T) {
	cases := []struct {
		lang      Lang
		src, root string
	}{
		{Go, "package p\n", "source_file"},
		{Python, "def f():\n    pass\n", "module"},
		{Rust, "fn f() {}\n", "source_file"},
		{JavaScript, "function f() {}\n", "program"},
		{TypeScript, "function f(x: number) {}\n", "program"},
		{TSX, "const a = <div/>;\n", "program"},
		{Java, "class A {}\n", "program"},
		{C, "int f(void) { return 0; }\n", "translation_unit"},
		{CPP, "namespace n { class A {}; }\n", "translation_unit"},
		{CSharp, "class A {}\n", "compilation_unit"},
		{Ruby, "def f\nend\n", "program"},
		{PHP, "<?php function f() {}\n", "program"},
	}
	p := NewParser()
	defer p.Close()
	for _, c := range cases {
		tree, err := p.Parse(c.lang, []byte(c.src), nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.lang, err)
		}
		if r := tree.RootNode(); r.Type() != c.root || r.HasError() || r.NamedChildCount() == 0 {
			t.Errorf("%s: %s", c.lang, dump(r))
		}
		tree.Close()
	}
	if _, err := p.Parse(numLangs, []byte("x"), nil, nil); err == nil {
		t.Fatal("an unknown language parsed")
	}
}

func TestParseAfterClose(t *testing.T) {
	p := NewParser()
	tree, err := p.Parse(Go, []byte(goSrc), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	tree.Close()
	tree.Close() // twice is harmless
	p.Close()
	if _, err := p.Parse(Go, []byte(goSrc), nil, nil); err == nil || errors.Is(err, ErrNoTree) {
		t.Fatalf("Parse after Close: %v", err)
	}
}

// Nodes are listed as they are asked for: a parse lists the file's items
// and their children, a deeper node's children when first read.
func TestNodesListedOnDemand(t *testing.T) {
	p := NewParser()
	defer p.Close()
	tree, err := p.Parse(Go, []byte(goSrc), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	before := tree.Listed()
	body := tree.RootNode().NamedChild(2).ChildByFieldName("body")
	if tree.Listed() != before {
		t.Fatalf("reading a function's children listed %d more nodes", tree.Listed()-before)
	}
	ret := body.NamedChild(0)
	if ret == nil || ret.Type() != "return_statement" || ret.Parent() != body || tree.Listed() <= before {
		t.Fatalf("the body's first statement: %v (listed %d, then %d)", ret, before, tree.Listed())
	}
	var count func(n *Node) int
	count = func(n *Node) int {
		k := 1
		for i := 0; i < int(n.ChildCount()); i++ {
			k += count(n.Child(i))
		}
		return k
	}
	if full := count(tree.RootNode()); tree.Listed() != full {
		t.Fatalf("after reading every node, %d listed of %d", tree.Listed(), full)
	}
}

// After Edit a tree is only an old tree for Parse: its nodes not listed
// yet read as childless, and Err says why.
func TestNodesAfterEdit(t *testing.T) {
	p := NewParser()
	defer p.Close()
	tree, err := p.Parse(Go, []byte(goSrc), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	body := tree.RootNode().NamedChild(2).ChildByFieldName("body")
	tree.Edit(EditInput{})
	if body.Child(0) != nil || body.ChildCount() != 0 || !errors.Is(tree.Err(), ErrEdited) {
		t.Fatalf("after Edit: child %v, count %d, error %v", body.Child(0), body.ChildCount(), tree.Err())
	}
}
