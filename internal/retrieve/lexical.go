package retrieve

import (
	"strings"

	"github.com/ctxls/ctxls/internal/index"
)

// LexicalOptions are the lexical channel's knobs (BM25 over the index).
type LexicalOptions struct {
	// LexicalK is how many BM25 hits the lexical channel asks for.
	LexicalK int
	// LexSymbolBoost, LexPathBoost, LexDocBoost and LexIdentifierBoost are
	// the lexical search's field boosts (index.Query; 0: the index's
	// defaults).
	LexSymbolBoost, LexPathBoost, LexDocBoost, LexIdentifierBoost float64
}

// lexical is BM25 over chunk text, symbol names, paths and doc comments.
func (r *run) lexical() ([]index.ChunkID, error) { return r.lexicalOf(r.q) }

// lexicalOf is the lexical channel for the analyzed text aq.
func (r *run) lexicalOf(aq Analyzed) ([]index.ChunkID, error) {
	if aq.Empty() {
		return nil, nil
	}
	o := r.e.opts
	q := index.Query{Identifiers: aq.Identifiers, Words: aq.Words, Text: strings.Join(aq.Paths, " "),
		SymbolBoost: o.LexSymbolBoost, PathBoost: o.LexPathBoost, DocBoost: o.LexDocBoost, IdentifierBoost: o.LexIdentifierBoost}
	if len(r.req.Include)+len(r.req.Exclude) > 0 {
		q.Filter = r.allowed // k hits that pass include/exclude, not k before filtering
	}
	hits, err := r.snap.Search(r.ctx, q, r.e.opts.LexicalK)
	if err != nil {
		return nil, err
	}
	ids := make([]index.ChunkID, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids, nil
}
