package chunk

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctxls/ctxls/internal/index/chunk/syntax"
)

// minCommentLines is how long a run of comments outside any unit must be
// to get a chunk of its own whatever it says; a shorter one gets a chunk
// when it holds a word (hasWord: a note, a marker a search must find),
// not when it is a separator of punctuation ("// ---", "# ====").
const minCommentLines = 3

// hasWord reports whether b holds a run of at least three letters: a
// comment that says something, not a separator.
func hasWord(b []byte) bool {
	n := 0
	for _, r := range string(b) {
		if unicode.IsLetter(r) {
			if n++; n >= 3 {
				return true
			}
		} else {
			n = 0
		}
	}
	return false
}

// maxNesting bounds recursion into scopes and containers, so that
// pathological inputs cannot exhaust the stack.
const maxNesting = 64

// nameAt is a declared name and where it is declared.
type nameAt struct {
	name string
	pos  int
}

// kid is one child of a unit's body: a statement, a member, a comment. A
// skip kid is a nested unit with chunks of its own.
type kid struct {
	start, end int
	skip       bool
	comment    bool
}

// span is a half-open byte range.
type span struct{ start, end int }

// unit is a declaration found in the tree, before it becomes chunks.
type unit struct {
	kind       Kind
	name       string
	qual       string
	prefix     string // qualifies members: "Server" makes "Server.handle"
	start, end int    // the whole unit, doc comment and attributes included
	sig        string
	sigEndLine int
	headEnd    int // end of the declaration's first part: doc, signature, opening line
	doc        string
	docLine    int
	defs       []nameAt // names the unit defines besides its own
	kids       []kid
}

// walker turns one parsed file into chunks. It reads nodes only while the
// tree is open and keeps nothing that points into it.
type walker struct {
	opts   Options
	spec   *langSpec
	src    []byte
	li     *lineIndex
	pkg    string
	out    []Chunk
	units  int  // units emitted (the header and windows excluded)
	header bool // a header chunk was emitted
	depth  int
}

// str returns the trimmed text of n as a valid UTF-8 Go string.
func (w *walker) str(n *syntax.Node) string {
	return cleanString(text(n, w.src))
}

// cleanString copies b into a trimmed, valid UTF-8 string.
func cleanString(b []byte) string {
	b = bytes.TrimSpace(b)
	if !utf8.Valid(b) {
		return string(bytes.ToValidUTF8(b, []byte("\uFFFD")))
	}
	return string(b)
}

// run chunks the file whose syntax tree root is root.
func (w *walker) run(root *syntax.Node) {
	items := w.items(root, nil, false)
	spec := w.spec
	if spec.pkgQualify {
		for _, n := range items {
			if n.Type() == "package_clause" && n.NamedChildCount() > 0 {
				w.pkg = w.str(n.NamedChild(0))
				break
			}
		}
	}

	// The header: the leading run of header items (and the comments among
	// them), from the start of the file, as long as it fits in MaxLines.
	hs, _ := trimRange(w.src, 0, len(w.src))
	hdrEnd, next := -1, 0
	var defs []nameAt
	for i, n := range items {
		typ := n.Type()
		if spec.comments[typ] {
			continue
		}
		p, ok := spec.header[typ]
		if !ok || (p != nil && !p(n, w.src)) {
			break
		}
		e := int(n.EndByte())
		if w.li.span(hs, e) > w.opts.MaxLines {
			// Leading comments too long to share a chunk with the first
			// header item (a package doc of hundreds of lines) become
			// windows of their own; the header starts at the item.
			s := int(n.StartByte())
			if hdrEnd >= 0 || w.li.span(s, e) > w.opts.MaxLines {
				break
			}
			for _, win := range w.windowRanges(hs, s) {
				w.out = append(w.out, Chunk{Kind: KindWindow, StartByte: win.start, EndByte: win.end})
			}
			hs = s
		}
		hdrEnd, next = e, i+1
		defs = append(defs, w.varNames(n)...)
	}
	if hdrEnd < 0 {
		// No header items: leading comments that are not the doc of the
		// first declaration (a licence, a file comment) form the header.
		first := len(items)
		for i, n := range items {
			if !spec.comments[n.Type()] {
				first = i
				break
			}
		}
		limit := len(w.src)
		if first < len(items) {
			limit, _, _ = w.docAbove(int(items[first].StartByte()), -1)
		}
		for i := 0; i < first; i++ {
			e := int(items[i].EndByte())
			if e > limit || w.li.span(hs, e) > w.opts.MaxLines {
				break
			}
			hdrEnd, next = e, i+1
		}
	}
	if hdrEnd > hs {
		w.header = true
		w.out = append(w.out, Chunk{
			Kind:      KindHeader,
			StartByte: hs, EndByte: hdrEnd,
			Defines: namesOf(defs),
		})
	}
	w.sequence(items[next:], hdrEnd, nil)
}

