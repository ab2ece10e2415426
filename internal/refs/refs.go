package refs

import (
	"cmp"
	"context"
	"fmt"
	"go/token"
	"go/types"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/index/chunk"
	"github.com/ctxls/ctxls/internal/retrieve"
)

// The kinds of a reference.
const (
	KindCall = "call" // the name is called: f(…), x.M(…)
	KindUse  = "use"  // any other use: a value, a type, a selected field
	// KindImplementation is an interface method's call that reaches the
	// asked method through the interface it implements (Go).
	KindImplementation = "implementation"
)

// Query asks for the references of a symbol or of the identifier at a
// position.
type Query struct {
	// Symbol is a name (Normalize), a package-qualified name
	// (ranges.Normalize) or a type's member (Index.Close, Route.name).
	Symbol string
	// Path, Line and Column name a position instead (Column 0: the first
	// identifier of the line that declares something, else the first
	// that refers to something).
	Path         string
	Line, Column int
}

// Target is what the references are of.
type Target struct {
	Name   string `json:"name"`
	Kind   string `json:"kind" jsonschema:"function, method, field, type, var, const or name"`
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column,omitempty"`
}

// Site is one reference.
type Site struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column,omitempty" jsonschema:"1-based byte column of the name"`
	Symbol string `json:"symbol,omitempty" jsonschema:"the enclosing unit (Type.Method, pkg.Func)"`
	Kind   string `json:"kind" jsonschema:"call, use or implementation"`
	Exact  bool   `json:"exact" jsonschema:"resolved by the language's types (false: by name)"`
	// UnitStart and UnitEnd are the enclosing unit's lines (for a
	// handle), 0 when the line is in no unit.
	UnitStart int `json:"-"`
	UnitEnd   int `json:"-"`
	test      bool
	tier      int
}

// Result is the references of one target, ranked: the definition's
// package first, then code before tests, then by path, line and column.
type Result struct {
	Target Target
	// Exact is true when every site was resolved by types.
	Exact bool
	Sites []Site
}

// Find answers q over snap. Bad input is an *assemble.ParamError naming the
// field: an unknown symbol, a position past the end of its file, an
// ambiguous name (with its candidates).
func Find(ctx context.Context, snap *index.Snapshot, q Query) (*Result, error) {
	var res *Result
	var err error
	if q.Symbol != "" {
		res, err = findSymbol(ctx, snap, q.Symbol)
	} else {
		res, err = findAt(ctx, snap, q.Path, q.Line, q.Column)
	}
	if err != nil {
		return nil, err
	}
	rank(snap, res)
	return res, nil
}

// ParamError fields.
const (
	FieldSymbol = "symbol"
	FieldAt     = "at"
)

