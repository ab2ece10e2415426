package syntax

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Point is a position as tree-sitter counts it: a zero-based row and a
// byte column.
type Point struct {
	Row, Column uint32
}

// Range is a part of the source to parse (an included range): the same
// layout as tree-sitter's TSRange.
type Range struct {
	StartPoint, EndPoint Point
	StartByte, EndByte   uint32
}

// EditInput describes one edit of a tree's source, for an incremental
// parse: the edited span's start, its old end and its new end, as byte
// offsets and as points.
type EditInput struct {
	StartIndex, OldEndIndex, NewEndIndex uint32
	StartPoint, OldEndPoint, NewEndPoint Point
}

// Node flags, as the C walker writes them.
const (
	flagNamed    = 1
	flagHasError = 2
	flagMissing  = 4
	flagExtra    = 8
	flagExpanded = 16 // the children are listed
)

// recordSize is the size of one node record (csrc/syntax.c, ctxls_record),
// farSize of one far look-up (ctxls_far).
const (
	recordSize = 28
	farSize    = 12
)

// eagerDepth is how many levels below the root a parse lists at once:
// the items of a file and their children, which every walk reads. The
// rest is listed when asked for.
const eagerDepth = 2

// Nodes are kept in blocks of 1<<blockBits, so that a *Node stays valid
// while more of the tree is listed.
const (
	blockBits = 8
	blockSize = 1 << blockBits
)

// maxFreeBlocks is how many closed trees' blocks a Parser keeps for its
// next trees.
const maxFreeBlocks = 64

// walkOutput is what the C walker wrote: the tree's count node records,
// new ones from first on, and all its farCount far look-ups, in the
// engine's memory.
type walkOutput struct {
	records  []byte
	count    int
	first    int
	far      []byte
	farCount int
}

// farLookup is a look-up whose result is not a child of the node looked
// in (csrc/syntax.c, ctxls_far): tree-sitter follows a field it takes for
// inherited into a visible child where error recovery has left a
// production that does not match the children.
type farLookup struct {
	node, target int32
	bit          uint8
}

// ErrEdited is a Tree's error when its nodes were read after Edit: the
// edit makes tree-sitter's nodes stale, so the tree is then only an old
// tree for an incremental Parse.
var ErrEdited = errors.New("syntax: nodes read after the tree was edited")

// Tree is a parsed file: tree-sitter's syntax tree, whose nodes are read
// into Go values as they are first asked for, and a handle on
// tree-sitter's own tree for incremental parses. Close it when done; its
// nodes must not be used afterwards.
//
// A node's children are listed (one call into the engine) the first time
// they are asked for. If that fails (without cgo, a trap in the
// WebAssembly instance), the node reads as having no children and Err
// reports the failure: a caller that walked the tree checks Err before
// trusting what it saw.
type Tree struct {
	blocks [][]Node
	n      int // nodes listed
	far    []farLookup
	g      *grammar
	p      *Parser
	e      *engine // the engine holding h; nil once closed
	h      handle
	err    error
	edited bool
}

// Node is one node of a Tree. Its methods mirror tree-sitter's (and
// go-tree-sitter's) node API; a nil *Node stands for tree-sitter's null
// node.
type Node struct {
	t          *Tree
	start, end uint32
	first      uint32 // index of the first child, once expanded; children are contiguous
	count      uint32 // children
	namedCount uint32
	index      int32
	parent     int32  // -1 for the root
	lookup     uint16 // bit k: the parent's look-up of grammar.lookups[k] returns this node
	sym        uint16
	field      uint8
	flags      uint8
}

// node returns node i (it must be listed).
func (t *Tree) node(i uint32) *Node { return &t.blocks[i>>blockBits][i&(blockSize-1)] }