// varNames returns the names a header item declares (constants).
func (w *walker) varNames(n *syntax.Node) []nameAt {
	if _, ok := w.spec.vars[n.Type()]; ok {
		return w.names(n, nil, 0)
	}
	if _, ok := w.spec.wrappers[n.Type()]; ok {
		var out []nameAt
		for i := 0; i < int(n.NamedChildCount()); i++ {
			ch := n.NamedChild(i)
			if _, ok := w.spec.vars[ch.Type()]; ok {
				out = w.names(ch, out, 0)
			}
		}
		return out
	}
	return nil
}

// items lists the named children of parent, expanding scopes (namespaces,
// preprocessor conditionals, …) into their own items. With ownChildren the
// parent is itself such a scope and its name/condition children are not
// items.
func (w *walker) items(parent *syntax.Node, out []*syntax.Node, ownChildren bool) []*syntax.Node {
	if w.depth > maxNesting {
		return out
	}
	w.depth++
	defer func() { w.depth-- }()
	for i := 0; i < int(parent.ChildCount()); i++ {
		ch := parent.Child(i)
		if !ch.IsNamed() {
			continue
		}
		if ownChildren {
			if f := ch.FieldName(); f == "name" || f == "condition" {
				continue
			}
		}
		if body, own := w.scopeBody(ch); body != nil {
			out = w.items(body, out, own)
			continue
		}
		if _, ok := w.spec.wrappers[ch.Type()]; ok && len(w.spec.scopes) > 0 {
			// export namespace N { … }, declare module "m" { … }
			expanded := false
			for j := 0; j < int(ch.NamedChildCount()); j++ {
				if body, own := w.scopeBody(ch.NamedChild(j)); body != nil {
					out = w.items(body, out, own)
					expanded = true
				}
			}
			if expanded {
				continue
			}
		}
		out = append(out, ch)
	}
	return out
}

// scopeBody returns the node holding a scope's items, or nil if n is not a
// scope (or is a scope declaration without a body, like Rust's `mod m;`).
// ERROR nodes count as scopes.
func (w *walker) scopeBody(n *syntax.Node) (body *syntax.Node, ownChildren bool) {
	typ := n.Type()
	if typ == "ERROR" {
		// Error recovery may wrap well-formed declarations in an ERROR
		// node; look inside it for them.
		return n, true
	}
	field, ok := w.spec.scopes[typ]
	if !ok {
		if w.spec.iife && typ == "expression_statement" {
			return w.iifeBody(n), false
		}
		return nil, false
	}
	if field == "" {
		return n, true
	}
	return n.ChildByFieldName(field), false
}

