package retrieve

import (
	"strings"

	"github.com/ctxls/ctxls/internal/index"
)

// SemanticOptions are the semantic channel's knobs.
type SemanticOptions struct {
	// SemanticDiffScale scales the semantic channel's weight in a request
	// with a diff (0: the channel is off for diffs, the default: measured,
	// it costs a diff's files).
	SemanticDiffScale float64
	// SemanticK is how many chunks the semantic channel brings, and
	// SemanticFloor the cosine similarity they need at least.
	SemanticK     int
	SemanticFloor float64
}

// semanticState is the semantic channel's per-request state: its search
// runs beside the other channels (startSemantic) and is fused in its turn
// (semanticChannel).
type semanticState struct {
	semIDs  []index.ChunkID
	semDone chan struct{}
}

// startSemantic starts the semantic channel's search, which reads every
// vector of the snapshot, beside the other channels.
func (r *run) startSemantic() (wait func()) {
	r.semDone = make(chan struct{})
	go func() {
		defer close(r.semDone)
		r.semIDs = r.semantic(r.text)
	}()
	return func() { <-r.semDone }
}

// semanticChannel is the semantic search's ranking, once it has ended.
func (r *run) semanticChannel() ([]index.ChunkID, error) {
	<-r.semDone
	return r.semIDs, nil
}

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
