package retrieve

import (
	"strings"

	"github.com/ctxls/ctxls/internal/index"
)

// semantic is the workspace embedder's channel: the chunks nearest the
// request's text (a question, a diff's query text) in the vector space of
// Request.Semantic. A cursor alone brings no text and so no hits.
func (r *run) semantic(text string) []index.ChunkID {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	st := r.req.Semantic
	var allow func(string) bool
	if len(r.req.Include)+len(r.req.Exclude) > 0 {
		allow = r.allowed
	}
	vec, err := st.QueryVec(r.ctx, text) // an endpoint's failure is told by the store, once
	if err != nil {
		return nil
	}
	hits := st.Search(r.snap, vec, r.e.opts.SemanticK, float32(r.e.opts.SemanticFloor), allow)
	ids := make([]index.ChunkID, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}