// iifeBody is the body of the function an expression statement calls in
// place, or nil if the statement is anything else.
func (w *walker) iifeBody(stmt *syntax.Node) *syntax.Node {
	if stmt.NamedChildCount() != 1 {
		return nil
	}
	e := stmt.NamedChild(0)
	for {
		switch e.Type() {
		case "parenthesized_expression", "unary_expression":
			if e.NamedChildCount() != 1 {
				return nil
			}
			e = e.NamedChild(0)
			continue
		}
		break
	}
	if e.Type() != "call_expression" {
		return nil
	}
	fn := e.ChildByFieldName("function")
	if fn != nil && fn.Type() == "member_expression" {
		// (function () { … }).call(this)
		if p := fn.ChildByFieldName("property"); p == nil || w.str(p) != "call" && w.str(p) != "apply" {
			return nil
		}
		fn = fn.ChildByFieldName("object")
	}
	for fn != nil && fn.Type() == "parenthesized_expression" && fn.NamedChildCount() == 1 {
		fn = fn.NamedChild(0)
	}
	if fn == nil {
		return nil
	}
	switch fn.Type() {
	case "function", "function_expression", "arrow_function":
	default:
		return nil
	}
	body := fn.ChildByFieldName("body")
	if body == nil || body.Type() != "statement_block" {
		return nil
	}
	// Only a body that declares something is a scope: one that just runs
	// statements stays a window, wrapper lines and all.
	for i := range int(body.NamedChildCount()) {
		typ := body.NamedChild(i).Type()
		if _, ok := w.spec.units[typ]; ok {
			return body
		}
		if _, ok := w.spec.vars[typ]; ok {
			return body
		}
	}
	return nil
}

// ruleFor returns how n declares a unit; member says n sits in a class-like
// body, where variables are fields rather than units.
func (w *walker) ruleFor(n *syntax.Node, typ string, member bool) (unitRule, bool) {
	if r, ok := w.spec.units[typ]; ok {
		if (r.when == nil || r.when(n, w.src)) && (!r.needBody || w.bodyOf(r, n) != nil) && !(r.topLevel && member) {
			return r, true
		}
	}
	if !member {
		if p, ok := w.spec.vars[typ]; ok && (p == nil || p(n, w.src)) {
			return unitRule{kind: KindVar, body: selfBody}, true
		}
	}
	return unitRule{}, false
}

// bodyOf returns the node holding n's members or statements.
func (w *walker) bodyOf(r unitRule, n *syntax.Node) *syntax.Node {
	if r.body != nil {
		return r.body(n)
	}
	return n.ChildByFieldName("body")
}

// sequence processes the items of one level: the file's top level
// (parent == nil) or a container's body. lower is where the previous
// sibling ended: no doc comment reaches above it.
func (w *walker) sequence(items []*syntax.Node, lower int, parent *unit) {
	var run []kid // top level: pending items that are no unit
	add := func(k kid) {
		if parent != nil {
			parent.kids = append(parent.kids, k)
		} else {
			run = append(run, k)
		}
	}
	prevEnd := lower
	for _, n := range items {
		s, e := int(n.StartByte()), int(n.EndByte())
		if e <= s {
			continue // a MISSING node inserted by error recovery
		}
		typ := n.Type()
		if w.spec.comments[typ] {
			add(kid{start: s, end: e, comment: true})
			continue
		}
		us := w.declare(n, prevEnd, parent)
		if len(us) == 0 {
			if parent != nil && w.spec.fields[typ] {
				parent.defs = w.names(n, parent.defs, 0)
			}
			add(kid{start: s, end: e})
		}
		for _, u := range us {
			if parent != nil {
				parent.kids = dropFrom(parent.kids, u.start)
				parent.kids = append(parent.kids, kid{start: u.start, end: u.end, skip: true})
				if u.name != "" {
					parent.defs = append(parent.defs, nameAt{u.name, u.start})
				}
			} else {
				w.leftovers(dropFrom(run, u.start))
				run = run[:0]
			}
		}
		prevEnd = e
	}
	if parent == nil {
		w.leftovers(run)
	}
}

