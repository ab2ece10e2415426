package retrieve

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	"github.com/ctxls/ctxls/internal/index"
)

// SymbolOptions are the symbol channel's knobs.
type SymbolOptions struct {
	// SymbolWords lets the symbol channel look up plain query words (and
	// their capitalized forms) as definition names, not only identifiers.
	SymbolWords bool
}

// symbol maps identifiers of the request to the chunks that define them,
// most specific names first: long camelCase/snake_case names rank high
// (aider weights them ×10), names defined in many places rank low.
func (r *run) symbol() ([]index.ChunkID, error) { return r.symbolOf(r.q) }

// symbolOf is the symbol channel for the analyzed text aq.
func (r *run) symbolOf(aq Analyzed) ([]index.ChunkID, error) {
	type named struct {
		name   string
		weight float64
		defs   []index.ChunkID
	}
	var names []named
	seen := map[string]bool{}
	var pathWords map[string]bool // pathMatchWords(aq), when first needed
	consider := func(name string, base float64) {
		if seen[name] || len(name) < 2 {
			return
		}
		seen[name] = true
		defs, ok := r.snap.DefsAtMost(name, 30)
		if !ok || len(defs) == 0 {
			return // unknown, or too common to point anywhere
		}
		w := base
		if len(name) >= 8 && codeLike(name) {
			w *= 2
		}
		if len(defs) > 5 {
			w /= float64(len(defs)) / 5
			if r.req.Diff == "" { // a diff's words name paths it does not mean
				if pathWords == nil {
					pathWords = pathMatchWords(aq)
				}
				defs = byPathMatch(defs, aq.Paths, pathWords)
			}
			defs = defs[:min(len(defs), 10)]
		}
		names = append(names, named{name, w, defs})
	}
	for _, id := range aq.Identifiers {
		consider(id, 1)
	}
	for _, w := range aq.Words {
		if len(w) >= 4 && r.e.opts.SymbolWords {
			consider(w, 0.5)
			consider(capitalize(w), 0.5)
		}
	}
	slices.SortStableFunc(names, func(a, b named) int { return cmp.Compare(b.weight, a.weight) })
	var ids []index.ChunkID
	added := map[index.ChunkID]bool{}
	for _, n := range names {
		for _, d := range n.defs {
			if !added[d] {
				added[d] = true
				ids = append(ids, d)
			}
		}
	}
	return ids, nil
}

// byPathMatch orders the definitions of one name (a method every driver
// defines: clearDatabase) by how well their file's path matches the
// request's paths and words (pathMatchWords; the postgres driver's for
// "postgres: … clearDatabase"), stably: it is the order the symbol
// channel ranks them in and keeps the first few of. defs is not modified.
func byPathMatch(defs []index.ChunkID, qpaths []string, words map[string]bool) []index.ChunkID {
	type def struct {
		id    index.ChunkID
		score float64
	}
	ds := make([]def, len(defs))
	ms := newPathMentions(qpaths)
	for i, id := range defs {
		p, _, _ := id.Split()
		ds[i] = def{id, ms.score(p, words, true)}
	}
	slices.SortStableFunc(ds, func(a, b def) int { return cmp.Compare(b.score, a.score) })
	out := make([]index.ChunkID, len(ds))
	for i, d := range ds {
		out[i] = d.id
	}
	return out
}

// pathMatchWords are the lower-cased words and identifiers of aq (three
// letters or more) that pathScore matches file paths against.
func pathMatchWords(aq Analyzed) map[string]bool {
	words := map[string]bool{}
	for _, w := range aq.Words {
		if len(w) >= 3 {
			words[w] = true
		}
	}
	for _, id := range aq.Identifiers {
		if len(id) >= 3 {
			words[strings.ToLower(id)] = true
		}
	}
	return words
}

func capitalize(s string) string {
	rs := []rune(s)
	rs[0] = unicode.ToUpper(rs[0])
	return string(rs)
}