// add reads the engine's output into the tree: the records from w.first
// on are new nodes, and the node they are the children of (expanded, -1
// for a parse) is updated from its record. It checks that the records fit
// together (every child list after its parent and inside the records,
// every new node a child of a listed one), so that a malformed buffer is
// an error, not a panic later.
func (t *Tree) add(w walkOutput, expanded int) error {
	if w.count < w.first || w.first != t.n || len(w.records) != w.count*recordSize {
		return fmt.Errorf("syntax: %d bytes of node records for %d nodes, %d of them new, after %d", len(w.records), w.count, w.count-w.first, t.n)
	}
	le := binary.LittleEndian
	rec := func(i int) []byte { return w.records[i*recordSize : (i+1)*recordSize] }
	// Expanded nodes get their children's place from their record.
	setChildren := func(nd *Node, r []byte) error {
		nd.flags = r[3]
		nd.first = le.Uint32(r[16:])
		nd.count = le.Uint32(r[20:])
		if nd.flags&flagExpanded == 0 {
			return nil
		}
		if nd.count > 0 && (uint64(nd.first) <= uint64(nd.index) || uint64(nd.first)+uint64(nd.count) > uint64(w.count)) {
			return fmt.Errorf("syntax: node %d has children %d..%d of %d nodes", nd.index, nd.first, uint64(nd.first)+uint64(nd.count), w.count)
		}
		return nil
	}
	if expanded >= 0 {
		if expanded >= t.n {
			return fmt.Errorf("syntax: node %d expanded of %d", expanded, t.n)
		}
		if err := setChildren(t.node(uint32(expanded)), rec(expanded)); err != nil {
			return err
		}
	}
	for i := w.first; i < w.count; i++ {
		if i>>blockBits >= len(t.blocks) {
			t.blocks = append(t.blocks, t.p.block())
		}
		nd := t.node(uint32(i))
		r := rec(i)
		*nd = Node{
			t: t, index: int32(i), parent: -1,
			sym: le.Uint16(r[0:]), field: r[2], lookup: le.Uint16(r[4:]),
			start: le.Uint32(r[8:]), end: le.Uint32(r[12:]), namedCount: le.Uint32(r[24:]),
		}
		t.n = i + 1
		if err := setChildren(nd, r); err != nil {
			return err
		}
	}
	// Parents: the new nodes are the children of the expanded node and of
	// new nodes.
	setParent := func(i int) {
		nd := t.node(uint32(i))
		if nd.flags&flagExpanded == 0 {
			return
		}
		for c := nd.first; c < nd.first+nd.count; c++ {
			if int(c) >= w.first {
				t.node(c).parent = int32(i)
			}
		}
	}
	if expanded >= 0 {
		setParent(expanded)
	}
	for i := w.first; i < w.count; i++ {
		setParent(i)
	}
	for i := max(w.first, 1); i < w.count; i++ {
		if t.node(uint32(i)).parent < 0 {
			return fmt.Errorf("syntax: node %d has no parent in the records", i)
		}
	}
	if w.farCount == 0 {
		return nil
	}
	if len(w.far) != w.farCount*farSize {
		return fmt.Errorf("syntax: %d bytes of far look-ups for %d", len(w.far), w.farCount)
	}
	t.far = t.far[:0]
	for i := 0; i < w.farCount; i++ {
		r := w.far[i*farSize:]
		node, bit, target := le.Uint32(r), le.Uint32(r[4:]), le.Uint32(r[8:])
		if node >= uint32(w.count) || target >= uint32(w.count) || bit >= 16 {
			return fmt.Errorf("syntax: far look-up %d (node %d, field %d, result %d) is out of the tree", i, node, bit, target)
		}
		t.far = append(t.far, farLookup{node: int32(node), target: int32(target), bit: uint8(bit)})
	}
	return nil
}

// RootNode returns the tree's root.
func (t *Tree) RootNode() *Node { return t.node(0) }

// Err reports a failure to list nodes (see Tree) or a read after Edit.
func (t *Tree) Err() error { return t.err }

// Listed returns how many of the tree's nodes have been read into Go.
func (t *Tree) Listed() int { return t.n }

// Edit tells tree-sitter's tree about an edit of its source, before it is
// passed to Parse as the old tree. The tree's nodes must not be read
// after it (tree-sitter's own become stale); those not listed yet read as
// having no children, and Err says why.
func (t *Tree) Edit(e EditInput) {
	t.edited = true
	if t.e != nil {
		t.e.edit(t.h, e)
	}
}

// Close frees tree-sitter's tree; the Go nodes go back to the Parser for
// its next tree.
func (t *Tree) Close() {
	if t.e != nil {
		t.e.deleteTree(t.h)
		t.e = nil
	}
	if t.p != nil {
		for _, b := range t.blocks {
			if len(t.p.free) < maxFreeBlocks {
				t.p.free = append(t.p.free, b)
			}
		}
	}
	t.blocks, t.far, t.p, t.n = nil, nil, nil, 0
}

// kids returns n's children, listing them first if need be.
func (n *Node) kids() (first, count uint32) {
	if n.flags&flagExpanded == 0 && n.count > 0 {
		n.t.expand(n)
	}
	if n.flags&flagExpanded == 0 {
		return 0, 0
	}
	return n.first, n.count
}

// expand lists n's children.
func (t *Tree) expand(n *Node) {
	if t.err != nil {
		return
	}
	switch {
	case t.edited:
		t.err = ErrEdited
	case t.e == nil || t.p == nil:
		t.err = errors.New("syntax: nodes read after the tree was closed")
	case t.e != t.p.e:
		t.err = errors.New("syntax: nodes read after the parser's engine failed")
	}
	if t.err != nil {
		return
	}
	out, err := t.e.expand(t.h, uint32(n.index))
	if err == nil {
		err = t.add(out, int(n.index))
	}
	if err != nil {
		t.err = fmt.Errorf("syntax: list the children of a %s: %w", n.Type(), err)
		t.p.fail()
		n.flags &^= flagExpanded
	}
}