// dropFrom removes the trailing kids that start at or after pos (comments
// that turned out to be the doc of the unit starting at pos).
func dropFrom(kids []kid, pos int) []kid {
	for len(kids) > 0 && kids[len(kids)-1].start >= pos {
		kids = kids[:len(kids)-1]
	}
	return kids
}

// declare turns n into units if it declares any, emitting their chunks.
func (w *walker) declare(n *syntax.Node, lower int, parent *unit) []*unit {
	typ := n.Type()
	member := parent != nil
	if sigOuter, ok := w.spec.wrappers[typ]; ok {
		in := w.unwrap(n, member, nil, 0)
		switch len(in) {
		case 0:
			return nil
		case 1:
			return []*unit{w.unit(in[0].n, n, sigOuter, in[0].r, lower, parent)}
		}
		us := make([]*unit, 0, len(in))
		for _, x := range in {
			us = append(us, w.unit(x.n, x.n, true, x.r, lower, parent))
			lower = int(x.n.EndByte())
		}
		return us
	}
	if r, ok := w.ruleFor(n, typ, member); ok {
		return []*unit{w.unit(n, n, true, r, lower, parent)}
	}
	return nil
}

// inner is a declaration found inside a wrapper, with its rule.
type inner struct {
	n *syntax.Node
	r unitRule
}

// unwrap finds the declarations inside wrapper n, looking through nested
// wrappers (module.exports = class … is a statement wrapping an assignment
// wrapping a class).
func (w *walker) unwrap(n *syntax.Node, member bool, out []inner, depth int) []inner {
	if depth > 4 {
		return out
	}
	w.children(n, func(ch *syntax.Node) {
		typ := ch.Type()
		if r, ok := w.ruleFor(ch, typ, member); ok {
			out = append(out, inner{ch, r})
		} else if _, ok := w.spec.wrappers[typ]; ok {
			out = w.unwrap(ch, member, out, depth+1)
		}
	})
	return out
}

// unit builds the unit declared by n (wrapped in outer, possibly n itself),
// walks its members and emits its chunks.
func (w *walker) unit(n, outer *syntax.Node, sigOuter bool, r unitRule, lower int, parent *unit) *unit {
	src := w.src
	s, e := int(outer.StartByte()), int(outer.EndByte())

	kind := r.kind
	if r.kindOf != nil {
		kind = r.kindOf(n)
	}
	if r.fn && parent != nil {
		kind = KindMethod
	}

	var name, owner string
	var declared []nameAt
	var nm *syntax.Node
	if r.name != nil {
		name, owner = r.name(n, src)
		name = cleanString([]byte(name))
	} else if nm = n.ChildByFieldName("name"); kind != KindVar && nm != nil && identTypes[nm.Type()] {
		name = strings.TrimLeft(w.str(nm), "$#")
	} else {
		declared = w.names(n, nil, 0)
		if len(declared) > 0 {
			name = declared[0].name
		} else if nm != nil && nm.EndByte()-nm.StartByte() <= 80 && bytes.IndexByte(text(nm, w.src), '\n') < 0 {
			name = w.str(nm) // a computed name: [Symbol.iterator]
		}
	}

	if r.fn && owner != "" {
		kind = KindMethod
	}
	qual := name
	switch {
	case name == "":
	case owner != "":
		qual = owner + "." + name
	case parent != nil && parent.prefix != "":
		qual = parent.prefix + "." + name
	case parent == nil && w.spec.pkgQualify && w.pkg != "":
		qual = w.pkg + "." + name
	}
	prefix := qual
	if r.qual != nil && name != "" {
		qual = r.qual(n, src, name)
		prefix = name
	}

	body := w.bodyOf(r, n)
	start, doc, docLine := w.docAbove(s, lower)
	if w.spec.docstring && body != nil {
		if d, l, ok := w.docstring(body); ok {
			doc, docLine = d, l
		}
	}

	sigNode := outer
	if !sigOuter {
		sigNode = n
	}
	sigStart := w.afterDecorators(sigNode)
	sig, sigEnd := w.signature(n, body, sigStart, e)

	u := &unit{
		kind: kind, name: name, qual: qual, prefix: prefix,
		start: start, end: e,
		sig: sig, sigEndLine: w.li.lastLine(sigStart, sigEnd),
		doc: doc, docLine: docLine,
	}
	u.headEnd = w.li.end(w.li.lastLine(sigStart, sigEnd))
	if u.headEnd > e {
		u.headEnd = e
	}
	if u.headEnd < sigEnd {
		u.headEnd = sigEnd
	}
	if kind == KindVar && len(declared) > 1 {
		u.defs = append(u.defs, declared[1:]...)
	}

	if body != nil && w.depth <= maxNesting {
		w.depth++
		switch {
		case r.container || r.containerOf != nil && r.containerOf(n):
			w.sequence(w.items(body, nil, false), sigEnd, u)
		case w.li.span(start, e) > w.opts.MaxLines:
			// Statements are needed only to split a unit that is too long.
			w.children(body, func(ch *syntax.Node) {
				u.kids = append(u.kids, kid{
					start: int(ch.StartByte()), end: int(ch.EndByte()),
					comment: w.spec.comments[ch.Type()],
				})
			})
		}
		w.depth--
	}
	if len(u.kids) > 0 && u.kids[0].start < u.headEnd && u.kids[0].start >= sigEnd {
		u.headEnd = u.kids[0].start
	}
	w.emit(u)
	return u
}

