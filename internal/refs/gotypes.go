package refs

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/retrieve"
)

// goCacheKey is the key of an index's Go type checker among the values its
// snapshots share (index.Snapshot.Shared).
type goCacheKey struct{}

// goCache is the Go type checker of one index: the parsed files and the
// type-checked packages of the module's own directories, each kept under
// the hash of what it was computed from (its files' content hashes and its
// dependencies' keys), so that every snapshot of the index reuses what is
// still current and checks again only what changed. Packages are checked
// lazily: a request checks the packages whose files write the name it
// asks about, and what they import of the module.
type goCache struct {
	mu    sync.Mutex
	fset  *token.FileSet
	files map[string]*goFile // by path
	// heads are files read only as far as their imports (head): what
	// counting a package's needs reads, without parsing the rest.
	heads map[string]*goFile
	pkgs  map[variant]*goPkg        // by directory and variant
	stubs map[string]*types.Package // other modules' stand-ins, by import path
	// std are the standard library's packages, checked from GOROOT's
	// source without their function bodies: their declarations type the
	// module's uses of them (an io.WriteCloser's Close is io.Closer's).
	std     map[string]*types.Package
	stdBusy map[string]bool
	// state and done are the packages resolved for the snapshots of one
	// content state (index.Snapshot.StateRoot): a request on a state
	// whose packages an earlier one resolved computes no key again.
	state string
	done  map[variant]*goPkg
	// parsed counts the files parsed into fset, which only grows: past
	// a few parses per live file (a long session of edits) the cache
	// starts afresh (reset).
	parsed int
}

// reset empties the cache when its file set holds mostly files parsed
// before their last change.
func (c *goCache) reset() {
	if c.parsed <= 4*len(c.files)+1000 {
		return
	}
	c.fset = token.NewFileSet()
	c.files, c.heads, c.pkgs = map[string]*goFile{}, map[string]*goFile{}, map[variant]*goPkg{}
	c.stubs, c.std = map[string]*types.Package{}, map[string]*types.Package{}
	c.parsed = 0
	c.state, c.done = "", nil
}

func cacheOf(snap *index.Snapshot) *goCache {
	return snap.Shared(goCacheKey{}, func() any {
		return &goCache{fset: token.NewFileSet(), files: map[string]*goFile{}, heads: map[string]*goFile{}, pkgs: map[variant]*goPkg{}, stubs: map[string]*types.Package{},
			std: map[string]*types.Package{}, stdBusy: map[string]bool{}}
	}).(*goCache)
}

// goFile is one parsed file, valid while the file's content hash is hash.
type goFile struct {
	hash    string
	ast     *ast.File // nil when it does not parse
	match   bool      // built on this platform (build constraints)
	pkgName string
	imports []string
}

// Variants of a package directory: its files, those plus its in-package
// tests, its external tests (package x_test), as go test builds them.
const (
	varBase = iota
	varTest
	varXTest
)

type variant struct {
	dir  string
	kind int
}

// goPkg is one type-checked variant of a package directory.
type goPkg struct {
	key   string
	path  string // import path
	pkg   *types.Package
	files []string // the paths checked, sorted
	bad   []string // the paths that did not parse
	// uses are the identifiers that refer to an object, by the position
	// of the object's declaration.
	uses map[token.Pos][]use
	// idents are, per file, every identifier that declares or refers to
	// an object, in file order.
	idents map[string][]ident
	// objs are the objects the package declares, by position.
	objs map[token.Pos]types.Object
	// methods are the uses of methods, by the method's name.
	methods map[string][]methodUse
	// withMethod are the package-level types whose method set (of the
	// pointer, for a concrete type) has a method of the name, built on
	// first use (typesWithMethod).
	withMethod map[string][]*types.TypeName
}

// typesWithMethod are p's package-level types that have a method called
// name, in scope order.
func (p *goPkg) typesWithMethod(name string) []*types.TypeName {
	if p.withMethod == nil {
		p.withMethod = map[string][]*types.TypeName{}
		scope := p.pkg.Scope()
		for _, n := range scope.Names() {
			tn, ok := scope.Lookup(n).(*types.TypeName)
			if !ok || tn.IsAlias() {
				continue
			}
			T := tn.Type()
			if !types.IsInterface(T) {
				T = types.NewPointer(T)
			}
			ms := types.NewMethodSet(T)
			for i := range ms.Len() {
				m := ms.At(i).Obj().Name()
				p.withMethod[m] = append(p.withMethod[m], tn)
			}
		}
	}
	return p.withMethod[name]
}

