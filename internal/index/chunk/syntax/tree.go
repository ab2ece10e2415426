package syntax

import (
	"encoding/binary"
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
)

// recordSize is the size of one node record (csrc/syntax.c, ctxls_record),
// farSize of one far look-up (ctxls_far).
const (
	recordSize = 24
	farSize    = 12
)

// walkOutput is what the C walker wrote for a tree: count node records
// and farCount far look-ups, in the engine's memory.
type walkOutput struct {
	records  []byte
	count    int
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

// Tree is a parsed file: every node of tree-sitter's syntax tree, as Go
// values, and a handle on tree-sitter's own tree for incremental parses.
// Close it when done; its nodes must not be used afterwards.
type Tree struct {
	nodes []Node
	far   []farLookup
	g     *grammar
	p     *Parser
	e     *engine // the engine holding h; nil once closed
	h     handle
}

// Node is one node of a Tree. Its methods mirror tree-sitter's (and
// go-tree-sitter's) node API; a nil *Node stands for tree-sitter's null
// node.
type Node struct {
	t          *Tree
	start, end uint32
	first      uint32 // index of the first child; children are contiguous
	count      uint32 // children
	namedCount uint32
	parent     int32  // -1 for the root
	lookup     uint16 // bit k: the parent's look-up of grammar.lookups[k] returns this node
	sym        uint16
	field      uint8
	flags      uint8
}

// decode turns the C walker's output into t's nodes, reusing dst's
// storage. It checks that every child list lies after its parent and
// inside the records, so that a malformed buffer is an error, not a panic
// later.
func decode(t *Tree, w walkOutput, dst []Node) error {
	var err error
	if t.nodes, err = decodeNodes(t, w.records, w.count, dst); err != nil {
		return err
	}
	if w.farCount == 0 {
		return nil
	}
	if len(w.far) != w.farCount*farSize {
		return fmt.Errorf("syntax: %d bytes of far look-ups for %d", len(w.far), w.farCount)
	}
	le := binary.LittleEndian
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

// decodeNodes decodes n node records.
func decodeNodes(t *Tree, recs []byte, n int, dst []Node) ([]Node, error) {
	if n <= 0 || len(recs) != n*recordSize {
		return nil, fmt.Errorf("syntax: %d bytes of node records for %d nodes", len(recs), n)
	}
	if cap(dst) < n {
		dst = make([]Node, n)
	}
	dst = dst[:n]
	le := binary.LittleEndian
	dst[0].parent = -1
	for i := 0; i < n; i++ {
		r := recs[i*recordSize : (i+1)*recordSize]
		nd := &dst[i]
		nd.t = t
		nd.sym = le.Uint16(r[0:])
		nd.field = r[2]
		nd.flags = r[3]
		nd.lookup = le.Uint16(r[4:])
		nd.start = le.Uint32(r[8:])
		nd.end = le.Uint32(r[12:])
		nd.first = le.Uint32(r[16:])
		nd.count = le.Uint32(r[20:])
		nd.namedCount = 0
		if i > 0 {
			// The parent, decoded before (records are breadth-first), set
			// this node's parent index; a stale index left in dst by its
			// last use passes only if that node's children, as decoded
			// now, include this one.
			p := nd.parent
			if p < 0 || int(p) >= i || dst[p].first > uint32(i) || dst[p].first+dst[p].count <= uint32(i) {
				return nil, fmt.Errorf("syntax: node %d has no parent in the records", i)
			}
			if nd.flags&flagNamed != 0 {
				dst[p].namedCount++
			}
		}
		if nd.count == 0 {
			continue
		}
		if uint64(nd.first) <= uint64(i) || uint64(nd.first)+uint64(nd.count) > uint64(n) {
			return nil, fmt.Errorf("syntax: node %d has children %d..%d of %d nodes", i, nd.first, uint64(nd.first)+uint64(nd.count), n)
		}
		for c := nd.first; c < nd.first+nd.count; c++ {
			dst[c].parent = int32(i)
		}
	}
	return dst, nil
}

// RootNode returns the tree's root.
func (t *Tree) RootNode() *Node { return &t.nodes[0] }

// NodeCount returns how many nodes the tree has.
func (t *Tree) NodeCount() int { return len(t.nodes) }

// Edit tells tree-sitter's tree about an edit of its source, before it is
// passed to Parse as the old tree. The tree's Go nodes are not changed.
func (t *Tree) Edit(e EditInput) {
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
	if t.p != nil && cap(t.nodes) > cap(t.p.spare) {
		t.p.spare = t.nodes[:0]
	}
	t.nodes, t.far, t.p = nil, nil, nil
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
func (n *Node) ChildCount() uint32 { return n.count }

// NamedChildCount returns the number of named children.
func (n *Node) NamedChildCount() uint32 { return n.namedCount }

// Child returns the i-th child, or nil.
func (n *Node) Child(i int) *Node {
	if i < 0 || uint32(i) >= n.count {
		return nil
	}
	return &n.t.nodes[n.first+uint32(i)]
}

// NamedChild returns the i-th named child, or nil.
func (n *Node) NamedChild(i int) *Node {
	if i < 0 || uint32(i) >= n.namedCount {
		return nil
	}
	kids := n.t.nodes[n.first : n.first+n.count]
	for k := range kids {
		if kids[k].flags&flagNamed != 0 {
			if i == 0 {
				return &kids[k]
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
	kids := n.t.nodes[n.first : n.first+n.count]
	if k, ok := n.t.g.lookup[name]; ok {
		bit := uint16(1) << k
		for i := range kids {
			if kids[i].lookup&bit != 0 {
				return &kids[i]
			}
		}
		if len(n.t.far) > 0 {
			self := n.index()
			for _, f := range n.t.far {
				if f.node == self && int(f.bit) == k {
					return &n.t.nodes[f.target]
				}
			}
		}
		return nil
	}
	id, ok := n.t.g.fieldID[name]
	if !ok {
		return nil
	}
	for i := range kids {
		if kids[i].field == id {
			return &kids[i]
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

// index returns the node's index in its tree.
func (n *Node) index() int32 {
	if n.parent < 0 {
		return 0
	}
	p := &n.t.nodes[n.parent]
	for i := p.first; i < p.first+p.count; i++ {
		if &n.t.nodes[i] == n {
			return int32(i)
		}
	}
	return -1
}

// Parent returns the node's parent, or nil for the root.
func (n *Node) Parent() *Node {
	if n.parent < 0 {
		return nil
	}
	return &n.t.nodes[n.parent]
}
