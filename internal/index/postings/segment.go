package postings

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
	"strings"
)

// A segment's bytes:
//
//	"CTXLSPS2"
//	idEnds     u32 × docs   end of each document's ID in idBytes
//	idBytes
//	lens       u32 × docs × NumFields
//	idOrder    u32 × docs   the documents in the byte order of their IDs
//	                        (ties by document): Find searches it
//	per field:
//	  termEnds u32 × terms  end of each term in termBytes
//	  termBytes             the terms, in byte order
//	  postEnds u64 × terms  end of each term's postings in the postings blob
//	  df       u32 × terms
//	postings                every field's postings, in the order of the terms
//	footer     u64 × footerWords: the sections' offsets (segFooter)
//	crc        u32, big endian: CRC-32 (IEEE) of everything before it
//
// All integers are little endian but the CRC, which is laid out as in
// the segment files the index verifies (storage.go). A postings list is a
// sequence of appendPosting entries, by increasing document.
const (
	segMagic    = "CTXLSPS2"
	footerMagic = 0x32534f50534c5843 // "CXLSPOS2"
	footerWords = 4 + 5*NumFields + 4
)

// ErrDamaged is the error of a segment whose bytes do not hold together.
var ErrDamaged = errors.New("postings segment damaged")

// Segment is a read-only view of an encoded segment.
type Segment struct {
	data    []byte
	docs    uint32
	idEnds  []byte
	idBytes []byte
	lens    []byte
	idOrder []byte
	fields  [NumFields]segField
	post    []byte
}

type segField struct {
	terms     uint32
	termEnds  []byte
	termBytes []byte
	postEnds  []byte
	df        []byte
}

// encode writes b's documents as a segment to w.
func encode(b *Builder, w io.Writer) error {
	h := crc32.NewIEEE()
	bw := bufio.NewWriterSize(io.MultiWriter(w, h), 1<<20)
	var off uint64
	var scratch [8]byte
	put := func(p []byte) {
		_, _ = bw.Write(p)
		off += uint64(len(p))
	}
	u32 := func(v uint32) { binary.LittleEndian.PutUint32(scratch[:4], v); put(scratch[:4]) }
	u64 := func(v uint64) { binary.LittleEndian.PutUint64(scratch[:], v); put(scratch[:]) }

	put([]byte(segMagic))
	footer := make([]uint64, 0, footerWords)
	footer = append(footer, uint64(len(b.ids)), off)
	end := uint32(0)
	for _, id := range b.ids {
		end += uint32(len(id))
		u32(end)
	}
	footer = append(footer, off)
	for _, id := range b.ids {
		put([]byte(id))
	}
	footer = append(footer, off)
	for _, l := range b.lens {
		u32(l)
	}
	order := make([]uint32, len(b.ids))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(x, y uint32) int {
		if c := strings.Compare(b.ids[x], b.ids[y]); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})
	idOrderOff := off
	for _, d := range order {
		u32(d)
	}
	sorted := make([][]termRef, NumFields)
	postEnd := uint64(0)
	for f := range NumFields {
		fa := &b.fields[f]
		refs := fa.sortedTerms()
		sorted[f] = refs
		footer = append(footer, uint64(len(refs)), off)
		end = 0
		for _, r := range refs {
			end += uint32(len(r.term))
			u32(end)
		}
		footer = append(footer, off)
		for _, r := range refs {
			put([]byte(r.term))
		}
		footer = append(footer, off)
		for _, r := range refs {
			postEnd += uint64(fa.lists[r.list].size)
			u64(postEnd)
		}
		footer = append(footer, off)
		for _, r := range refs {
			u32(fa.lists[r.list].df)
		}
	}
	footer = append(footer, off, postEnd, idOrderOff, footerMagic)
	for f := range NumFields {
		for _, r := range sorted[f] {
			b.fields[f].lists[r.list].each(&b.arena, put)
		}
	}
	for _, v := range footer {
		u64(v)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	binary.BigEndian.PutUint32(scratch[:4], h.Sum32())
	_, err := w.Write(scratch[:4])
	return err
}