type use struct {
	pos  token.Pos
	call bool
}

// methodUse is a use of a method, kept by the method's name.
type methodUse struct {
	obj *types.Func
	use
}

type ident struct {
	pos  token.Pos
	end  token.Pos
	decl token.Pos // the position of the object's declaration
	def  bool      // the identifier declares it
}

// goWorld is one request's view of the Go packages of a snapshot.
type goWorld struct {
	c    *goCache
	snap *index.Snapshot
	mods []goModule          // longest directory first
	dirs map[string][]string // .go files by directory
	done map[variant]*goPkg
	busy map[variant]bool
	// budget, when set, bounds the module's package variants the
	// request's answers may need checked together (within): past it an
	// answer is not given by types (references returns nil).
	budget *retrieve.ResolveBudget
}

// goModule is a go.mod's directory and module path.
type goModule struct {
	dir, path string
}

// goLayout is what a snapshot's paths say of its Go packages.
type goLayout struct {
	mods []goModule
	dirs map[string][]string
}

type goLayoutKey struct{}

func layoutOf(snap *index.Snapshot) *goLayout {
	return snap.Memo(goLayoutKey{}, func() any {
		l := &goLayout{dirs: map[string][]string{}}
		for _, p := range snap.Paths() {
			switch {
			case path.Base(p) == "go.mod":
				if f, err := snap.File(p); err == nil {
					if mp := modulePath(f.Text); mp != "" {
						l.mods = append(l.mods, goModule{dir: path.Dir(p), path: mp})
					}
				}
			case strings.HasSuffix(p, ".go"):
				d := path.Dir(p)
				l.dirs[d] = append(l.dirs[d], p)
			}
		}
		slices.SortFunc(l.mods, func(a, b goModule) int {
			return cmp.Or(cmp.Compare(len(b.dir), len(a.dir)), cmp.Compare(a.dir, b.dir))
		})
		return l
	}).(*goLayout)
}

