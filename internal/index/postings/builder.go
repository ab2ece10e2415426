package postings

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"hash/maphash"
	"slices"
	"unsafe"
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

// Reset empties d to be the document id, keeping its buffers: a writer
// that has added d to a store (which keeps nothing of it) can fill it
// again.
func (d *Doc) Reset(id string) {
	d.ID, d.Len = id, [NumFields]uint32{}
	d.terms, d.ents = d.terms[:0], d.ents[:0]
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
	arena  arena // every list's postings
	ids    []string
	lens   []uint32 // NumFields per document
	bytes  int      // encoded postings bytes so far
}

// fieldAcc is one field's terms and their postings under construction.
//
// Its dictionary is an open-addressing table over the terms' bytes kept
// one after another in one buffer, not a map of strings: a build adds
// tens of millions of postings, each a lookup, and a map's string keys
// cost an allocation per new term, a comparison that misses the cache
// per lookup, and the collector's scanning of every key.
type fieldAcc struct {
	seed  maphash.Seed
	slots []uint64 // the hash's top 32 bits, then list index + 1; 0 is free
	terms []byte   // the terms' bytes, in the order they were added
	ends  []uint32 // term i is terms[ends[i-1]:ends[i]] (from 0 for i = 0)
	lists []plist  // list i is term i's
}

// term returns term i; it aliases the buffer.
func (fa *fieldAcc) term(i uint32) []byte {
	start := uint32(0)
	if i > 0 {
		start = fa.ends[i-1]
	}
	return fa.terms[start:fa.ends[i]]
}

// plist is one term's postings so far: (document delta, frequency) pairs
// encoded as in a segment (appendPosting), in blocks of the builder's
// arena.
type plist struct {
	head, tail uint32 // the first and the last block (refs); none while size is 0
	tailCap    uint32 // the last block's capacity
	used       uint32 // bytes used in the last block
	size       uint32 // bytes of postings in all
	next       uint32 // the last document plus one
	df         uint32
}

// The arena's blocks: a list's first block holds firstBlock bytes, each
// next one twice the last, up to maxBlock; a block is its next block's ref
// (4 bytes, little endian) then its bytes. Blocks are cut from pages of
// pageSize bytes, a ref being the page's number and the offset in it.
const (
	firstBlock = 8
	maxBlock   = 2048
	pageBits   = 20
	pageSize   = 1 << pageBits
)

// arena holds every list's postings of a builder: one slice per list
// would cost an allocation at each doubling, copies, and the collector's
// scanning of millions of slice headers; the arena's pages hold no
// pointers.
type arena struct {
	pages [][]byte
}

// alloc returns the ref of a new block of c bytes.
func (a *arena) alloc(c uint32) uint32 {
	need := int(c) + 4
	if n := len(a.pages); n == 0 || len(a.pages[n-1])+need > pageSize {
		a.pages = append(a.pages, make([]byte, 0, pageSize))
	}
	n := len(a.pages) - 1
	off := len(a.pages[n])
	a.pages[n] = a.pages[n][:off+need]
	return uint32(n)<<pageBits | uint32(off)
}

// block returns the bytes of the block at ref (capacity c) and its next
// ref's 4 bytes.
func (a *arena) block(ref, c uint32) (link, data []byte) {
	p := a.pages[ref>>pageBits]
	off := ref & (pageSize - 1)
	return p[off : off+4], p[off+4 : off+4+c]
}

// add appends (doc, freq) to p, doc being past p's last document, and
// returns the bytes it took.
func (p *plist) add(a *arena, doc, freq uint32) int {
	var tmp [2 * binary.MaxVarintLen32]byte
	enc := appendPosting(tmp[:0], doc-p.next, freq)
	if p.size == 0 {
		p.head = a.alloc(firstBlock)
		p.tail, p.tailCap, p.used = p.head, firstBlock, 0
	}
	for rest := enc; len(rest) > 0; {
		if p.used == p.tailCap {
			c := min(2*p.tailCap, maxBlock)
			ref := a.alloc(c)
			link, _ := a.block(p.tail, p.tailCap)
			binary.LittleEndian.PutUint32(link, ref)
			p.tail, p.tailCap, p.used = ref, c, 0
		}
		_, data := a.block(p.tail, p.tailCap)
		n := copy(data[p.used:], rest)
		p.used += uint32(n)
		rest = rest[n:]
	}
	p.size += uint32(len(enc))
	p.next = doc + 1
	p.df++
	return len(enc)
}

// each calls fn with p's postings, block by block, in order.
func (p *plist) each(a *arena, fn func([]byte)) {
	ref, c := p.head, uint32(firstBlock)
	for left := p.size; left > 0; {
		link, data := a.block(ref, c)
		n := min(left, c)
		fn(data[:n])
		left -= n
		ref, c = binary.LittleEndian.Uint32(link), min(2*c, maxBlock)
	}
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder {
	b := &Builder{}
	seed := maphash.MakeSeed()
	for i := range b.fields {
		b.fields[i].seed = seed
		b.fields[i].slots = make([]uint64, 1024)
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
	b.bytes += fa.lists[fa.listFor(t)].add(&b.arena, doc, freq)
}

// listFor returns the index of term t's list, adding an empty one.
func (fa *fieldAcc) listFor(t []byte) uint32 {
	h := maphash.Bytes(fa.seed, t)
	tag := h >> 32 << 32
	mask := uint64(len(fa.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		e := fa.slots[i]
		if e == 0 {
			l := uint32(len(fa.lists))
			fa.slots[i] = tag | uint64(l+1)
			fa.terms = append(fa.terms, t...)
			fa.ends = append(fa.ends, uint32(len(fa.terms)))
			fa.lists = append(fa.lists, plist{})
			if 2*len(fa.lists) > len(fa.slots) {
				fa.grow()
			}
			return l
		}
		if e&^0xffffffff == tag {
			if l := uint32(e) - 1; bytes.Equal(fa.term(l), t) {
				return l
			}
		}
	}
}

// grow doubles the table and places every term again.
func (fa *fieldAcc) grow() {
	fa.slots = make([]uint64, 2*len(fa.slots))
	mask := uint64(len(fa.slots) - 1)
	for l := range fa.lists {
		h := maphash.Bytes(fa.seed, fa.term(uint32(l)))
		i := h & mask
		for fa.slots[i] != 0 {
			i = (i + 1) & mask
		}
		fa.slots[i] = h>>32<<32 | uint64(l+1)
	}
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
	refs := make([]termRef, len(fa.lists))
	for i := range refs {
		t := fa.term(uint32(i)) // the buffer is only appended to: the string stays valid
		refs[i] = termRef{unsafe.String(unsafe.SliceData(t), len(t)), uint32(i)}
	}
	slices.SortFunc(refs, func(a, b termRef) int { return cmp.Compare(a.term, b.term) })
	return refs
}

type termRef struct {
	term string
	list uint32
}