func paramErr(field, format string, args ...any) error {
	return &assemble.ParamError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// lastName is the last component of a qualified name.
func lastName(name string) string {
	if i := strings.LastIndexAny(name, ".:"); i >= 0 && i+1 < len(name) {
		return name[i+1:]
	}
	return name
}

// definition is a definition a symbol names: the unit (or the member of
// a unit) declaring it.
type definition struct {
	c     index.IndexedChunk
	name  string // the declared name
	label string // what to call it: Type.Method, pkg.Func
}

// definitions are the definitions symbol names, deduplicated by unit.
func definitions(snap *index.Snapshot, symbol string) []definition {
	short := lastName(symbol)
	qual := ""
	if short != symbol {
		qual = strings.TrimRight(symbol[:len(symbol)-len(short)], ".:")
	}
	var out []definition
	seen := map[index.ChunkID]bool{}
	add := func(id index.ChunkID, member bool) {
		c, ok := snap.Chunk(id)
		if !ok || c.Part > 1 || seen[id] {
			return
		}
		seen[id] = true
		label := cmp.Or(c.QualifiedName, c.Symbol)
		if member && c.Symbol != short {
			label = cmp.Or(c.Symbol, path.Base(path.Dir(c.Path))) + "." + short
		}
		out = append(out, definition{c: index.IndexedChunk{ID: id, Chunk: c}, name: short, label: label})
	}
	if qual != "" {
		for _, id := range snap.Defs(symbol) {
			add(id, false)
		}
		if len(out) > 0 {
			return out
		}
	}
	for _, id := range snap.Defs(short) {
		c, ok := snap.Chunk(id)
		if !ok {
			continue
		}
		if qual != "" {
			// pkg.Name: a unit of a directory named pkg; Type.member: a
			// member of the type (or a method of it) named so.
			recv, _, _ := strings.Cut(c.QualifiedName, ".")
			if !(c.Symbol == qual || recv == qual || path.Base(path.Dir(c.Path)) == qual && c.Symbol == short) {
				continue
			}
		}
		add(id, c.Symbol != short)
	}
	return out
}

// pick is the one definition of symbol, or a ParamError: none, or
// several (listed).
func pick(snap *index.Snapshot, symbol string) (definition, error) {
	defs := definitions(snap, symbol)
	if len(defs) == 0 {
		msg := fmt.Sprintf("no definition of %s in the index", assemble.InlineText(symbol))
		if !snap.Complete() {
			msg += " (still indexing: try again shortly)"
		}
		return definition{}, paramErr(FieldSymbol, "%s", msg)
	}
	// A definition in code wins over ones in tests only.
	if code := slices.DeleteFunc(slices.Clone(defs), func(d definition) bool { return isTestPath(d.c.Path) }); len(code) == 1 {
		return code[0], nil
	}
	if len(defs) == 1 {
		return defs[0], nil
	}
	var cands []string
	for i, d := range defs {
		if i == 20 {
			cands = append(cands, fmt.Sprintf("… %d more", len(defs)-20))
			break
		}
		cands = append(cands, fmt.Sprintf("%s (%s:%d)", d.label, d.c.Path, d.c.StartLine))
	}
	return definition{}, paramErr(FieldSymbol, "%s is ambiguous: %d definitions; name one as Type.Method or pkg.Func, or give a position: %s",
		assemble.InlineText(symbol), len(defs), assemble.InlineText(strings.Join(cands, ", ")))
}

func findSymbol(ctx context.Context, snap *index.Snapshot, symbol string) (*Result, error) {
	symbol = strings.TrimSpace(symbol)
	if symbol == "" || strings.ContainsAny(symbol, " \t\n") {
		return nil, paramErr(FieldSymbol, "%q: want one name or qualified name, e.g. Normalize, ranges.Normalize or Index.Close", symbol)
	}
	d, err := pick(snap, symbol)
	if err != nil {
		return nil, err
	}
	if d.c.Language == "go" {
		if res, ok := goFindDef(ctx, snap, d, nil); ok {
			return res, nil
		}
	}
	return byName(snap, d), nil
}

func findAt(ctx context.Context, snap *index.Snapshot, p string, line, col int) (*Result, error) {
	if p == "" {
		return nil, paramErr(FieldAt, "give a symbol or a position (path:line[:column])")
	}
	f, err := snap.File(p)
	if err != nil {
		return nil, paramErr(FieldAt, "%s: not in the index (%v)", assemble.InlineText(p), err)
	}
	lines := strings.Count(f.Text, "\n")
	if !strings.HasSuffix(f.Text, "\n") && f.Text != "" {
		lines++
	}
	if line < 1 || line > lines {
		return nil, paramErr(FieldAt, "%s:%d: past the end of the file (%d lines)", assemble.InlineText(p), line, lines)
	}
	text := lineText(f.Text, line)
	if col < 0 || col > len(text)+1 {
		return nil, paramErr(FieldAt, "%s:%d:%d: past the end of the line (%d bytes)", assemble.InlineText(p), line, col, len(text))
	}
	if strings.HasSuffix(p, ".go") {
		if res, ok, err := goFindAt(ctx, snap, p, line, col); err != nil || ok {
			return res, err
		}
	}
	// By name: the identifier at the column, else the unit at the line.
	name := identAt(text, col)
	var c *index.IndexedChunk
	for _, ch := range snap.ChunksOf(p) {
		if ch.StartLine <= line && line <= ch.EndLine && ch.Kind != chunk.KindHeader {
			c = &ch
			break
		}
	}
	if name == "" && c != nil {
		name = c.Symbol
	}
	if name == "" {
		return nil, paramErr(FieldAt, "%s:%d:%d: no identifier there", assemble.InlineText(p), line, col)
	}
	defs := definitions(snap, name)
	if len(defs) == 0 {
		return nil, paramErr(FieldAt, "%s:%d: no definition of %s in the index", assemble.InlineText(p), line, assemble.InlineText(name))
	}
	d := defs[0]
	for _, x := range defs {
		if x.c.Path == p && x.c.StartLine <= line && line <= x.c.EndLine {
			d = x
		}
	}
	return byName(snap, d), nil
}

// lineText is line n (1-based) of text, without its newline.
func lineText(text string, n int) string {
	for i := 1; i < n; i++ {
		j := strings.IndexByte(text, '\n')
		if j < 0 {
			return ""
		}
		text = text[j+1:]
	}
	if j := strings.IndexByte(text, '\n'); j >= 0 {
		text = text[:j]
	}
	return strings.TrimSuffix(text, "\r")
}

// identAt is the identifier at 1-based byte column col of line (the first
// of the line when col is 0).
func identAt(line string, col int) string {
	if col <= 0 {
		for i := 0; i < len(line); i++ {
			if isIdentStart(line[i]) && (i == 0 || !isIdentByte(line[i-1])) {
				col = i + 1
				break
			}
		}
		if col <= 0 {
			return ""
		}
	}
	i := col - 1
	if i >= len(line) || !isIdentByte(line[i]) {
		return ""
	}
	s, e := i, i
	for s > 0 && isIdentByte(line[s-1]) {
		s--
	}
	for e < len(line) && isIdentByte(line[e]) {
		e++
	}
	if !isIdentStart(line[s]) {
		return ""
	}
	return line[s:e]
}

func isIdentStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isIdentByte(c byte) bool  { return isIdentStart(c) || '0' <= c && c <= '9' }

// byName lists the places that write d's name, by the reference graph
// (the units whose references hold the name) and the lines of their text
// that write it; none is exact.
func byName(snap *index.Snapshot, d definition) *Result {
	res := &Result{Target: Target{Name: d.label, Kind: "name", Path: d.c.Path, Line: declLine(snap, d)}}
	for _, id := range snap.Refs(d.name) {
		c, ok := snap.Chunk(id)
		if !ok {
			continue
		}
		res.Sites = append(res.Sites, nameSites(snap, c, d, res.Target)...)
	}
	return res
}

// declLine is the line of d's declaration: the first line of its unit
// from the signature on that writes its name.
func declLine(snap *index.Snapshot, d definition) int {
	f, err := snap.File(d.c.Path)
	if err != nil {
		return d.c.StartLine
	}
	for l := max(d.c.StartLine, sigStart(d.c.Chunk)); l <= d.c.EndLine; l++ {
		if col := nameCol(lineText(f.Text, l), d.name); col > 0 {
			return l
		}
	}
	return d.c.StartLine
}

func sigStart(c chunk.Chunk) int {
	if c.DocStartLine > 0 && c.DocStartLine < c.StartLine {
		return c.StartLine
	}
	return c.StartLine
}

// nameSites are the places unit c's lines write name as a whole
// identifier, outside comments, but for the target's declaration.
func nameSites(snap *index.Snapshot, c chunk.Chunk, d definition, t Target) []Site {
	f, err := snap.File(c.Path)
	if err != nil || c.StartByte < 0 || c.EndByte > len(f.Text) {
		return nil
	}
	var out []Site
	for i, line := range strings.Split(f.Text[c.StartByte:c.EndByte], "\n") {
		l := c.StartLine + i
		code := stripComment(line)
		for off := 0; ; {
			col := nameCol(code[off:], d.name)
			if col == 0 {
				break
			}
			at := off + col
			off = at - 1 + len(d.name)
			if c.Path == t.Path && l == t.Line {
				continue
			}
			kind := KindUse
			if rest := strings.TrimLeft(code[off:], " \t"); strings.HasPrefix(rest, "(") {
				kind = KindCall
			}
			out = append(out, Site{Path: c.Path, Line: l, Column: at, Symbol: cmp.Or(c.QualifiedName, c.Symbol), Kind: kind,
				UnitStart: c.StartLine, UnitEnd: c.EndLine})
		}
	}
	return out
}

// stripComment cuts a line's trailing // or # comment (outside quotes),
// and blanks a line that is a comment.
func stripComment(line string) string {
	t := strings.TrimSpace(line)
	if strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "*") || strings.HasPrefix(t, "/*") {
		return ""
	}
	var q byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case q != 0:
			if c == '\\' && q != '`' {
				i++
			} else if c == q {
				q = 0
			}
		case c == '"' || c == '\'' || c == '`':
			q = c
		case c == '/' && i+1 < len(line) && line[i+1] == '/':
			return line[:i]
		}
	}
	return line
}

