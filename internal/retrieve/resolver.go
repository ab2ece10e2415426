package retrieve

import (
	"context"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/index/chunk"
	"github.com/ctxls/ctxls/internal/ranges"
)

// Resolver resolves names by a language's types where it can (package
// refs does, for Go): the review mode's callers of a changed unit and the
// definitions its changed lines use, and the definitions of the names
// around the cursor, are then exact rather than by name — a Write on an
// http.ResponseWriter is not the workspace's Response.Write, and a method
// name defined on many types still finds its own callers. Each answer's
// ok is false where types cannot tell (another language, a file that
// does not parse, a package outside a module): the engine goes by name
// there. Implementations are safe for concurrent use and cache what they
// compute per content, so that asking again is cheap.
//
// Every answer of one request draws on one ResolveBudget: the packages
// all of them together may need checked, so that a change of a hundred
// files costs what one of them may, not a hundred times that.
type Resolver interface {
	// Callers are the units calling or using unit c, best first.
	Callers(ctx context.Context, snap *index.Snapshot, c index.IndexedChunk, b *ResolveBudget) ([]index.ChunkID, bool)
	// Uses are the definitions the names written on lines of path
	// resolve to, each once, in the file's order.
	Uses(ctx context.Context, snap *index.Snapshot, path string, lines []ranges.Range, b *ResolveBudget) ([]ResolvedUse, bool)
}

// ResolveBudget is what one request's answers by types may need checked
// together: at most Max distinct packages, as the Resolver names and
// counts them (from the tree's files, not from what it has cached, so
// that the same tree and request answer the same). An answer that would
// take the request past it is not given (the engine goes by name), and
// takes nothing from it.
type ResolveBudget struct {
	Max int
	// Admitted are the packages the request's answers so far needed.
	Admitted map[string]bool
}

// Admit adds need to the packages admitted when all of them together
// stay within Max, and reports whether they did.
func (b *ResolveBudget) Admit(need []string) bool {
	fresh := 0
	for _, k := range need {
		if !b.Admitted[k] {
			fresh++
		}
	}
	if len(b.Admitted)+fresh > b.Max {
		return false
	}
	if b.Admitted == nil {
		b.Admitted = map[string]bool{}
	}
	for _, k := range need {
		b.Admitted[k] = true
	}
	return true
}

// ResolvedUse is a definition a name resolves to: its unit, and the name.
type ResolvedUse struct {
	ID   index.ChunkID
	Name string
}

// WithResolver returns a copy of e that resolves names by res where it
// can (nil: by name only).
func (e *Engine) WithResolver(res Resolver) *Engine {
	c := *e
	c.resolver = res
	return &c
}

// resolveBudget is the request's ResolveBudget, made on first use with
// the engine's bound (Options.ResolvePackages).
func (r *run) resolveBudget() *ResolveBudget {
	if r.typeBudget == nil {
		r.typeBudget = &ResolveBudget{Max: r.e.opts.ResolvePackages}
	}
	return r.typeBudget
}

// typedCallers are, under review, the callers of the changed unit c by
// types (ok false: go by name).
func (r *run) typedCallers(c index.IndexedChunk) ([]index.ChunkID, bool) {
	if r.e.resolver == nil || r.req.Mode != ModeReview || c.Language != "go" {
		return nil, false
	}
	return r.e.resolver.Callers(r.ctx, r.snap, c, r.resolveBudget())
}

// typedUses are the definitions the names on lines of path resolve to by
// types, by name (ok false: go by name).
func (r *run) typedUses(path string, lines []ranges.Range) (map[string][]index.ChunkID, []string, bool) {
	if r.e.resolver == nil || chunk.LanguageOf(path) != "go" {
		return nil, nil, false
	}
	uses, ok := r.e.resolver.Uses(r.ctx, r.snap, path, lines, r.resolveBudget())
	if !ok {
		return nil, nil, false
	}
	byName := map[string][]index.ChunkID{}
	var order []string
	for _, u := range uses {
		if _, ok := byName[u.Name]; !ok {
			order = append(order, u.Name)
		}
		byName[u.Name] = append(byName[u.Name], u.ID)
	}
	return byName, order, true
}

// typedUsedByChanges are, under review, the definitions the changed lines
// of a Go file fd use by types (usedByChanges by name otherwise), in the
// order of their names, not in seen (which is updated); their names are
// noted (usedNames). ok is false where types cannot tell.
func (r *run) typedUsedByChanges(fd FileDiff, seen map[index.ChunkID]bool) ([]index.ChunkID, bool) {
	if r.req.Mode != ModeReview {
		return nil, false
	}
	byName, order, ok := r.typedUses(fd.Path, fd.Changed)
	if !ok {
		return nil, false
	}
	var out []index.ChunkID
	for _, name := range order {
		for _, id := range byName[name] {
			if seen[id] {
				continue
			}
			if c, ok := r.snap.Chunk(id); !ok || c.Path == fd.Path && c.Kind == chunk.KindHeader {
				continue // the diff's own file's header: its imports, its package clause
			}
			seen[id] = true
			if r.usedNames == nil {
				r.usedNames = map[index.ChunkID]string{}
			}
			r.usedNames[id] = name
			out = append(out, id)
		}
	}
	return out, true
}
