package postings

import (
	"math"
	"runtime"
	"sort"

	"github.com/ctxls/ctxls/internal/cachefile"
)

// Reader is an immutable view of a store: what it held when Reader was
// called. Documents are numbered across the view's segments (a
// segment's documents follow the previous segment's). Safe for
// concurrent use. Keep the Reader reachable while its Postings are
// iterated: they read its segments in place.
type Reader struct {
	views []view
	total uint32 // documents, deleted or not
	live  uint64
}

type view struct {
	seg  *Segment
	hold *cachefile.Mapped
	del  bitset
	ndel uint32
	base uint32
}

// NumDocs returns the number of live documents.
func (r *Reader) NumDocs() uint64 {
	if r == nil {
		return 0
	}
	return r.live
}

// ID returns the ID of document doc ("" if there is none).
func (r *Reader) ID(doc uint32) string {
	if r == nil || doc >= r.total {
		return ""
	}
	i := sort.Search(len(r.views), func(i int) bool { return r.views[i].base > doc }) - 1
	if i < 0 {
		return ""
	}
	v := &r.views[i]
	id := v.seg.ID(doc - v.base)
	runtime.KeepAlive(v.hold)
	return id
}

// Postings iterates the live postings of one term of one field across a
// Reader's segments.
type Postings struct {
	r     *Reader
	f     int
	parts []part
	cur   int
	it    Iter
	pos   int // into the current part's live
	// DF is the number of live documents with the term.
	DF uint64
}

// part is one segment's postings of a term: encoded, or, in a segment
// with deleted documents, decoded once (to count the live ones) into
// live, each document in the high 32 bits and its frequency in the low.
type part struct {
	v    *view
	post []byte
	live []uint64
}

// Lookup returns the postings of term t in field f.
func (r *Reader) Lookup(f int, t string) *Postings {
	p := &Postings{r: r, f: f, cur: -1}
	if r == nil || f < 0 || f >= NumFields {
		return p
	}
	for i := range r.views {
		v := &r.views[i]
		ti, ok := v.seg.lookup(f, t)
		if !ok {
			continue
		}
		post, df := v.seg.postings(f, ti)
		if len(post) == 0 {
			continue
		}
		pt := part{v: v, post: post}
		if v.ndel > 0 {
			pt.live = make([]uint64, 0, min(int(df), len(post))) // a posting takes a byte or more
			it := Iter{b: post}
			for {
				d, fr, ok := it.Next()
				if !ok {
					break
				}
				if d < v.seg.docs && !v.del.has(d) {
					pt.live = append(pt.live, uint64(d)<<32|uint64(fr))
				}
			}
			if df = uint32(len(pt.live)); df == 0 {
				continue
			}
		}
		p.DF += uint64(df)
		p.parts = append(p.parts, pt)
	}
	return p
}

// Next returns the next live document, its term frequency and the
// length of the field in that document; ok is false at the end.
func (p *Postings) Next() (doc, freq, fieldLen uint32, ok bool) {
	for {
		if p.cur >= 0 {
			pt := &p.parts[p.cur]
			v := pt.v
			if pt.live != nil {
				if p.pos < len(pt.live) {
					e := pt.live[p.pos]
					p.pos++
					d := uint32(e >> 32)
					return v.base + d, uint32(e), v.seg.FieldLen(d, p.f), true
				}
			} else {
				for {
					d, fr, ok := p.it.Next()
					if !ok {
						break
					}
					if d < v.seg.docs {
						return v.base + d, fr, v.seg.FieldLen(d, p.f), true
					}
				}
			}
		}
		if p.cur+1 >= len(p.parts) {
			runtime.KeepAlive(p.r)
			return 0, 0, 0, false
		}
		p.cur++
		p.it, p.pos = Iter{b: p.parts[p.cur].post}, 0
	}
}

// Norm returns the length normalization of a field of length n as a
// float32, as Lucene and bleve store it (1/√n), widened to float64.
func Norm(n uint32) float64 {
	return float64(float32(1 / math.Sqrt(float64(n))))
}