// signature returns the declaration text up to where the body opens, with
// the opening brace or colon removed, and the offset where it ends. Units
// without a body (or whose body is the unit itself) get their first line.
func (w *walker) signature(n, body *syntax.Node, sigStart, end int) (string, int) {
	src := w.src
	cut := -1
	self := body != nil && body.StartByte() == n.StartByte() && body.EndByte() == n.EndByte()
	if body != nil && !self && int(body.StartByte()) > sigStart {
		cut = int(body.StartByte())
		// A body opened by a keyword ("interface {"): cut at its brace.
		if ch := body.Child(0); ch != nil && !ch.IsNamed() && ch.Type() != "{" {
			for i := 1; i < int(body.ChildCount()) && i < 4; i++ {
				if c := body.Child(i); c.Type() == "{" {
					cut = int(c.StartByte())
					break
				}
			}
		}
	}
	if cut < 0 || cut > end {
		cut = w.li.end(w.li.lineOf(sigStart))
		if cut > end {
			cut = end
		}
	}
	if cut < sigStart {
		cut = sigStart
	}
	b := bytes.TrimRight(src[sigStart:cut], " \t\r\n\v\f")
	// Comment lines between the declaration and its body (Ruby puts a
	// member's doc comment before the body) are not the signature.
	for {
		i := bytes.LastIndexByte(b, '\n')
		if i < 0 || !w.commentLine(bytes.TrimSpace(b[i+1:])) {
			break
		}
		b = bytes.TrimRight(b[:i], " \t\r\n\v\f")
	}
	for len(b) > 0 && (b[len(b)-1] == '{' || b[len(b)-1] == ':') {
		b = bytes.TrimRight(b[:len(b)-1], " \t\r\n\v\f")
	}
	if len(b) == 0 {
		b = bytes.TrimRight(src[sigStart:max(sigStart, min(end, w.li.end(w.li.lineOf(sigStart))))], " \t\r\n\v\f")
	}
	sigEnd := sigStart + len(b)
	if len(b) > maxSignature {
		// Minified code and giant initializers: keep a readable prefix.
		cut := maxSignature
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut--
		}
		return cleanString(b[:cut]) + "…", sigEnd
	}
	return cleanString(b), sigEnd
}

// maxSignature is the most bytes of declaration text kept as Signature.
const maxSignature = 400

