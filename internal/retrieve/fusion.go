package retrieve

import (
	"fmt"

	"github.com/ctxls/ctxls/internal/index"
)

// collect runs the request's channels in the channel table's order and
// fuses their rankings, then the steps after fusion: the priors
// (priors.go), the file model (filerank.go) and the channels that run
// after them (the neighbors).
func (r *run) collect() error {
	r.text = r.req.Query
	if r.req.Diff != "" {
		r.text += "\n" + diffQueryText(r.diffFiles, r.e.opts.DiffQueryComments)
	}
	r.q = Analyze(r.text)
	var chans []channel
	for _, ch := range r.e.channels {
		if r.weights[ch.name] > 0 && (ch.wants == nil || ch.wants(r)) {
			chans = append(chans, ch)
		}
	}
	for _, ch := range chans {
		if ch.start != nil {
			defer ch.start(r)()
		}
	}
	if err := r.runChannels(chans, false); err != nil {
		return err
	}
	r.priors()
	r.rankFiles()
	return r.runChannels(chans, true)
}

// runChannels runs the channels that run after the priors (after) or
// those that do not, in order, each ranking fused at its weight.
func (r *run) runChannels(chans []channel, after bool) error {
	for _, ch := range chans {
		if ch.after != after {
			continue
		}
		var err error
		if ch.add != nil {
			err = ch.add(r)
		} else {
			var ids []index.ChunkID
			if ids, err = ch.rank(r); err == nil {
				var scale func(index.ChunkID) float64
				if ch.scale != nil {
					scale = ch.scale(r)
				}
				r.fuseScaled(ch.name, r.weights[ch.name], ids, scale)
			}
		}
		if err != nil {
			return fmt.Errorf("%s channel: %w", ch.name, err)
		}
		if err := r.ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// fuseWeighted adds a channel's ranking at weight w.
func (r *run) fuseWeighted(name string, w float64, ids []index.ChunkID) {
	r.fuseScaled(name, w, ids, nil)
}

// fuseScaled adds a channel's ranking at weight w, each entry's share
// times scale(id) when scale is not nil.
func (r *run) fuseScaled(name string, w float64, ids []index.ChunkID, scale func(index.ChunkID) float64) {
	for i, id := range ids {
		s := r.get(id)
		if s == nil {
			continue
		}
		x := w / (r.e.opts.RRFK + float64(i+1))
		if scale != nil {
			x *= scale(id)
		}
		s.score += x
		s.channels[name] += x
	}
}
