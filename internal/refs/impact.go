package refs

import (
	"cmp"
	"context"
	"fmt"
	"go/types"
	"path"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/index/chunk"
	"github.com/ctxls/ctxls/internal/retrieve"
)

// MaxDepth is the most hops of callers an impact follows.
const MaxDepth = 5

// FieldDiff and FieldDepth name impact's inputs in its errors.
const (
	FieldDiff  = "diff"
	FieldDepth = "depth"
)

// Reached is a unit a change reaches.
type Reached struct {
	Path    string `json:"path"`
	Line    int    `json:"line" jsonschema:"the unit's first line"`
	EndLine int    `json:"endLine"`
	Symbol  string `json:"symbol,omitempty"`
	Kind    string `json:"kind" jsonschema:"the unit's kind: function, method, type, …"`
	Hop     int    `json:"hop" jsonschema:"0: changed; n: a caller n calls away, or (1) a definition the changed lines use"`
	Reason  string `json:"reason"`
	Exact   bool   `json:"exact" jsonschema:"found by the language's types (false: by name)"`
}

// ImpactResult is what a diff reaches: the changed units (hop 0), their
// callers up to the asked depth and the definitions the changed lines use
// (hop 1), by hop, then path and line.
type ImpactResult struct {
	Reached []Reached
	Exact   bool // every entry was found by types
}

// Impact answers what the unified diff reaches in snap (the tree after
// it): the units holding a changed line, the units that call (or use) a
// changed function or method or use a changed type (its methods, the code
// that takes or makes one) — and their callers, up to depth hops — and
// the definitions of the module that the changed lines use. Go resolves by
// types where its packages type-check; other languages by name, as the
// review mode does (a name with more than three definitions says nothing).
func Impact(ctx context.Context, snap *index.Snapshot, diff string, depth int) (*ImpactResult, error) {
	if depth < 0 || depth > MaxDepth {
		return nil, paramErr(FieldDepth, "%d: want 0 to %d hops of callers", depth, MaxDepth)
	}
	files, err := retrieve.ParseDiff(diff)
	if err != nil {
		return nil, paramErr(FieldDiff, "%v", err)
	}
	if len(files) == 0 {
		return nil, paramErr(FieldDiff, "empty: give a unified diff (git diff) or a revision")
	}
	type key struct {
		path string
		line int
	}
	res := &ImpactResult{}
	at := map[key]int{} // index in res.Reached
	add := func(c chunk.Chunk, hop int, reason string, exact bool) bool {
		k := key{c.Path, c.StartLine}
		if i, ok := at[k]; ok {
			if r := &res.Reached[i]; r.Hop == hop && !strings.Contains(r.Reason, reason) && len(r.Reason) < 300 {
				r.Reason += "; " + reason
			}
			return false
		}
		at[k] = len(res.Reached)
		res.Reached = append(res.Reached, Reached{Path: c.Path, Line: c.StartLine, EndLine: c.EndLine,
			Symbol: cmp.Or(c.QualifiedName, c.Symbol), Kind: string(c.Kind), Hop: hop, Reason: reason, Exact: exact})
		return true
	}
	var frontier []index.IndexedChunk
	for _, fd := range files {
		if fd.Path == "" {
			continue
		}
		for _, c := range snap.ChunksOf(fd.Path) {
			if c.Kind == chunk.KindHeader {
				continue
			}
			var lines []string
			for _, ch := range fd.Changed {
				if s, e := max(ch.Start, c.StartLine), min(ch.End, c.EndLine); s <= e {
					lines = append(lines, lineSpan(s, e))
				}
			}
			if len(lines) == 0 {
				continue
			}
			add(c.Chunk, 0, "changed (lines "+strings.Join(lines, ", ")+")", true)
			if reaches(c.Kind) {
				frontier = append(frontier, c)
			}
		}
	}
	// Callers, hop by hop: the units whose code refers to a unit of the
	// hop before (calls a changed function, uses a changed type).
	for hop := 1; hop <= depth && len(frontier) > 0; hop++ {
		var next []index.IndexedChunk
		for _, u := range frontier {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			r := unitRefs(ctx, snap, u)
			if r == nil {
				continue
			}
			label := cmp.Or(u.QualifiedName, u.Symbol)
			for _, s := range r.Sites {
				c, ok := unitAt(snap, s.Path, s.Line)
				if !ok || c.Path == u.Path && c.StartLine == u.StartLine {
					continue
				}
				verb := "uses "
				if s.Kind == KindCall || s.Kind == KindImplementation {
					verb = "calls "
				}
				if add(c.Chunk, hop, verb+label, s.Exact) && (c.Kind == chunk.KindFunction || c.Kind == chunk.KindMethod) {
					next = append(next, c)
				}
			}
		}
		frontier = next
	}
	// The definitions the changed lines use.
	for _, fd := range files {
		if fd.Path == "" {
			continue
		}
		for _, u := range usedBy(snap, fd) {
			add(u.c, 1, "used by the changed lines ("+u.name+")", u.exact)
		}
	}
	slices.SortStableFunc(res.Reached, func(a, b Reached) int {
		return cmp.Or(cmp.Compare(a.Hop, b.Hop), cmp.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line))
	})
	res.Exact = !slices.ContainsFunc(res.Reached, func(r Reached) bool { return !r.Exact })
	return res, nil
}

// reaches reports whether a change to a unit of kind k reaches the units
// that refer to it: a function's or method's callers, a type's users (a
// struct's, an interface's, a class's: the code that takes, makes or
// implements one). A changed variable or constant block does not: its
// users are followed through the definitions the changed lines use.
func reaches(k chunk.Kind) bool {
	switch k {
	case chunk.KindFunction, chunk.KindMethod, chunk.KindType, chunk.KindInterface, chunk.KindClass:
		return true
	}
	return false
}