// Type returns the node's type (tree-sitter's ts_node_type): a grammar
// rule or, for anonymous nodes, the token's text; "ERROR" for an error.
func (n *Node) Type() string {
	if s := n.t.g.symbols; int(n.sym) < len(s) {
		return s[n.sym]
	}
	switch n.sym {
	case 0xFFFF:
		return "ERROR"
	case 0xFFFE:
		return "_ERROR"
	}
	return ""
}

// Symbol returns the node's numeric type in its grammar.
func (n *Node) Symbol() uint16 { return n.sym }

// StartByte returns the offset of the node's first byte.
func (n *Node) StartByte() uint32 { return n.start }

// EndByte returns the offset just past the node's last byte.
func (n *Node) EndByte() uint32 { return n.end }

// IsNamed reports whether the node is a named rule (not an anonymous
// token such as "{").
func (n *Node) IsNamed() bool { return n.flags&flagNamed != 0 }

// IsMissing reports a node the parser inserted to recover from an error.
func (n *Node) IsMissing() bool { return n.flags&flagMissing != 0 }

// IsExtra reports a node the grammar allows anywhere (comments).
func (n *Node) IsExtra() bool { return n.flags&flagExtra != 0 }

// IsError reports an ERROR node.
func (n *Node) IsError() bool { return n.sym == 0xFFFF }

// HasError reports whether the node is or contains a syntax error.
func (n *Node) HasError() bool { return n.flags&flagHasError != 0 }

// ChildCount returns the number of children, named and anonymous.
func (n *Node) ChildCount() uint32 {
	if n.flags&flagExpanded == 0 && n.t.err != nil {
		return 0
	}
	return n.count
}

// NamedChildCount returns the number of named children.
func (n *Node) NamedChildCount() uint32 {
	if n.flags&flagExpanded == 0 && n.t.err != nil {
		return 0
	}
	return n.namedCount
}

// Child returns the i-th child, or nil.
func (n *Node) Child(i int) *Node {
	first, count := n.kids()
	if i < 0 || uint32(i) >= count {
		return nil
	}
	return n.t.node(first + uint32(i))
}

// NamedChild returns the i-th named child, or nil.
func (n *Node) NamedChild(i int) *Node {
	first, count := n.kids()
	if i < 0 || uint32(i) >= n.namedCount {
		return nil
	}
	for c := first; c < first+count; c++ {
		if k := n.t.node(c); k.flags&flagNamed != 0 {
			if i == 0 {
				return k
			}
			i--
		}
	}
	return nil
}

// ChildByFieldName returns the child in the field name, or nil: for the
// fields the chunker asks for (LookupFields), what tree-sitter's
// ts_node_child_by_field_name returns, which the C walker records; for
// any other field, the first child FieldName names it for (the same child
// but in trees where error recovery leaves a field on a hidden rule).
func (n *Node) ChildByFieldName(name string) *Node {
	first, count := n.kids()
	if k, ok := n.t.g.lookup[name]; ok {
		bit := uint16(1) << k
		for c := first; c < first+count; c++ {
			if kid := n.t.node(c); kid.lookup&bit != 0 {
				return kid
			}
		}
		for _, f := range n.t.far {
			if f.node == n.index && int(f.bit) == k {
				return n.t.node(uint32(f.target))
			}
		}
		return nil
	}
	id, ok := n.t.g.fieldID[name]
	if !ok {
		return nil
	}
	for c := first; c < first+count; c++ {
		if kid := n.t.node(c); kid.field == id {
			return kid
		}
	}
	return nil
}

// LookupFields lists the fields whose ChildByFieldName is tree-sitter's
// own look-up (csrc/syntax.c, ctxls_lookup_fields).
func (p *Parser) LookupFields(lang Lang) ([]string, error) {
	g, err := p.grammarFor(lang)
	if err != nil {
		return nil, err
	}
	return append([]string(nil), g.lookups...), nil
}

// FieldName returns the name of the field the node is in within its
// parent ("" for none): what tree-sitter's tree cursor reports for it.
func (n *Node) FieldName() string {
	if f := n.t.g.fields; int(n.field) < len(f) {
		return f[n.field]
	}
	return ""
}

// Parent returns the node's parent, or nil for the root.
func (n *Node) Parent() *Node {
	if n.parent < 0 {
		return nil
	}
	return n.t.node(uint32(n.parent))
}
