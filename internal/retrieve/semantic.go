package retrieve

import (
	"strings"

	"github.com/ctxls/ctxls/internal/index"
)

// indexState names what the answer is computed from: the snapshot's state
// root and, when the semantic channel is asked (a weight and a store of the
// workspace embedder), its model's identity (index.StateWithModel): the
// vectors depend on the model as well as the content.
func (r *run) indexState() string {
	model := ""
	if r.weights[ChanSemantic] > 0 && r.req.Semantic != nil {
		model = r.req.Semantic.ModelID()
	}
	return index.StateWithModel(r.snap.StateRoot(), model)
}

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