// decoratorTypes are the nodes of decorators, annotations and attributes
// that lead a declaration; the signature starts after them.
var decoratorTypes = set("decorator", "annotation", "marker_annotation", "attribute_list", "attribute_item")

// afterDecorators returns where n's signature starts: its start, or the
// first token after its leading decorators, annotations and attributes
// (also those among Java's modifiers).
func (w *walker) afterDecorators(n *syntax.Node) int {
	start := int(n.StartByte())
	skipped := false
	for i := 0; i < int(n.ChildCount()); i++ {
		ch := n.Child(i)
		t := ch.Type()
		if decoratorTypes[t] {
			start, skipped = int(ch.EndByte()), true
			continue
		}
		if t == "modifiers" {
			all := true
			w.children(ch, func(m *syntax.Node) {
				if all && decoratorTypes[m.Type()] {
					start, skipped = int(m.EndByte()), true
				} else {
					all = false
				}
			})
			if all {
				continue
			}
		}
		break
	}
	if skipped {
		for start < int(n.EndByte()) && isSpace(w.src[start]) {
			start++
		}
	}
	return start
}

// docAbove finds the comment block (and attributes) directly above the
// unit starting at s, not reaching above lower. It returns the unit's new
// start, the doc text (comment lines, each trimmed) and its first line.
func (w *walker) docAbove(s, lower int) (int, string, int) {
	li, src := w.li, w.src
	L := li.lineOf(s)
	if !blank(src[li.start(L):s]) {
		return s, "", 0
	}
	minLine := 1
	if lower > 0 {
		minLine = li.lineOf(lower-1) + 1
	}
	top, first, last := L, 0, 0
	isComment := w.lineComment
scan:
	for l := L - 1; l >= minLine; l-- {
		t := bytes.TrimSpace(li.text(l))
		switch {
		case len(t) == 0:
			break scan
		case isComment(t):
			top, first = l, l
			if last == 0 {
				last = l
			}
		case w.spec.attrPrefix != "" && bytes.HasPrefix(t, []byte(w.spec.attrPrefix)):
			top = l
		case w.spec.lex.slashComments && bytes.HasSuffix(t, []byte("*/")):
			k := l
			for ; k >= minLine; k-- {
				tk := bytes.TrimSpace(li.text(k))
				if i := bytes.Index(tk, []byte("/*")); i >= 0 {
					if i != 0 {
						break scan
					}
					break
				}
			}
			if k < minLine {
				break scan
			}
			top, first = k, k
			if last == 0 {
				last = l
			}
			l = k
		default:
			break scan
		}
	}
	if top == L {
		return s, "", 0
	}
	start, _ := trimRange(src, li.start(top), s)
	if first == 0 {
		return start, "", 0
	}
	var doc []byte
	for l := first; l <= last; l++ {
		t := bytes.TrimSpace(li.text(l))
		if w.spec.attrPrefix != "" && bytes.HasPrefix(t, []byte(w.spec.attrPrefix)) {
			continue
		}
		if len(doc) > 0 {
			doc = append(doc, '\n')
		}
		doc = append(doc, t...)
	}
	return start, cleanString(doc), first
}

// lineComment reports whether the trimmed line t is a line comment.
func (w *walker) lineComment(t []byte) bool {
	return (w.spec.lex.slashComments && bytes.HasPrefix(t, []byte("//"))) ||
		(w.spec.lex.hashComments && bytes.HasPrefix(t, []byte("#")))
}

// commentLine reports whether the trimmed line t is a whole comment line:
// a line comment, or a line of a block comment.
func (w *walker) commentLine(t []byte) bool {
	if w.lineComment(t) {
		return true
	}
	return w.spec.lex.slashComments && (bytes.HasPrefix(t, []byte("/*")) || bytes.Equal(t, []byte("*")) ||
		bytes.HasPrefix(t, []byte("* ")) || bytes.HasPrefix(t, []byte("*/")))
}

