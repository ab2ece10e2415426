package refs

import (
	"cmp"
	"context"
	"strings"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/index/chunk"
	"github.com/ctxls/ctxls/internal/ranges"
	"github.com/ctxls/ctxls/internal/retrieve"
)

// Resolver gives the retrieval engine Go's exact answers
// (retrieve.Resolver): the units calling a changed unit and the
// definitions the names of some lines resolve to, by go/types over the
// module's own packages, with the cache Find uses. It answers only for Go
// in packages that type-check; elsewhere ok is false and the engine goes
// by name.
type Resolver struct{}

// maxResolvedCallers bounds the callers Callers returns, best first
// (Find's ranking): the name graph's bound.
const maxResolvedCallers = 40

// Callers are the units whose code calls or uses the Go unit c's own name
// (a function, a method, a type), the definition's package first, code
// before tests, at most maxResolvedCallers; ok is false when types cannot
// tell (another language, a file outside a module or that does not parse)
// or would take the request past its budget of packages to check (b:
// the module's package variants its answers together may need, counted
// from the tree's imports, not from what is cached, so that the same tree
// answers the same).
func (Resolver) Callers(ctx context.Context, snap *index.Snapshot, c index.IndexedChunk, b *retrieve.ResolveBudget) ([]index.ChunkID, bool) {
	if c.Language != "go" || c.Symbol == "" || c.Kind == chunk.KindHeader {
		return nil, false
	}
	r, ok := goFindDef(ctx, snap, definition{c: c, name: c.Symbol, label: cmp.Or(c.QualifiedName, c.Symbol)}, b)
	if !ok || r == nil {
		return nil, false
	}
	rank(snap, r)
	var out []index.ChunkID
	seen := map[index.ChunkID]bool{c.ID: true}
	for _, s := range r.Sites {
		u, ok := unitAt(snap, s.Path, s.Line)
		if !ok || u.Kind == chunk.KindHeader || seen[u.ID] {
			continue
		}
		seen[u.ID] = true
		out = append(out, u.ID)
		if len(out) == maxResolvedCallers {
			break
		}
	}
	return out, true
}

// Uses are the definitions of the module that the names written on the
// lines of path resolve to (package-level names, methods, fields: their
// units), each with the name, in the file's order; ok is false when types
// cannot tell (not a Go file of a module, or it does not parse) or would
// take the request past its budget b (Callers).
func (Resolver) Uses(ctx context.Context, snap *index.Snapshot, path string, lines []ranges.Range, b *retrieve.ResolveBudget) ([]retrieve.ResolvedUse, bool) {
	if !strings.HasSuffix(path, ".go") || ctx.Err() != nil {
		return nil, false
	}
	used, ok := goUsedBy(snap, retrieve.FileDiff{Path: path, Changed: lines}, b)
	if !ok {
		return nil, false
	}
	out := make([]retrieve.ResolvedUse, 0, len(used))
	seen := map[index.ChunkID]bool{}
	for _, u := range used {
		if !seen[u.id] {
			seen[u.id] = true
			out = append(out, retrieve.ResolvedUse{ID: u.id, Name: u.name})
		}
	}
	return out, true
}
