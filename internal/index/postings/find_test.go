package postings

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// TestChangeAfterOpenMapsNoStore: the first change to a store opened
// from disk finds the documents it replaces by a search of their segment
// (Segment.Find), without a map of every live document: an edit costs its
// own documents, not the store's. A document added twice before a seal
// (the first deleted) is found live once.
func TestChangeAfterOpenMapsNoStore(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	dir := filepath.Join(t.TempDir(), "p")
	s, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		d, _ := randomDoc(rng, fmt.Sprintf("f%03d.go#0", i))
		s.Add(d)
	}
	twice, _ := randomDoc(rng, "f500.go#0") // replaces the first, in the open segment
	s.Add(twice)
	if err := s.Persist(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := s.DocCount(); n != 1000 {
		t.Fatalf("%d live documents, want 1000", n)
	}
	d, _ := randomDoc(rng, "f123.go#0")
	s.Add(d)
	s.Delete("f500.go#0")
	s.Delete("f999.go#0")
	s.Delete("nowhere#0")
	if n := len(s.ids); n > 1 {
		t.Errorf("the map of live IDs has %d entries after one addition: every document was mapped", n)
	}
	if n := s.DocCount(); n != 998 {
		t.Errorf("%d live documents, want 998 (one replaced, two deleted)", n)
	}
	s.Delete("f123.go#0")
	if n := s.DocCount(); n != 997 {
		t.Errorf("%d live documents after deleting the added one, want 997", n)
	}
}