// docstring returns a Python docstring: a string first in the body.
func (w *walker) docstring(body *syntax.Node) (string, int, bool) {
	for i := 0; i < int(body.NamedChildCount()); i++ {
		ch := body.NamedChild(i)
		if w.spec.comments[ch.Type()] {
			continue
		}
		if ch.Type() == "expression_statement" && ch.NamedChildCount() == 1 && ch.NamedChild(0).Type() == "string" {
			return w.str(ch), w.li.lineOf(int(ch.StartByte())), true
		}
		return "", 0, false
	}
	return "", 0, false
}

// identTypes are the node types that hold a plain name.
var identTypes = set("identifier", "field_identifier", "type_identifier", "property_identifier",
	"constant", "name", "shorthand_property_identifier", "shorthand_property_identifier_pattern",
	"private_property_identifier", "destructor_name", "operator_name", "package_identifier",
	"namespace_identifier", "simple_identifier")

// names collects the names n declares: through its name, declarator, left
// and property fields and through the spec nodes of its language.
func (w *walker) names(n *syntax.Node, out []nameAt, depth int) []nameAt {
	if depth > 8 {
		return out
	}
	if identTypes[n.Type()] {
		if s := strings.TrimLeft(w.str(n), "$#"); s != "" {
			out = append(out, nameAt{s, int(n.StartByte())})
		}
		return out
	}
	found := false
	for i := 0; i < int(n.ChildCount()); i++ {
		ch := n.Child(i)
		// The field name first: children in other fields (types, values)
		// are never looked at.
		switch ch.FieldName() {
		case "name", "declarator", "left", "property":
			if ch.IsNamed() {
				out = w.names(ch, out, depth+1)
				found = true
			}
		case "":
			if ch.IsNamed() && w.spec.specs[ch.Type()] {
				out = w.names(ch, out, depth+1)
				found = true
			}
		}
	}
	if !found && depth > 0 && w.spec.specs[n.Type()] {
		w.children(n, func(ch *syntax.Node) {
			if identTypes[ch.Type()] {
				out = w.names(ch, out, depth+1)
			}
		})
	}
	return out
}

// children calls f for each named child of n, in order.
func (w *walker) children(n *syntax.Node, f func(ch *syntax.Node)) {
	for i := 0; i < int(n.ChildCount()); i++ {
		if ch := n.Child(i); ch.IsNamed() {
			f(ch)
		}
	}
}

// namesOf returns the names of ns.
func namesOf(ns []nameAt) []string {
	if len(ns) == 0 {
		return nil
	}
	out := make([]string, 0, len(ns))
	for _, n := range ns {
		out = append(out, n.name)
	}
	return out
}

// emit appends the chunks of u: the whole unit if it fits in MaxLines,
// otherwise its parts.
func (w *walker) emit(u *unit) {
	w.units++
	if w.li.span(u.start, u.end) <= w.opts.MaxLines {
		w.out = append(w.out, w.unitChunk(u, u.start, u.end, 0, true))
		return
	}
	part := 0
	for _, p := range w.group(u.kids, u.start, u.headEnd, u.end) {
		first := p.start == u.start
		if w.li.span(p.start, p.end) <= w.opts.MaxLines {
			part++
			w.out = append(w.out, w.unitChunk(u, p.start, p.end, part, first))
			continue
		}
		for i, win := range w.windowRanges(p.start, p.end) {
			part++
			w.out = append(w.out, w.unitChunk(u, win.start, win.end, part, first && i == 0))
		}
	}
}