// modulePath is the module path a go.mod's text declares ("" if none).
func modulePath(text string) string {
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			rest, _, _ = strings.Cut(rest, "//")
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// newWorld returns the request's view of snap's Go packages, holding the
// cache's lock until release.
func newWorld(snap *index.Snapshot) (*goWorld, func()) {
	c := cacheOf(snap)
	l := layoutOf(snap)
	c.mu.Lock()
	c.reset()
	if st := snap.StateRoot(); st != c.state || c.done == nil {
		c.state, c.done = st, map[variant]*goPkg{}
	}
	w := &goWorld{c: c, snap: snap, mods: l.mods, dirs: l.dirs, done: c.done, busy: map[variant]bool{}}
	return w, c.mu.Unlock
}

// moduleOf is the module holding directory dir.
func (w *goWorld) moduleOf(dir string) (goModule, bool) {
	for _, m := range w.mods {
		if m.dir == "." || dir == m.dir || strings.HasPrefix(dir, m.dir+"/") {
			return m, true
		}
	}
	return goModule{}, false
}

// importPath is the import path of directory dir ("" outside a module).
func (w *goWorld) importPath(dir string) string {
	m, ok := w.moduleOf(dir)
	if !ok {
		return ""
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(dir, m.dir), "/")
	if m.dir == "." {
		rel = dir
		if dir == "." {
			rel = ""
		}
	}
	switch {
	case rel == "":
		return m.path
	case m.path == "std":
		return rel
	}
	return m.path + "/" + rel
}

// dirOf is the directory of the module's package with import path ip, as
// seen from directory from ("" when it is not one of the snapshot's: it
// stands in as an empty package). A vendored copy counts as the module's.
func (w *goWorld) dirOf(ip, from string) string {
	m, ok := w.moduleOf(from)
	if !ok {
		return ""
	}
	join := func(a, b string) string {
		if a == "." {
			return b
		}
		return a + "/" + b
	}
	var d string
	switch {
	case ip == m.path:
		d = m.dir
	case strings.HasPrefix(ip, m.path+"/"):
		d = join(m.dir, strings.TrimPrefix(ip, m.path+"/"))
	case m.path == "std" && !strings.Contains(strings.Split(ip, "/")[0], "."):
		d = join(m.dir, ip)
	default:
		d = join(m.dir, "vendor/"+ip)
		if _, ok := w.dirs[d]; !ok && m.path == "std" {
			d = join(m.dir, "cmd/vendor/"+ip)
		}
	}
	if _, ok := w.dirs[d]; !ok {
		return ""
	}
	if inner, ok := w.moduleOf(d); !ok || inner.dir != m.dir && !strings.Contains(d, "/vendor/") {
		return "" // another module of the tree: an opaque stand-in, as another module's package
	}
	return d
}

// file returns the parsed file at p (nil when it cannot be read).
func (w *goWorld) file(p string) *goFile {
	if f := w.cached(p, w.c.files); f != nil {
		return f
	}
	w.c.parsed++
	f := w.parse(p, w.c.fset, parser.SkipObjectResolution, true)
	if f != nil {
		w.c.files[p] = f
	}
	return f
}

// head is p read as far as its imports: whether this platform builds
// it, its package name and its imports, with no syntax tree (the file
// parsed whole when it already is). Counting what a package needs reads
// only this.
func (w *goWorld) head(p string) *goFile {
	if f := w.cached(p, w.c.files); f != nil {
		return f
	}
	if f := w.cached(p, w.c.heads); f != nil {
		return f
	}
	f := w.parse(p, token.NewFileSet(), parser.ImportsOnly|parser.SkipObjectResolution, false)
	if f != nil {
		w.c.heads[p] = f
	}
	return f
}

// cached is p's entry of cache while it is of p's content.
func (w *goWorld) cached(p string, cache map[string]*goFile) *goFile {
	fi, ok := w.snap.Stat(p)
	if f := cache[p]; ok && f != nil && f.hash == fi.Hash {
		return f
	}
	return nil
}

// parse reads p from the snapshot and parses it into fset with mode,
// keeping its syntax tree (when keep and it parses) beside its build
// match, package name and imports; nil when p cannot be read.
func (w *goWorld) parse(p string, fset *token.FileSet, mode parser.Mode, keep bool) *goFile {
	fi, ok := w.snap.Stat(p)
	if !ok {
		return nil
	}
	text, err := w.snap.File(p)
	if err != nil {
		return nil
	}
	f := &goFile{hash: fi.Hash}
	ctx := build.Default
	ctx.OpenFile = func(string) (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(text.Text)), nil }
	f.match, _ = ctx.MatchFile(path.Dir(p), path.Base(p))
	af, err := parser.ParseFile(fset, p, text.Text, mode)
	if af != nil && af.Name != nil {
		f.pkgName = af.Name.Name
		for _, is := range af.Imports {
			if ip, err := unquote(is.Path.Value); err == nil {
				f.imports = append(f.imports, ip)
			}
		}
	}
	if err == nil && keep {
		f.ast = af
	}
	return f
}

func unquote(s string) (string, error) {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '`') {
		return s[1 : len(s)-1], nil
	}
	return "", io.ErrUnexpectedEOF
}

// variantFiles are the paths of v's files that this platform builds, and
// the package name they declare.
func (w *goWorld) variantFiles(v variant) (paths []string, name string) {
	var base, tests, xtests []string
	count := map[string]int{}
	for _, p := range w.dirs[v.dir] {
		f := w.head(p)
		if f == nil || !f.match || f.pkgName == "" {
			continue
		}
		if strings.HasSuffix(p, "_test.go") {
			if strings.HasSuffix(f.pkgName, "_test") {
				xtests = append(xtests, p)
			} else {
				tests = append(tests, p)
			}
			continue
		}
		if f.pkgName != "documentation" {
			count[f.pkgName]++
		}
		base = append(base, p)
	}
	// The package clause most files give (a directory may hold a stray
	// `package main` file behind a build tag).
	for n, c := range count {
		if c > count[name] || (c == count[name] && n < name) {
			name = n
		}
	}
	keep := func(ps []string, want string) []string {
		return slices.DeleteFunc(ps, func(p string) bool { return w.head(p).pkgName != want })
	}
	switch v.kind {
	case varBase:
		return keep(base, name), name
	case varTest:
		if name == "" && len(tests) > 0 {
			name = w.head(tests[0]).pkgName
		}
		t := keep(tests, name)
		if len(t) == 0 {
			return nil, name
		}
		return append(keep(base, name), t...), name
	default:
		if len(xtests) == 0 {
			return nil, ""
		}
		name = w.head(xtests[0]).pkgName
		return keep(xtests, name), name
	}
}