// nameCol is the 1-based column where line writes name as a whole
// identifier (0: nowhere).
func nameCol(line, name string) int {
	for i := 0; name != ""; {
		j := strings.Index(line[i:], name)
		if j < 0 {
			return 0
		}
		s, e := i+j, i+j+len(name)
		if (s == 0 || !isIdentByte(line[s-1])) && (e >= len(line) || !isIdentByte(line[e])) {
			return s + 1
		}
		i = s + 1
	}
	return 0
}

// goFindDef resolves definition d by Go's types: the object its unit
// declares under d's name. ok is false when the package is not a
// module's or does not declare it (the caller falls back to names).
func goFindDef(ctx context.Context, snap *index.Snapshot, d definition, b *retrieve.ResolveBudget) (*Result, bool) {
	w, release := newWorld(snap)
	defer release()
	w.budget = b
	dir := path.Dir(d.c.Path)
	if w.importPath(dir) == "" {
		return nil, false
	}
	kind := varBase
	if strings.HasSuffix(d.c.Path, "_test.go") {
		kind = varTest
		if f := w.file(d.c.Path); f != nil && strings.HasSuffix(f.pkgName, "_test") {
			kind = varXTest
		}
	}
	if b != nil && w.writtenIn(d.name, b.Max) > b.Max || !w.within([]variant{{dir, kind}}) {
		return nil, false
	}
	p := w.pkg(variant{dir, kind})
	if p == nil {
		return nil, false
	}
	recv := ""
	if d.c.Kind == chunk.KindMethod {
		recv, _, _ = strings.Cut(d.c.QualifiedName, ".")
	}
	for _, id := range w.identsOn(p, d.c.Path, d.c.StartLine, d.c.EndLine) {
		_, line, _ := w.position(id.pos)
		if !id.def || line < d.c.StartLine || line > d.c.EndLine {
			continue
		}
		obj := p.objs[id.decl]
		if obj == nil || obj.Name() != d.name || obj.Pos() != id.pos {
			continue
		}
		if !declaresMember(obj, d, recv) {
			continue
		}
		r := w.references(ctx, obj)
		return r, r != nil
	}
	return nil, false
}

