package semantic

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/internal/index"
)

// errComposed is returned by what a composed store cannot do: it is
// made again from its parts, never synced or saved whole.
var errComposed = errors.New("a composed vector store is made from its parts (Compose), not synced or saved")

// Compose returns one store over parts, each the vectors of its own files
// (no path in two parts) with its own model: several repositories read
// together, each searched with its own vectors. A query is embedded by
// each part's model (QueryVec: the parts' vectors one after another), each
// part's files are searched with its own, and the hits are merged by the
// total order of Search (score, path, chunk). The parts' order is the
// caller's, and part of the store's identity: ModelID hashes the parts'
// model identities in that order ("" when none has vectors). Parts made
// by an embeddings service are not composed.
func Compose(parts []*Store) (*Store, error) {
	h := sha256.New()
	vectors := false
	for i, p := range parts {
		if p == nil || p.ep != nil || p.epID != "" || p.parts != nil {
			return nil, fmt.Errorf("compose vector stores: part %d is not a store of the workspace embedder", i)
		}
		id := p.ModelID()
		vectors = vectors || id != ""
		fmt.Fprintf(h, "%d\x00%s\x00", i, id)
	}
	s := &Store{parts: slices.Clone(parts)}
	if vectors {
		s.partsID = hex.EncodeToString(h.Sum(nil)[:8])
	}
	return s, nil
}

// queryParts is a composed store's query vector: each part's, one after
// another (a part without vectors adds none; one that knows no term of
// the query adds zeros, which match nothing).
func (s *Store) queryParts(ctx context.Context, text string) ([]float32, error) {
	out := make([]float32, 0, s.dim())
	for _, p := range s.parts {
		if p.dim() == 0 {
			continue
		}
		v, err := p.QueryVec(ctx, text)
		if err != nil {
			return nil, err
		}
		if v == nil { // no term the part knows: its files match nothing
			v = make([]float32, p.dim())
		}
		out = append(out, v...)
	}
	return out, nil
}

// searchParts searches each part with its own share of vec (queryParts)
// and merges their best k.
func (s *Store) searchParts(snap *index.Snapshot, vec []float32, k int, floor float32, allow func(path string) bool) []cand {
	var all []cand
	at := 0
	for _, p := range s.parts {
		d := p.dim()
		if d == 0 {
			continue
		}
		if q := vec[at : at+d]; slices.ContainsFunc(q, func(x float32) bool { return x != 0 }) {
			all = append(all, p.search(snap, q, k, floor, allow)...)
		}
		at += d
	}
	slices.SortFunc(all, byRank)
	return all[:min(k, len(all))]
}

// composedString describes a composed store: its parts, in order.
func (s *Store) composedString() string {
	parts := make([]string, len(s.parts))
	for i, p := range s.parts {
		parts[i] = p.String()
	}
	return fmt.Sprintf("%d parts, model %s: %s", len(s.parts), s.partsID, strings.Join(parts, "; "))
}