// pkg type-checks variant v (nil when it has no files), and what it
// imports of the module first, reusing the cache's package when its key
// is current.
func (w *goWorld) pkg(v variant) *goPkg {
	if p, ok := w.done[v]; ok {
		return p
	}
	if w.busy[v] {
		return nil // an import cycle
	}
	w.busy[v] = true
	defer delete(w.busy, v)
	paths, name := w.variantFiles(v)
	if len(paths) == 0 {
		w.done[v] = nil
		return nil
	}
	ip := w.importPath(v.dir)
	if v.kind == varXTest {
		ip += "_test"
	}
	deps := map[string]*goPkg{}
	h := sha256.New()
	io.WriteString(h, ip+"\x00")
	for _, p := range paths {
		f := w.file(p)
		io.WriteString(h, p+"\x00"+f.hash+"\x00")
		for _, imp := range f.imports {
			if _, ok := deps[imp]; ok {
				continue
			}
			deps[imp] = nil
			d := w.dirOf(imp, v.dir)
			if d == "" {
				continue
			}
			dv := variant{d, varBase}
			if v.kind == varXTest && d == v.dir {
				dv.kind = varTest
				if t, _ := w.variantFiles(dv); len(t) == 0 {
					dv.kind = varBase
				}
			}
			deps[imp] = w.pkg(dv)
		}
	}
	for _, imp := range slices.Sorted(mapsKeys(deps)) {
		k := "-"
		if d := deps[imp]; d != nil {
			k = d.key
		}
		io.WriteString(h, imp+"="+k+"\x00")
	}
	key := hex.EncodeToString(h.Sum(nil))
	if p := w.c.pkgs[v]; p != nil && p.key == key {
		w.done[v] = p
		return p
	}
	p := w.check(ip, name, paths, deps)
	p.key = key
	w.c.pkgs[v] = p
	w.done[v] = p
	return p
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// check type-checks one package from its files, its module imports deps,
// tolerating errors (other modules' packages are empty stand-ins: what
// uses them does not resolve).
func (w *goWorld) check(ip, name string, paths []string, deps map[string]*goPkg) *goPkg {
	p := &goPkg{path: ip, files: paths, uses: map[token.Pos][]use{}, idents: map[string][]ident{}, objs: map[token.Pos]types.Object{}, methods: map[string][]methodUse{}}
	var files []*ast.File
	for _, fp := range paths {
		f := w.file(fp)
		if f.ast == nil {
			p.bad = append(p.bad, fp)
			continue
		}
		files = append(files, f.ast)
	}
	info := &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{
		Importer: importerFunc(func(imp string) (*types.Package, error) {
			if d := deps[imp]; d != nil && d.pkg != nil {
				return d.pkg, nil
			}
			if isStd(imp) {
				if p := w.stdPkg(imp); p != nil {
					return p, nil
				}
			}
			return w.stub(imp), nil
		}),
		Error:       func(error) {},
		FakeImportC: true,
	}
	p.pkg, _ = conf.Check(ip, w.c.fset, files, info)
	calls := map[*ast.Ident]bool{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				if id := calledIdent(c.Fun); id != nil {
					calls[id] = true
				}
			}
			return true
		})
	}
	add := func(id *ast.Ident, obj types.Object, def bool) {
		obj = origin(obj)
		if obj == nil {
			return
		}
		if f, ok := obj.(*types.Func); ok && !def && !obj.Pos().IsValid() && f.Type().(*types.Signature).Recv() != nil {
			// The error interface's Error, declared nowhere: a use that
			// may correspond to a method of the module (corresponding).
			p.methods[f.Name()] = append(p.methods[f.Name()], methodUse{f, use{pos: id.Pos(), call: calls[id]}})
			return
		}
		if !obj.Pos().IsValid() {
			return
		}
		switch obj.(type) {
		case *types.PkgName, *types.Label, *types.Builtin, *types.Nil:
			return
		}
		fn := w.c.fset.File(id.Pos()).Name()
		p.idents[fn] = append(p.idents[fn], ident{pos: id.Pos(), end: id.End(), decl: obj.Pos(), def: def})
		if def {
			p.objs[obj.Pos()] = obj
		} else {
			u := use{pos: id.Pos(), call: calls[id]}
			p.uses[obj.Pos()] = append(p.uses[obj.Pos()], u)
			if f, ok := obj.(*types.Func); ok && f.Type().(*types.Signature).Recv() != nil {
				p.methods[f.Name()] = append(p.methods[f.Name()], methodUse{f, u})
			}
		}
	}
	for id, obj := range info.Defs {
		if obj != nil {
			add(id, obj, true)
		}
	}
	for id, obj := range info.Uses {
		add(id, obj, false)
	}
	for fn := range p.idents {
		slices.SortFunc(p.idents[fn], func(a, b ident) int { return cmp.Or(cmp.Compare(a.pos, b.pos), cmp.Compare(b.boolDef(), a.boolDef())) })
	}
	for k := range p.uses {
		slices.SortFunc(p.uses[k], func(a, b use) int { return cmp.Compare(a.pos, b.pos) })
	}
	for k := range p.methods {
		slices.SortFunc(p.methods[k], func(a, b methodUse) int { return cmp.Compare(a.pos, b.pos) })
	}
	return p
}

