package workspace

// Finding a name's definitions and uses in a snapshot (the MCP tool
// find_symbol lists them).

import (
	"cmp"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/internal/index"
)

// maxSymbolHits bounds the definitions and references looked at for one
// name (a name defined or used in more places is listed up to the budget
// from the best of these).
const maxSymbolHits = 2000

// Unit is a code unit of the index, as a face lists it: where it is, what
// it is, its signature and doc comment.
type Unit struct {
	Path          string
	StartLine     int
	EndLine       int
	Kind          string
	Symbol        string
	QualifiedName string
	Language      string
	Signature     string
	Doc           string
}

// FindSymbol returns the units of snap defining name, best first, and,
// when refs is set, the units that use its last component other than its
// definitions (symbolDefs, symbolRefs).
func FindSymbol(snap *index.Snapshot, name string, refs bool) (defs, uses []Unit) {
	ds := symbolDefs(snap, name)
	defs = units(ds)
	if refs {
		uses = units(symbolRefs(snap, name, ds))
	}
	return defs, uses
}

// units are chunks as Units.
func units(cs []index.IndexedChunk) []Unit {
	out := make([]Unit, len(cs))
	for i, c := range cs {
		out[i] = Unit{Path: c.Path, StartLine: c.StartLine, EndLine: c.EndLine, Kind: string(c.Kind), Symbol: c.Symbol,
			QualifiedName: c.QualifiedName, Language: c.Language, Signature: c.Signature, Doc: c.Doc}
	}
	return out
}

// LastName is the last component of a qualified name.
func LastName(name string) string {
	if i := strings.LastIndexAny(name, ".:"); i >= 0 && i+1 < len(name) {
		return name[i+1:]
	}
	return name
}

// symbolDefs returns the chunks defining name, best first: the unit named
// so (symbol or qualified name) before units that merely define it among
// others (a field, a method in a class body), code before tests, then by
// path and line. A qualified name with no definition of its own falls back
// to its last component, preferring units whose qualified name or path
// holds the qualifier.
func symbolDefs(snap *index.Snapshot, name string) []index.IndexedChunk {
	ids, _ := snap.DefsAtMost(name, maxSymbolHits)
	qualifier := ""
	short := LastName(name)
	if len(ids) == 0 && short != name {
		qualifier = strings.TrimRight(name[:len(name)-len(short)], ".:")
		ids, _ = snap.DefsAtMost(short, maxSymbolHits)
	}
	type ranked struct {
		c    index.IndexedChunk
		tier int
	}
	var rs []ranked
	for _, id := range ids {
		c, ok := snap.Chunk(id)
		if !ok || c.Part > 1 {
			continue
		}
		tier := 2
		switch {
		case c.Symbol == name || c.QualifiedName == name || strings.HasSuffix(c.QualifiedName, "."+name):
			tier = 0
		case qualifier != "" && (c.Symbol == short || strings.HasSuffix(c.QualifiedName, "."+short)):
			tier = 1
			if !strings.Contains(c.QualifiedName, qualifier) && !strings.Contains(c.Path, qualifier) {
				tier = 2
			}
		case qualifier == "" && c.Symbol == short:
			tier = 0
		}
		if isTestPath(c.Path) {
			tier += 3
		}
		rs = append(rs, ranked{index.IndexedChunk{ID: id, Chunk: c}, tier})
	}
	slices.SortFunc(rs, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(a.tier, b.tier), strings.Compare(a.c.Path, b.c.Path),
			cmp.Compare(a.c.StartLine, b.c.StartLine), cmp.Compare(a.c.ID, b.c.ID))
	})
	out := make([]index.IndexedChunk, len(rs))
	for i, r := range rs {
		out[i] = r.c
	}
	return out
}

// symbolRefs returns the chunks that use name's last component, other than
// its definitions: code before tests, then by path and line.
func symbolRefs(snap *index.Snapshot, name string, defs []index.IndexedChunk) []index.IndexedChunk {
	ids, _ := snap.RefsAtMost(LastName(name), maxSymbolHits)
	isDef := map[index.ChunkID]bool{}
	for _, d := range defs {
		isDef[d.ID] = true
	}
	var out []index.IndexedChunk
	for _, id := range ids {
		if isDef[id] {
			continue
		}
		if c, ok := snap.Chunk(id); ok {
			out = append(out, index.IndexedChunk{ID: id, Chunk: c})
		}
	}
	slices.SortStableFunc(out, func(a, b index.IndexedChunk) int {
		return cmp.Or(cmp.Compare(boolInt(isTestPath(a.Path)), boolInt(isTestPath(b.Path))),
			strings.Compare(a.Path, b.Path), cmp.Compare(a.StartLine, b.StartLine), cmp.Compare(a.ID, b.ID))
	})
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// isTestPath reports whether a path looks like a test file.
func isTestPath(p string) bool {
	base := p[strings.LastIndexByte(p, '/')+1:]
	return strings.Contains(base, "_test.") || strings.HasPrefix(base, "test_") ||
		strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") ||
		strings.Contains("/"+p, "/test/") || strings.Contains("/"+p, "/tests/") || strings.Contains("/"+p, "/testdata/")
}