// declaresMember reports whether obj is what unit d declares under its
// name: the unit's own function, method or type, a field or method of
// its type, a constant or variable of its block, not a parameter or a
// local.
func declaresMember(obj types.Object, d definition, recv string) bool {
	switch o := obj.(type) {
	case *types.Func:
		sig := o.Type().(*types.Signature)
		if sig.Recv() == nil {
			return recv == ""
		}
		if recv == "" {
			return d.c.Kind == chunk.KindInterface || d.c.Kind == chunk.KindType
		}
		return recvName(sig.Recv().Type()) == recv
	case *types.Var:
		return o.IsField() || o.Parent() == o.Pkg().Scope()
	case *types.TypeName, *types.Const:
		return o.Parent() == nil || o.Parent() == o.Pkg().Scope()
	}
	return false
}

// recvName is the name of a method's receiver type (T for *T, T[P]).
func recvName(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	switch n := t.(type) {
	case *types.Named:
		return n.Obj().Name()
	case *types.Alias:
		return n.Obj().Name()
	}
	return ""
}

// goFindAt resolves the identifier at a position of a Go file by types.
// ok is false when the file is no module's or does not type-check there.
func goFindAt(ctx context.Context, snap *index.Snapshot, p string, line, col int) (*Result, bool, error) {
	w, release := newWorld(snap)
	defer release()
	dir := path.Dir(p)
	if w.importPath(dir) == "" {
		return nil, false, nil
	}
	f := w.file(p)
	if f == nil || f.ast == nil || !f.match {
		return nil, false, nil
	}
	kind := varBase
	if strings.HasSuffix(p, "_test.go") {
		kind = varTest
		if strings.HasSuffix(f.pkgName, "_test") {
			kind = varXTest
		}
	}
	pk := w.pkg(variant{dir, kind})
	if pk == nil {
		return nil, false, nil
	}
	var onLine []ident
	for _, id := range w.identsOn(pk, p, line, line) {
		_, l, c := w.position(id.pos)
		_, _, ce := w.position(id.end)
		if l != line {
			continue
		}
		if col > 0 && c <= col && col < ce+boolInt(col == ce) {
			if obj := w.objectOf(id.decl); obj != nil {
				return w.references(ctx, obj), true, nil
			}
			if fn, _, _ := w.position(id.decl); path.IsAbs(fn) || filepath.IsAbs(fn) {
				// The standard library's: its source is no file of the
				// index, and neither are its other uses.
				name := ""
				if text, err := snap.File(p); err == nil {
					name = identAt(lineText(text.Text, line), col)
				}
				return nil, false, paramErr(FieldAt, "%s:%d:%d: %s is declared in the standard library, not in this workspace", assemble.InlineText(p), line, col, name)
			}
		}
		onLine = append(onLine, id)
	}
	if col > 0 {
		return nil, false, nil
	}
	slices.SortStableFunc(onLine, func(a, b ident) int { return cmp.Compare(b.boolDef(), a.boolDef()) })
	for _, id := range onLine {
		if obj := w.objectOf(id.decl); obj != nil {
			return w.references(ctx, obj), true, nil
		}
	}
	return nil, false, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// objectOf is the object declared at pos by one of the checked packages.
func (w *goWorld) objectOf(pos token.Pos) types.Object {
	fn, _, _ := w.position(pos)
	dir := path.Dir(fn)
	for _, k := range []int{varBase, varTest, varXTest} {
		if p := w.pkg(variant{dir, k}); p != nil {
			if obj := p.objs[pos]; obj != nil {
				return obj
			}
		}
	}
	return nil
}

// isTestPath reports whether a path looks like a test file.
func isTestPath(p string) bool {
	base := path.Base(p)
	return strings.Contains(base, "_test.") || strings.HasPrefix(base, "test_") ||
		strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") ||
		strings.Contains("/"+p, "/test/") || strings.Contains("/"+p, "/tests/") || strings.Contains("/"+p, "/testdata/")
}

// rank orders res's sites (the definition's package first, code before
// tests, then path, line, column), drops duplicates, and names each
// site's enclosing unit.
func rank(snap *index.Snapshot, res *Result) {
	dir := path.Dir(res.Target.Path)
	spans := spansOf(snap)
	for i := range res.Sites {
		s := &res.Sites[i]
		s.test = isTestPath(s.Path)
		s.tier = 2 * boolInt(s.test)
		if path.Dir(s.Path) != dir {
			s.tier++
		}
		if s.UnitStart == 0 {
			if u, ok := spans.at(snap, s.Path, s.Line); ok {
				s.UnitStart, s.UnitEnd, s.Symbol = u.start, u.end, u.symbol
			}
		}
	}
	slices.SortFunc(res.Sites, func(a, b Site) int {
		return cmp.Or(cmp.Compare(a.tier, b.tier), cmp.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
	res.Sites = slices.CompactFunc(res.Sites, func(a, b Site) bool { return a.Path == b.Path && a.Line == b.Line && a.Column == b.Column })
	res.Exact = len(res.Sites) == 0 || !slices.ContainsFunc(res.Sites, func(s Site) bool { return !s.Exact })
	if res.Target.Kind == "name" {
		res.Exact = false
	}
}

// unitSpan is a unit's lines and the symbol a site in it is named by ("" for
// a file's header).
type unitSpan struct {
	start, end int
	symbol     string
}

// unitSpans are the units of the index's files, by path, each kept while
// its file's content hash is the one it was read for: the enclosing units
// of a thousand sites cost a lookup each, not a thousand files' chunks.
type unitSpans struct {
	mu    sync.Mutex
	files map[string]fileSpans
}

type fileSpans struct {
	hash  string
	units []unitSpan
}

type spansKey struct{}

func spansOf(snap *index.Snapshot) *unitSpans {
	return snap.Shared(spansKey{}, func() any { return &unitSpans{files: map[string]fileSpans{}} }).(*unitSpans)
}

// at is the unit of p holding line.
func (u *unitSpans) at(snap *index.Snapshot, p string, line int) (unitSpan, bool) {
	fi, ok := snap.Stat(p)
	if !ok {
		return unitSpan{}, false
	}
	u.mu.Lock()
	fs, ok := u.files[p]
	u.mu.Unlock()
	if !ok || fs.hash != fi.Hash {
		fs = fileSpans{hash: fi.Hash}
		for _, c := range snap.ChunksOf(p) {
			sym := ""
			if c.Kind != chunk.KindHeader {
				sym = cmp.Or(c.QualifiedName, c.Symbol)
			}
			fs.units = append(fs.units, unitSpan{c.StartLine, c.EndLine, sym})
		}
		u.mu.Lock()
		u.files[p] = fs
		u.mu.Unlock()
	}
	for _, s := range fs.units {
		if s.start <= line && line <= s.end {
			return s, true
		}
	}
	return unitSpan{}, false
}