func (i ident) boolDef() int {
	if i.def {
		return 1
	}
	return 0
}

// origin is the generic declaration of an instantiated function, method
// or field.
func origin(obj types.Object) types.Object {
	switch o := obj.(type) {
	case *types.Func:
		return o.Origin()
	case *types.Var:
		return o.Origin()
	}
	return obj
}

// calledIdent is the identifier a call's function expression names
// (f, x.f, f[T], (f)).
func calledIdent(e ast.Expr) *ast.Ident {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x
		case *ast.SelectorExpr:
			return x.Sel
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		default:
			return nil
		}
	}
}

// stub is the empty stand-in of another module's (or the standard
// library's) package ip.
func (w *goWorld) stub(ip string) *types.Package {
	if ip == "unsafe" {
		return types.Unsafe
	}
	if p := w.c.stubs[ip]; p != nil {
		return p
	}
	name := path.Base(ip)
	if i := strings.LastIndex(name, ".v"); i > 0 {
		name = name[:i] // gopkg.in/yaml.v3
	}
	name = strings.TrimPrefix(name, "go-")
	name = strings.Map(func(r rune) rune {
		if r == '-' || r == '.' {
			return '_'
		}
		return r
	}, name)
	p := types.NewPackage(ip, name)
	p.MarkComplete()
	w.c.stubs[ip] = p
	return p
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// position is pos as a root-relative path, line and 1-based byte column.
func (w *goWorld) position(pos token.Pos) (string, int, int) {
	p := w.c.fset.Position(pos)
	return filepath.ToSlash(p.Filename), p.Line, p.Column
}

// references are the sites that refer to obj, resolved by types in the
// packages whose files write its name; where a method implements an
// interface method of the module (or is one), the calls through the
// other end count too (KindImplementation), as gopls counts them. Files
// that do not parse are searched by name.
func (w *goWorld) references(ctx context.Context, obj types.Object) *Result {
	name := obj.Name()
	declPath, declLine, declCol := w.position(obj.Pos())
	res := &Result{Target: Target{Name: objLabel(obj), Kind: objKind(obj), Path: declPath, Line: declLine, Column: declCol}}
	// The files that write the name, by directory and variant.
	files := map[string]bool{}
	for _, id := range w.snap.Refs(name) {
		if p, _, ok := id.Split(); ok {
			files[p] = true
		}
	}
	if w.budget != nil && w.writtenIn(name, w.budget.Max) > w.budget.Max {
		return nil
	}
	related := w.relatedMethods(obj, files)
	for _, r := range related {
		p, _, _ := w.position(r)
		files[p] = true
	}
	files[declPath] = true
	var want []variant
	seen := map[variant]bool{}
	for p := range files {
		if !strings.HasSuffix(p, ".go") {
			continue
		}
		dir := path.Dir(p)
		if !obj.Exported() && !isMethod(obj) && dir != path.Dir(declPath) {
			continue
		}
		f := w.file(p)
		if f == nil {
			continue
		}
		kinds := []int{varBase, varTest}
		if strings.HasSuffix(p, "_test.go") {
			kinds = []int{varTest}
			if strings.HasSuffix(f.pkgName, "_test") {
				kinds = []int{varXTest}
			}
		}
		for _, k := range kinds {
			if v := (variant{dir, k}); !seen[v] {
				seen[v] = true
				want = append(want, v)
			}
		}
	}
	slices.SortFunc(want, func(a, b variant) int { return cmp.Or(cmp.Compare(a.dir, b.dir), cmp.Compare(a.kind, b.kind)) })
	if !w.within(want) {
		return nil
	}
	targets := map[token.Pos]bool{obj.Pos(): true}
	for _, r := range related {
		targets[r] = false
	}
	var pkgs []*goPkg
	bad := map[string]bool{}
	for _, v := range want {
		if ctx.Err() != nil {
			break
		}
		if p := w.pkg(v); p != nil {
			pkgs = append(pkgs, p)
			for _, b := range p.bad {
				bad[b] = true
			}
		}
	}
	declDir := path.Dir(declPath)
	for _, p := range pkgs {
		if isMethod(obj) && path.Dir(p.files[0]) == declDir && !strings.HasSuffix(p.path, "_test") {
			// In the declaring package, as gopls does, a call of any
			// method of the name whose receiver implements the asked
			// one's or is implemented by it (io.Closer's Close for
			// a concrete Close).
			res.Sites = append(res.Sites, w.corresponding(p, obj, targets)...)
		}
		for t, direct := range targets {
			for _, u := range p.uses[t] {
				fp, line, col := w.position(u.pos)
				kind := KindUse
				switch {
				case !direct:
					kind = KindImplementation
				case u.call:
					kind = KindCall
				}
				res.Sites = append(res.Sites, Site{Path: fp, Line: line, Column: col, Kind: kind, Exact: true})
			}
		}
	}
	// Files that do not parse: by name.
	d := definition{name: name}
	for _, b := range slices.Sorted(mapsKeys(bad)) {
		for _, c := range w.snap.ChunksOf(b) {
			if slices.Contains(c.References, name) {
				res.Sites = append(res.Sites, nameSites(w.snap, c.Chunk, d, res.Target)...)
			}
		}
	}
	return res
}

// writtenIn counts the directories of the files that write name (the
// index's references), counting no further than past limit.
func (w *goWorld) writtenIn(name string, limit int) int {
	dirs := map[string]bool{}
	for _, id := range w.snap.Refs(name) {
		if p, _, ok := id.Split(); ok {
			dirs[path.Dir(p)] = true
			if len(dirs) > limit {
				break
			}
		}
	}
	return len(dirs)
}

// within reports whether checking vs stays within the request's budget
// (always, without one), drawing on it when it does: the packages it
// needs (needs) join the ones the request's earlier answers needed.
func (w *goWorld) within(vs []variant) bool {
	if w.budget == nil {
		return true
	}
	fresh := 0
	for _, v := range vs {
		if !w.budget.Admitted[variantKey(v)] {
			fresh++
		}
	}
	if len(w.budget.Admitted)+fresh > w.budget.Max {
		return false // no room for vs alone
	}
	need := w.needs(vs, w.budget.Max)
	if len(need) > w.budget.Max {
		return false
	}
	keys := make([]string, 0, len(need))
	for v := range need {
		keys = append(keys, variantKey(v))
	}
	return w.budget.Admit(keys)
}

// variantKey names v in a ResolveBudget.
func variantKey(v variant) string { return fmt.Sprintf("%s\x00%d", v.dir, v.kind) }

// needs are the module's package variants that checking vs needs: vs
// and, transitively, what they import of the module, no further than
// past limit. It reads only the files' imports (parsed files are
// cached), whatever has been checked already: the same tree gives the
// same set.
func (w *goWorld) needs(vs []variant, limit int) map[variant]bool {
	seen := map[variant]bool{}
	if len(vs) > limit {
		for _, v := range vs {
			seen[v] = true
		}
		return seen
	}
	stack := slices.Clone(vs)
	for len(stack) > 0 && len(seen) <= limit {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[v] {
			continue
		}
		seen[v] = true
		paths, _ := w.variantFiles(v)
		for _, p := range paths {
			f := w.head(p)
			if f == nil {
				continue
			}
			for _, imp := range f.imports {
				if d := w.dirOf(imp, v.dir); d != "" && !seen[variant{d, varBase}] {
					stack = append(stack, variant{d, varBase})
				}
			}
		}
	}
	return seen
}

func isMethod(obj types.Object) bool {
	f, ok := obj.(*types.Func)
	return ok && f.Type().(*types.Signature).Recv() != nil
}

// relatedMethods are the declarations of the methods related to method obj
// by interface satisfaction among the module's packages that declare a
// method of its name: the interface methods a concrete method implements,
// and the concrete methods (and narrower interfaces' methods) that
// implement an interface method.
func (w *goWorld) relatedMethods(obj types.Object, files map[string]bool) []token.Pos {
	fn, ok := obj.(*types.Func)
	if !ok || fn.Type().(*types.Signature).Recv() == nil {
		return nil
	}
	recv := fn.Type().(*types.Signature).Recv().Type()
	name := fn.Name()
	dirs := map[string]bool{}
	for _, id := range w.snap.Defs(name) {
		if p, _, ok := id.Split(); ok && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			dirs[path.Dir(p)] = true
		}
	}
	iface, isIface := recv.Underlying().(*types.Interface)
	var out []token.Pos
	for _, dir := range slices.Sorted(mapsKeys(dirs)) {
		p := w.pkg(variant{dir, varBase})
		if p == nil || p.pkg == nil {
			continue
		}
		for _, tn := range p.typesWithMethod(name) {
			T := tn.Type()
			m, _, _ := types.LookupFieldOrMethod(T, true, tn.Pkg(), name)
			mf, ok := m.(*types.Func)
			if !ok || mf.Pos() == fn.Pos() || !mf.Pos().IsValid() {
				continue
			}
			if ti, ok := T.Underlying().(*types.Interface); ok {
				// Another interface: related when the asked method's
				// type (or interface) implements it.
				if isIface {
					if ti != iface && types.Implements(recv, ti) {
						out = append(out, origin(mf).Pos())
					}
					continue
				}
				if implements(recv, ti) {
					out = append(out, origin(mf).Pos())
				}
				continue
			}
			if isIface && implements(T, iface) {
				out = append(out, origin(mf).Pos())
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// implements reports whether T or *T implements the non-empty interface i.
func implements(T types.Type, i *types.Interface) bool {
	if i.NumMethods() == 0 {
		return false
	}
	if types.Implements(T, i) {
		return true
	}
	if _, ok := T.(*types.Pointer); !ok {
		return types.Implements(types.NewPointer(T), i)
	}
	return false
}

// objLabel names obj as a request may: pkg.Func, Type.Method, Type.field.
func objLabel(obj types.Object) string {
	switch o := obj.(type) {
	case *types.Func:
		if r := o.Type().(*types.Signature).Recv(); r != nil {
			if n := recvName(r.Type()); n != "" {
				return n + "." + o.Name()
			}
		}
	case *types.Var:
		if o.IsField() {
			return o.Name()
		}
	}
	if obj.Pkg() != nil {
		return obj.Pkg().Name() + "." + obj.Name()
	}
	return obj.Name()
}

func objKind(obj types.Object) string {
	switch o := obj.(type) {
	case *types.Func:
		if o.Type().(*types.Signature).Recv() != nil {
			return "method"
		}
		return "function"
	case *types.Var:
		if o.IsField() {
			return "field"
		}
		return "var"
	case *types.TypeName:
		return "type"
	case *types.Const:
		return "const"
	}
	return "name"
}

// isStd reports whether ip is a standard library import path (its first
// element has no dot).
func isStd(ip string) bool {
	first, _, _ := strings.Cut(ip, "/")
	return !strings.Contains(first, ".") && ip != "C"
}

// stdPkg is the standard library's package ip checked from GOROOT's source
// without function bodies (nil when it is not one, or GOROOT has no
// source). A package of the standard library imports golang.org/x
// packages from GOROOT/src/vendor.
func (w *goWorld) stdPkg(ip string) *types.Package {
	if ip == "unsafe" {
		return types.Unsafe
	}
	if p, ok := w.c.std[ip]; ok {
		return p
	}
	goroot := build.Default.GOROOT
	if goroot == "" || w.c.stdBusy[ip] {
		return nil
	}
	dir := filepath.Join(goroot, "src", filepath.FromSlash(ip))
	if !isStd(ip) {
		dir = filepath.Join(goroot, "src", "vendor", filepath.FromSlash(ip))
	}
	ctx := build.Default
	ctx.CgoEnabled = false
	bp, err := ctx.ImportDir(dir, 0)
	if err != nil || len(bp.GoFiles) == 0 {
		if !isStd(ip) {
			return nil
		}
		w.c.std[ip] = nil
		return nil
	}
	w.c.stdBusy[ip] = true
	defer delete(w.c.stdBusy, ip)
	var files []*ast.File
	for _, n := range bp.GoFiles {
		f, err := parser.ParseFile(w.c.fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err == nil {
			files = append(files, f)
		}
	}
	conf := types.Config{
		Importer: importerFunc(func(imp string) (*types.Package, error) {
			if p := w.stdPkg(imp); p != nil {
				return p, nil
			}
			return w.stub(imp), nil
		}),
		Error:            func(error) {},
		IgnoreFuncBodies: true,
		FakeImportC:      true,
	}
	p, _ := conf.Check(ip, w.c.fset, files, nil)
	w.c.std[ip] = p
	return p
}

// corresponding are the uses, in p (a variant of the package declaring
// method obj), of the other methods of obj's name whose receiver
// implements obj's or is implemented by it (each receiver taken as a
// pointer when concrete): gopls's rule for references in the declaring
// package.
func (w *goWorld) corresponding(p *goPkg, obj types.Object, targets map[token.Pos]bool) []Site {
	self := obj
	if o := p.objs[obj.Pos()]; o != nil {
		self = o // the variant's own object
	}
	recv := effectiveRecv(self)
	if recv == nil {
		return nil
	}
	var out []Site
	for _, u := range p.methods[obj.Name()] {
		if _, ok := targets[origin(u.obj).Pos()]; ok {
			continue
		}
		r := effectiveRecv(u.obj)
		if r == nil || !(implementsIface(r, recv) || implementsIface(recv, r)) {
			continue
		}
		fp, line, col := w.position(u.pos)
		out = append(out, Site{Path: fp, Line: line, Column: col, Kind: KindImplementation, Exact: true})
	}
	return out
}

// effectiveRecv is a method's receiver type, a pointer when concrete.
func effectiveRecv(obj types.Object) types.Type {
	f, ok := obj.(*types.Func)
	if !ok {
		return nil
	}
	r := f.Type().(*types.Signature).Recv()
	if r == nil {
		return nil
	}
	t := r.Type()
	if _, ok := t.(*types.Pointer); !ok && !types.IsInterface(t) {
		t = types.NewPointer(t)
	}
	return t
}

// implementsIface reports whether x implements y, an interface with
// methods.
func implementsIface(x, y types.Type) bool {
	i, ok := y.Underlying().(*types.Interface)
	if !ok || i.NumMethods() == 0 {
		return false
	}
	return types.Implements(x, i)
}

// identsOn are p's identifiers of file fp on lines from through to, found
// by position (the identifiers are in file order) rather than by reading
// every identifier's line.
func (w *goWorld) identsOn(p *goPkg, fp string, from, to int) []ident {
	ids := p.idents[fp]
	if len(ids) == 0 {
		return nil
	}
	tf := w.c.fset.File(ids[0].pos)
	if tf == nil || from > tf.LineCount() {
		return nil
	}
	from = max(from, 1)
	lo := tf.LineStart(from)
	hi := token.Pos(tf.Base() + tf.Size() + 1)
	if to < tf.LineCount() {
		hi = tf.LineStart(to + 1)
	}
	i, _ := slices.BinarySearchFunc(ids, lo, func(a ident, t token.Pos) int { return cmp.Compare(a.pos, t) })
	j, _ := slices.BinarySearchFunc(ids, hi, func(a ident, t token.Pos) int { return cmp.Compare(a.pos, t) })
	return ids[i:j]
}