// openSegment reads the footer of data, an encoded segment, and checks
// that its sections lie within it. It does not check the CRC (Verify).
func openSegment(data []byte) (*Segment, error) {
	const tail = footerWords*8 + 4
	if len(data) < len(segMagic)+tail || string(data[:len(segMagic)]) != segMagic {
		return nil, fmt.Errorf("%w: no segment header", ErrDamaged)
	}
	fstart := len(data) - tail
	var w [footerWords]uint64
	for i := range w {
		w[i] = binary.LittleEndian.Uint64(data[fstart+8*i:])
	}
	if w[footerWords-1] != footerMagic {
		return nil, fmt.Errorf("%w: no segment footer", ErrDamaged)
	}
	limit := uint64(fstart)
	bad := false
	section := func(off, size uint64) []byte {
		if off > limit || size > limit-off {
			bad = true
			return nil
		}
		return data[off : off+size]
	}
	s := &Segment{data: data}
	if w[0] > 1<<31 {
		return nil, fmt.Errorf("%w: %d documents", ErrDamaged, w[0])
	}
	s.docs = uint32(w[0])
	n := uint64(s.docs)
	// lastEnd is the last entry of a u32 ends table of k entries: its
	// blob's length.
	lastEnd := func(ends []byte, k uint64) uint64 {
		if k == 0 || bad {
			return 0
		}
		return uint64(binary.LittleEndian.Uint32(ends[4*(k-1):]))
	}
	s.idEnds = section(w[1], 4*n)
	s.idBytes = section(w[2], lastEnd(s.idEnds, n))
	s.lens = section(w[3], 4*NumFields*n)
	s.idOrder = section(w[6+5*NumFields], 4*n)
	pstart, plen := w[4+5*NumFields], w[5+5*NumFields]
	s.post = section(pstart, plen)
	for f := range NumFields {
		v := w[4+5*f : 9+5*f]
		if v[0] > 1<<31 {
			return nil, fmt.Errorf("%w: %d terms", ErrDamaged, v[0])
		}
		sf := &s.fields[f]
		sf.terms = uint32(v[0])
		t := uint64(sf.terms)
		sf.termEnds = section(v[1], 4*t)
		sf.termBytes = section(v[2], lastEnd(sf.termEnds, t))
		sf.postEnds = section(v[3], 8*t)
		sf.df = section(v[4], 4*t)
	}
	if bad {
		return nil, fmt.Errorf("%w: a section lies outside the segment", ErrDamaged)
	}
	return s, nil
}

// Verify checks the segment's CRC.
func (s *Segment) Verify() error {
	n := len(s.data) - 4
	if got, want := crc32.ChecksumIEEE(s.data[:n]), binary.BigEndian.Uint32(s.data[n:]); got != want {
		return fmt.Errorf("%w: checksum %08x, footer says %08x", ErrDamaged, got, want)
	}
	return nil
}

// NumDocs returns the number of documents of the segment, deleted or not.
func (s *Segment) NumDocs() uint32 { return s.docs }

// Size returns the segment's size in bytes.
func (s *Segment) Size() int { return len(s.data) }

// span returns [start, end) of entry i of a u32 ends table over a blob
// of n bytes, or false when the table is inconsistent.
func span(ends []byte, i uint32, n int) (uint32, uint32, bool) {
	start := uint32(0)
	if i > 0 {
		start = binary.LittleEndian.Uint32(ends[4*(i-1):])
	}
	end := binary.LittleEndian.Uint32(ends[4*i:])
	if start > end || int(end) > n {
		return 0, 0, false
	}
	return start, end, true
}

// ID returns the ID of document doc.
func (s *Segment) ID(doc uint32) string {
	if doc >= s.docs {
		return ""
	}
	a, b, ok := span(s.idEnds, doc, len(s.idBytes))
	if !ok {
		return ""
	}
	return string(s.idBytes[a:b])
}

