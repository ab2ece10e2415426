package postings

import (
	"cmp"
	"encoding/binary"
	"slices"
)

// NumFields is the number of fields of a document.
const NumFields = 4

// Doc is one document to index: its ID, and per field its distinct terms
// with their frequencies and the field's length in terms. Fill it with
// Add; the zero Doc (with an ID) is an empty document.
type Doc struct {
	ID  string
	Len [NumFields]uint32

	terms []byte    // the terms' bytes, one after the other
	ents  []termEnt // one per (field, term), in the order added
}

type termEnt struct {
	end   uint32 // end of the term in terms
	freq  uint32
	field uint8
}

// Add records that field f of d has term t (not empty) freq times. A
// (field, term) pair is added at most once per document.
func (d *Doc) Add(f int, t []byte, freq uint32) {
	d.terms = append(d.terms, t...)
	d.ents = append(d.ents, termEnt{end: uint32(len(d.terms)), freq: freq, field: uint8(f)})
}

// Terms calls fn for each (field, term, frequency) of d, in the order
// added. The term aliases d's storage.
func (d *Doc) Terms(fn func(f int, t []byte, freq uint32)) {
	start := uint32(0)
	for _, e := range d.ents {
		fn(int(e.field), d.terms[start:e.end], e.freq)
		start = e.end
	}
}

// Builder accumulates documents in memory and encodes them as one
// segment. Document numbers are assigned in the order documents are
// added; each term's postings are appended in that order.
type Builder struct {
	fields [NumFields]fieldAcc
	ids    []string
	lens   []uint32 // NumFields per document
	bytes  int      // encoded postings bytes so far
}

// fieldAcc is one field's terms and their postings under construction.
type fieldAcc struct {
	dict  map[string]uint32 // term → index into lists
	lists []plist
}

// plist is one term's postings so far: (document delta, frequency) pairs
// encoded as in a segment (appendPosting).
type plist struct {
	buf  []byte
	next uint32 // the last document plus one
	df   uint32
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder {
	b := &Builder{}
	for i := range b.fields {
		b.fields[i].dict = make(map[string]uint32)
	}
	return b
}

// Len returns the number of documents added.
func (b *Builder) Len() int { return len(b.ids) }

// Add appends d as the next document and returns its number.
func (b *Builder) Add(d *Doc) uint32 {
	doc := b.newDoc(d.ID, d.Len)
	d.Terms(func(f int, t []byte, freq uint32) { b.addPosting(f, t, doc, freq) })
	return doc
}

func (b *Builder) newDoc(id string, lens [NumFields]uint32) uint32 {
	doc := uint32(len(b.ids))
	b.ids = append(b.ids, id)
	b.lens = append(b.lens, lens[:]...)
	return doc
}

// addPosting appends (doc, freq) to the postings of term t of field f;
// doc is at least every document already in that list.
func (b *Builder) addPosting(f int, t []byte, doc, freq uint32) {
	fa := &b.fields[f]
	b.bytes += fa.lists[fa.listFor(t)].add(doc, freq)
}

// listFor returns the index of term t's list, adding an empty one.
func (fa *fieldAcc) listFor(t []byte) uint32 {
	i, ok := fa.dict[string(t)]
	if !ok {
		i = uint32(len(fa.lists))
		fa.dict[string(t)] = i
		fa.lists = append(fa.lists, plist{})
	}
	return i
}

// add appends (doc, freq) to p, doc being past p's last document, and
// returns the bytes it took.
func (p *plist) add(doc, freq uint32) int {
	n := len(p.buf)
	p.buf = appendPosting(p.buf, doc-p.next, freq)
	p.next = doc + 1
	p.df++
	return len(p.buf) - n
}

// appendPosting encodes one posting: the distance from the previous
// document of the list (plus one) shifted left once, its low bit set when
// the frequency is 1; otherwise the frequency follows.
func appendPosting(buf []byte, delta, freq uint32) []byte {
	if freq == 1 {
		return binary.AppendUvarint(buf, uint64(delta)<<1|1)
	}
	buf = binary.AppendUvarint(buf, uint64(delta)<<1)
	return binary.AppendUvarint(buf, uint64(freq))
}

// sortedTerms returns field f's terms in byte order with their list
// indexes.
func (fa *fieldAcc) sortedTerms() []termRef {
	refs := make([]termRef, 0, len(fa.dict))
	for t, i := range fa.dict {
		refs = append(refs, termRef{t, i})
	}
	slices.SortFunc(refs, func(a, b termRef) int { return cmp.Compare(a.term, b.term) })
	return refs
}

type termRef struct {
	term string
	list uint32
}
