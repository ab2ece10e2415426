package postings

import (
	"bytes"
	"testing"
)

// FuzzSegment: any bytes either fail to open as a segment or can be read
// all through — every term's postings, every document's ID and field
// lengths — without a panic or a read out of bounds.
func FuzzSegment(f *testing.F) {
	b := NewBuilder()
	for _, id := range []string{"a.go#0", "a.go#1", "b.go#0"} {
		d := &Doc{ID: id, Len: [NumFields]uint32{3, 1, 2, 0}}
		d.Add(0, []byte("stitch"), 2)
		d.Add(0, []byte(id[:1]), 1)
		d.Add(1, []byte("stitch"), 1)
		d.Add(2, []byte("go"), 1)
		b.Add(d)
	}
	var buf bytes.Buffer
	if err := encode(b, &buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := openSegment(data)
		if err != nil {
			return
		}
		_ = s.Verify()
		for doc := range s.NumDocs() {
			_ = s.ID(doc)
			for fi := range NumFields {
				_ = s.FieldLen(doc, fi)
			}
		}
		for fi := range NumFields {
			s.terms(fi, func(term, post []byte) {
				// A damaged term table need not be sorted: a lookup may
				// miss, it must not panic.
				s.lookup(fi, string(term))
				it := Iter{b: post}
				for {
					if _, _, ok := it.Next(); !ok {
						break
					}
				}
			})
		}
	})
}