// Find calls fn with each document whose ID is id, by a binary search of
// the documents in ID order (no map of every ID is built), until fn
// returns true.
func (s *Segment) Find(id string, fn func(doc uint32) bool) {
	idAt := func(k uint32) ([]byte, uint32, bool) {
		d := binary.LittleEndian.Uint32(s.idOrder[4*k:])
		if d >= s.docs {
			return nil, 0, false
		}
		a, b, ok := span(s.idEnds, d, len(s.idBytes))
		if !ok {
			return nil, 0, false
		}
		return s.idBytes[a:b], d, true
	}
	lo, hi := uint32(0), s.docs
	for lo < hi {
		m := lo + (hi-lo)/2
		b, _, ok := idAt(m)
		if !ok {
			return // damaged: found nowhere (the CRC check reports it)
		}
		if string(b) < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	for k := lo; k < s.docs; k++ {
		b, d, ok := idAt(k)
		if !ok || string(b) != id {
			return
		}
		if fn(d) {
			return
		}
	}
}

// FieldLen returns the length in terms of field f of document doc.
func (s *Segment) FieldLen(doc uint32, f int) uint32 {
	i := 4 * (uint64(doc)*NumFields + uint64(f))
	if i+4 > uint64(len(s.lens)) {
		return 0
	}
	return binary.LittleEndian.Uint32(s.lens[i:])
}

// term returns term i of field f.
func (sf *segField) term(i uint32) []byte {
	a, b, ok := span(sf.termEnds, i, len(sf.termBytes))
	if !ok {
		return nil
	}
	return sf.termBytes[a:b]
}

// lookup returns the index of term t in field f.
func (s *Segment) lookup(f int, t string) (uint32, bool) {
	sf := &s.fields[f]
	lo, hi := uint32(0), sf.terms
	for lo < hi {
		m := lo + (hi-lo)/2
		if string(sf.term(m)) < t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < sf.terms && string(sf.term(lo)) == t {
		return lo, true
	}
	return 0, false
}

// postings returns the encoded postings of term i of field f and its
// document frequency.
func (s *Segment) postings(f int, i uint32) ([]byte, uint32) {
	sf := &s.fields[f]
	end := binary.LittleEndian.Uint64(sf.postEnds[8*i:])
	start := uint64(0)
	switch {
	case i > 0:
		start = binary.LittleEndian.Uint64(sf.postEnds[8*(i-1):])
	case f > 0:
		// The first term of a field starts where the previous field's
		// postings end.
		for g := f - 1; g >= 0; g-- {
			if pg := &s.fields[g]; pg.terms > 0 {
				start = binary.LittleEndian.Uint64(pg.postEnds[8*(pg.terms-1):])
				break
			}
		}
	}
	if start > end || end > uint64(len(s.post)) {
		return nil, 0
	}
	return s.post[start:end], binary.LittleEndian.Uint32(sf.df[4*i:])
}

// Iter iterates one postings list.
type Iter struct {
	b    []byte
	next uint32
}

// Next returns the next document of the list and its term frequency;
// ok is false at the end (or where the list is damaged).
func (it *Iter) Next() (doc, freq uint32, ok bool) {
	if len(it.b) == 0 {
		return 0, 0, false
	}
	v, n := binary.Uvarint(it.b)
	if n <= 0 {
		it.b = nil
		return 0, 0, false
	}
	it.b = it.b[n:]
	freq = 1
	if v&1 == 0 {
		f, m := binary.Uvarint(it.b)
		if m <= 0 {
			it.b = nil
			return 0, 0, false
		}
		it.b = it.b[m:]
		freq = uint32(f)
	}
	doc = it.next + uint32(v>>1)
	it.next = doc + 1
	return doc, freq, true
}

// terms calls fn for each term of field f in byte order with its
// postings.
func (s *Segment) terms(f int, fn func(t []byte, post []byte)) {
	for i := range s.fields[f].terms {
		p, _ := s.postings(f, i)
		fn(s.fields[f].term(i), p)
	}
}
