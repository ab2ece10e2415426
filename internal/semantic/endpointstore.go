package semantic

import (
	"context"
	"fmt"
	"runtime"

	"github.com/ctxls/ctxls/internal/index"
)

// BuildEndpoint embeds every chunk of snap with the service ep.
func BuildEndpoint(ctx context.Context, snap *index.Snapshot, ep *Endpoint) (*Store, SyncStats, error) {
	return syncEndpoint(ctx, snap, ep, nil)
}

// hashVec is a chunk's vector, as stored.
type hashVec struct {
	codes []int8
	scale float32
}

// syncEndpoint brings old (nil: none) to snap with ep: files whose content
// changed are embedded again, and of their chunks only those whose text
// (tracking hash) has no vector yet are sent.
func syncEndpoint(ctx context.Context, snap *index.Snapshot, ep *Endpoint, old *Store) (*Store, SyncStats, error) {
	if old != nil && old.ep != nil && old.ep.id() != ep.id() {
		old = nil
	}
	// known's vectors may alias old's cache file: old stays until the end.
	defer runtime.KeepAlive(old)
	known := map[string]hashVec{}
	changed, same, removed := old.compare(snap)
	n := &Store{ep: ep, files: make(map[string]*fileVecs, len(same))}
	for i, p := range snap.Paths() {
		if same[i] != nil {
			n.files[p] = same[i]
		}
	}
	st := SyncStats{Removed: removed}
	if old != nil {
		if len(changed) == 0 && st.Removed == 0 {
			return old, SyncStats{}, nil
		}
		n.epDim = old.epDim
		for _, f := range old.order {
			for i, h := range f.Hashes {
				if f.Scales[i] != 0 {
					known[h] = hashVec{f.Vecs[i*old.epDim : (i+1)*old.epDim], f.Scales[i]}
				}
			}
		}
	}
	// The texts to send: each new tracking hash once, in path order.
	type pending struct {
		path   string
		hashes []string
	}
	var files []pending
	var order []string
	text := map[string]string{}
	for _, p := range changed {
		f, err := snap.File(p)
		if err != nil {
			st.Skipped++
			continue
		}
		pf := pending{path: p}
		for _, c := range snap.ChunksOf(p) {
			h := c.TrackingHash
			pf.hashes = append(pf.hashes, h)
			if _, ok := known[h]; ok {
				continue
			}
			if _, ok := text[h]; ok {
				continue
			}
			body := ""
			if c.StartByte >= 0 && c.EndByte <= len(f.Text) && c.StartByte <= c.EndByte {
				body = f.Text[c.StartByte:c.EndByte]
			}
			text[h] = c.Path + "\n" + c.Doc + body
			order = append(order, h)
		}
		files = append(files, pf)
	}
	if len(order) > 0 {
		texts := make([]string, len(order))
		for i, h := range order {
			texts[i] = text[h]
		}
		vecs, err := ep.embed(ctx, texts)
		if err != nil {
			if ctx.Err() == nil {
				ep.warn(err)
			}
			return nil, st, err
		}
		ep.ok()
		for i, v := range vecs {
			if n.epDim == 0 {
				n.epDim = len(v)
			}
			if len(v) != n.epDim {
				return nil, st, fmt.Errorf("embeddings endpoint: vectors of %d dimensions, %d before (the model changed? delete %s)", len(v), n.epDim, CacheFile)
			}
			hv := hashVec{codes: make([]int8, n.epDim)}
			if normalize(v) {
				hv.scale = quantize(v, hv.codes)
			}
			known[order[i]] = hv
		}
	}
	for _, pf := range files {
		fv := &fileVecs{Vecs: make([]int8, len(pf.hashes)*n.epDim), Scales: make([]float32, len(pf.hashes)), Hashes: pf.hashes}
		fi, _ := snap.Stat(pf.path)
		fv.Hash = fi.Hash
		for i, h := range pf.hashes {
			hv := known[h]
			copy(fv.Vecs[i*n.epDim:(i+1)*n.epDim], hv.codes)
			fv.Scales[i] = hv.scale
		}
		n.files[pf.path] = fv
		st.Embedded++
	}
	n.finish()
	return n, st, nil
}