func lineSpan(s, e int) string {
	if s == e {
		return fmt.Sprint(s)
	}
	return fmt.Sprintf("%d-%d", s, e)
}

// unitAt is the unit holding line of p (the header too).
func unitAt(snap *index.Snapshot, p string, line int) (index.IndexedChunk, bool) {
	for _, c := range snap.ChunksOf(p) {
		if c.StartLine <= line && line <= c.EndLine {
			return c, true
		}
	}
	return index.IndexedChunk{}, false
}

// unitRefs are the references of the unit u's own name (nil when it has
// none).
func unitRefs(ctx context.Context, snap *index.Snapshot, u index.IndexedChunk) *Result {
	if u.Symbol == "" {
		return nil
	}
	d := definition{c: u, name: u.Symbol, label: cmp.Or(u.QualifiedName, u.Symbol)}
	if u.Language == "go" {
		if r, ok := goFindDef(ctx, snap, d, nil); ok {
			return r
		}
	}
	if _, ok := snap.DefsAtMost(u.Symbol, 5); !ok {
		return nil // a name defined in many places: who "calls" it is noise
	}
	return byName(snap, d)
}

// usedUnit is a definition a diff's changed lines use.
type usedUnit struct {
	c     chunk.Chunk
	id    index.ChunkID
	name  string
	exact bool
}

// usedBy are the definitions fd's changed lines use: by types for a Go
// file of a module (package-level names, methods and fields declared in
// the module), else by name (a name with at most three definitions,
// not the language's builtin).
func usedBy(snap *index.Snapshot, fd retrieve.FileDiff) []usedUnit {
	if strings.HasSuffix(fd.Path, ".go") {
		if out, ok := goUsedBy(snap, fd, nil); ok {
			return out
		}
	}
	lang := chunk.LanguageOf(fd.Path)
	names, _ := retrieve.CodeNames(fd.Added)
	var out []usedUnit
	for _, name := range slices.Sorted(mapsKeys(names)) {
		if len(name) < 2 || retrieve.IsBuiltin(lang, name) {
			continue
		}
		defs, ok := snap.DefsAtMost(name, 3)
		if !ok {
			continue
		}
		for _, id := range defs {
			if c, ok := snap.Chunk(id); ok && c.Kind != chunk.KindHeader && c.Part <= 1 {
				out = append(out, usedUnit{c: c, id: id, name: name})
			}
		}
	}
	return out
}

// goUsedBy is usedBy by types; ok is false when fd's file is no module's
// or does not parse, or (b set) when its package needs more of the
// module's packages checked than the request's budget has left
// (goWorld.within).
func goUsedBy(snap *index.Snapshot, fd retrieve.FileDiff, b *retrieve.ResolveBudget) ([]usedUnit, bool) {
	w, release := newWorld(snap)
	defer release()
	w.budget = b
	dir := path.Dir(fd.Path)
	if w.importPath(dir) == "" {
		return nil, false
	}
	f := w.file(fd.Path)
	if f == nil || f.ast == nil || !f.match {
		return nil, false
	}
	kind := varBase
	if strings.HasSuffix(fd.Path, "_test.go") {
		kind = varTest
		if strings.HasSuffix(f.pkgName, "_test") {
			kind = varXTest
		}
	}
	if !w.within([]variant{{dir, kind}}) {
		return nil, false
	}
	p := w.pkg(variant{dir, kind})
	if p == nil {
		return nil, false
	}
	changed := func(line int) bool {
		for _, r := range fd.Changed {
			if r.Start <= line && line <= r.End {
				return true
			}
		}
		return false
	}
	var out []usedUnit
	for _, id := range p.idents[fd.Path] {
		_, line, _ := w.position(id.pos)
		if id.def || !changed(line) {
			continue
		}
		obj := w.objectOf(id.decl)
		if obj == nil || !moduleLevel(obj) {
			continue
		}
		dp, dl, _ := w.position(id.decl)
		if c, ok := unitAt(snap, dp, dl); ok {
			out = append(out, usedUnit{c: c.Chunk, id: c.ID, name: obj.Name(), exact: true})
		}
	}
	return out, true
}

// moduleLevel reports whether obj is a package-level name, a method or a
// field (not a local, a parameter or a label).
func moduleLevel(obj types.Object) bool {
	switch o := obj.(type) {
	case *types.Func:
		return true
	case *types.Var:
		return o.IsField() || o.Parent() == o.Pkg().Scope()
	case *types.TypeName, *types.Const:
		return o.Pkg() != nil && o.Parent() == o.Pkg().Scope()
	}
	return false
}

// List renders r within maxTokens (see list): a head line, then
// "path:line-end hop N symbol: reason" per unit.
func (r *ImpactResult) List(maxTokens int, count func(string) int) Listing {
	how := "by types"
	if !r.Exact {
		how = "partly by name"
	}
	head := fmt.Sprintf("The change reaches %d units, %s\n", len(r.Reached), how)
	entries := make([]entry, len(r.Reached))
	for i, u := range r.Reached {
		l := fmt.Sprintf("%s:%d-%d hop %d %s %s: %s", u.Path, u.Line, u.EndLine, u.Hop, u.Kind, cmp.Or(u.Symbol, "-"), u.Reason)
		if !u.Exact {
			l += " (by name)"
		}
		entries[i] = entry{line: assemble.InlineText(l) + "\n",
			omitted: Omitted{Path: u.Path, Line: u.Line, Symbol: u.Symbol, Kind: u.Kind, Handle: handle(u.Path, u.Line, u.Line, u.EndLine)}}
	}
	return list(head, entries, maxTokens, count)
}