// unitChunk makes the chunk for [s, e) of u; first says it holds the
// unit's start (and so its signature and doc).
func (w *walker) unitChunk(u *unit, s, e, part int, first bool) Chunk {
	s, e = trimRange(w.src, s, e)
	c := Chunk{
		Kind: u.kind, StartByte: s, EndByte: e,
		Symbol: u.name, QualifiedName: u.qual, Signature: u.sig,
		Part: part,
	}
	if u.name != "" {
		c.Defines = append(c.Defines, u.name)
	}
	if first {
		c.SigEndLine = u.sigEndLine
		c.Doc, c.DocStartLine = u.doc, u.docLine
		c.Defines = append(c.Defines, namesOf(u.defs)...)
		return c
	}
	for _, d := range u.defs {
		if d.pos >= s && d.pos < e {
			c.Defines = append(c.Defines, d.name)
		}
	}
	return c
}

// leftovers emits top-level code that belongs to no unit (statements,
// prototypes, macros) as KindWindow chunks cut at item boundaries.
func (w *walker) leftovers(run []kid) {
	for _, p := range w.group(run, -1, -1, -1) {
		if w.li.span(p.start, p.end) <= w.opts.MaxLines {
			s, e := trimRange(w.src, p.start, p.end)
			w.out = append(w.out, Chunk{Kind: KindWindow, StartByte: s, EndByte: e})
			continue
		}
		for _, win := range w.windowRanges(p.start, p.end) {
			w.out = append(w.out, Chunk{Kind: KindWindow, StartByte: win.start, EndByte: win.end})
		}
	}
}

// group packs kids into parts of at most MaxLines lines, cutting only
// between kids. Skip kids (nested units with chunks of their own) are left
// out and end the current part. Parts made only of comments are dropped
// unless they span minCommentLines lines or more. With start ≥ 0 the first
// part begins at start and holds at least [start, headEnd); with end ≥ 0
// the last part is stretched to end if it still fits (the closing brace).
// A part exceeds MaxLines only when one kid does; the caller cuts such a
// part into windows. An oversized kid right after the head takes the head
// with it, and an oversized last kid the closing lines, so that the
// windows keep the signature and the end of the unit.
func (w *walker) group(kids []kid, start, headEnd, end int) []span {
	limit := w.opts.MaxLines
	var parts []span
	var cur span
	open, code, headOnly := false, false, false
	if start >= 0 {
		cur, open, code, headOnly = span{start, headEnd}, true, true, true
	}
	flush := func() {
		if open && (code || w.li.span(cur.start, cur.end) >= minCommentLines || hasWord(w.src[cur.start:cur.end])) {
			parts = append(parts, cur)
		}
		open, code, headOnly = false, false, false
	}
	for _, k := range kids {
		if k.skip {
			flush()
			continue
		}
		if open && (w.li.span(cur.start, max(cur.end, k.end)) <= limit ||
			(headOnly && w.li.span(k.start, k.end) > limit)) {
			cur.end = max(cur.end, k.end)
			code = code || !k.comment
			headOnly = false
			continue
		}
		flush()
		cur, open, code = span{k.start, k.end}, true, !k.comment
	}
	if open && end >= 0 && end > cur.end &&
		(w.li.span(cur.start, end) <= limit || w.li.span(cur.start, cur.end) > limit) {
		cur.end = end
	}
	flush()
	return parts
}

// windowRanges cuts [s, e) into windows of WindowLines lines (at most
// MaxLines) that overlap by WindowOverlap lines, trimmed of surrounding
// white space; blank windows are skipped.
func windowRanges(li *lineIndex, opts Options, s, e int) []span {
	size := min(opts.WindowLines, opts.MaxLines)
	step := max(size-opts.WindowOverlap, 1)
	l0, l1 := li.lineOf(s), li.lastLine(s, e)
	var out []span
	for a := l0; ; a += step {
		b := min(a+size-1, l1)
		ws, we := trimRange(li.src, max(s, li.start(a)), min(e, li.end(b)))
		if we > ws {
			out = append(out, span{ws, we})
		}
		if b >= l1 {
			break
		}
	}
	return out
}

func (w *walker) windowRanges(s, e int) []span { return windowRanges(w.li, w.opts, s, e) }
