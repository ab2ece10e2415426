package postings

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// model is what a store should hold: the live documents by ID.
type model map[string]modelDoc

type modelDoc struct {
	lens  [NumFields]uint32
	terms [NumFields]map[string]uint32
}

type hit struct {
	id         string
	freq, flen uint32
}

func randomDoc(rng *rand.Rand, id string) (*Doc, modelDoc) {
	d := &Doc{ID: id}
	var m modelDoc
	for f := range NumFields {
		m.terms[f] = map[string]uint32{}
		for range rng.IntN(6) {
			t := fmt.Sprintf("t%d", rng.IntN(40))
			if f == 1 && rng.IntN(4) == 0 {
				t = "" + t + "x" // some terms only in one field
			}
			if _, ok := m.terms[f][t]; ok {
				continue
			}
			freq := uint32(1 + rng.IntN(3)*rng.IntN(200))
			m.terms[f][t] = freq
			d.Add(f, []byte(t), freq)
			m.lens[f] += freq
		}
		m.lens[f] += uint32(rng.IntN(3))
		d.Len[f] = m.lens[f]
	}
	return d, m
}

// check compares every term's postings in a fresh Reader with the model.
func check(t *testing.T, s *Store, want model, step string) {
	t.Helper()
	r, err := s.Reader()
	if err != nil {
		t.Fatalf("%s: reader: %v", step, err)
	}
	if r.NumDocs() != uint64(len(want)) || s.DocCount() != uint64(len(want)) {
		t.Fatalf("%s: %d live documents (store says %d), want %d", step, r.NumDocs(), s.DocCount(), len(want))
	}
	for f := range NumFields {
		for n := range 41 {
			for _, term := range []string{fmt.Sprintf("t%d", n), fmt.Sprintf("t%dx", n)} {
				var exp []hit
				for id, d := range want {
					if fr, ok := d.terms[f][term]; ok {
						exp = append(exp, hit{id, fr, d.lens[f]})
					}
				}
				p := r.Lookup(f, term)
				var got []hit
				seen := map[uint32]bool{}
				for {
					doc, fr, fl, ok := p.Next()
					if !ok {
						break
					}
					if seen[doc] {
						t.Fatalf("%s: document %d twice", step, doc)
					}
					seen[doc] = true
					got = append(got, hit{r.ID(doc), fr, fl})
				}
				cmp := func(a, b hit) int {
					if a.id < b.id {
						return -1
					}
					if a.id > b.id {
						return 1
					}
					return 0
				}
				slices.SortFunc(exp, cmp)
				slices.SortFunc(got, cmp)
				if !slices.Equal(exp, got) || p.DF != uint64(len(exp)) {
					t.Fatalf("%s: field %d term %s: got %v (df %d), want %v", step, f, term, got, p.DF, exp)
				}
			}
		}
	}
}

func TestStoreAgainstModel(t *testing.T) {
	for _, disk := range []bool{false, true} {
		t.Run(fmt.Sprint("disk=", disk), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			dir := ""
			if disk {
				dir = filepath.Join(t.TempDir(), "p")
			}
			s, err := Create(dir)
			if err != nil {
				t.Fatal(err)
			}
			s.MaxSegments = 3
			want := model{}
			for step := range 400 {
				switch op := rng.IntN(20); {
				case op < 12:
					id := fmt.Sprintf("doc%d", rng.IntN(120))
					d, m := randomDoc(rng, id)
					s.Add(d)
					want[id] = m
				case op < 16:
					id := fmt.Sprintf("doc%d", rng.IntN(120))
					s.Delete(id)
					delete(want, id)
				case op < 18:
					if err := s.Seal(); err != nil {
						t.Fatal(err)
					}
				case op < 19:
					if err := s.Compact(); err != nil {
						t.Fatal(err)
					}
					if rng.IntN(2) == 0 {
						s.ForgetIDs() // the next write builds the map again
					}
				default:
					if err := s.Persist(); err != nil {
						t.Fatal(err)
					}
					if disk {
						s.Close()
						if s, err = Open(dir); err != nil {
							t.Fatal(err)
						}
						s.MaxSegments = 3
						if err := s.Verify(); err != nil {
							t.Fatal(err)
						}
					}
				}
				if step%10 == 0 {
					check(t, s, want, fmt.Sprint("step ", step))
				}
			}
			check(t, s, want, "end")
			if disk {
				if err := s.Persist(); err != nil {
					t.Fatal(err)
				}
				ents, _ := os.ReadDir(dir)
				if len(ents) != len(s.Files())+1 {
					t.Errorf("%d files in the store's directory for %d segments", len(ents), len(s.Files()))
				}
			}
		})
	}
}

// A Reader keeps seeing what the store held when it was taken.
func TestReaderIsImmutable(t *testing.T) {
	s, _ := Create("")
	d := &Doc{ID: "a", Len: [NumFields]uint32{1}}
	d.Add(0, []byte("x"), 1)
	s.Add(d)
	r, err := s.Reader()
	if err != nil {
		t.Fatal(err)
	}
	s.Delete("a")
	d2 := &Doc{ID: "b", Len: [NumFields]uint32{1}}
	d2.Add(0, []byte("x"), 1)
	s.Add(d2)
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	p := r.Lookup(0, "x")
	doc, _, _, ok := p.Next()
	if !ok || p.DF != 1 || r.ID(doc) != "a" {
		t.Fatalf("old reader: ok %v df %d id %q, want a", ok, p.DF, r.ID(doc))
	}
	r2, _ := s.Reader()
	p = r2.Lookup(0, "x")
	doc, _, _, ok = p.Next()
	if !ok || p.DF != 1 || r2.ID(doc) != "b" {
		t.Fatalf("new reader: ok %v df %d id %q, want b", ok, p.DF, r2.ID(doc))
	}
}

// A damaged segment file is refused by Verify or by Open, never served
// as if it were whole.
func TestDamagedSegment(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "p")
	s, _ := Create(dir)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 50 {
		d, _ := randomDoc(rng, fmt.Sprint(i))
		s.Add(d)
	}
	if err := s.Persist(); err != nil {
		t.Fatal(err)
	}
	files := s.Files()
	s.Close()
	b, _ := os.ReadFile(files[0])
	b[len(b)/2] ^= 0x40
	if err := os.WriteFile(files[0], b, 0o600); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(dir)
	if err == nil {
		err = s2.Verify()
	}
	if err == nil {
		t.Fatal("a flipped bit went unnoticed")
	}
	if err := os.WriteFile(files[0], b[:len(b)/3], 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); err == nil {
		t.Fatal("a truncated segment opened")
	}
}

func TestNorm(t *testing.T) {
	// bleve's (and Lucene's) norm: 1/√n rounded to a float32.
	if got := Norm(4); got != 0.5 {
		t.Errorf("Norm(4) = %v", got)
	}
	if got, want := Norm(3), float64(float32(0.5773502691896258)); got != want {
		t.Errorf("Norm(3) = %v, want %v", got, want)
	}
}

// Lists longer than the builder's largest block, and builders whose
// postings span several of its arena's pages, read back whole.
func TestLongLists(t *testing.T) {
	s, err := Create("")
	if err != nil {
		t.Fatal(err)
	}
	const n = 60000
	for i := range n {
		d := &Doc{ID: fmt.Sprint("d", i)}
		d.Add(0, []byte("all"), uint32(1+i%300))
		if i%2 == 0 {
			d.Add(0, []byte("even"), 1)
		}
		d.Add(0, fmt.Appendf(nil, "u%d", i), uint32(1+i%2))
		d.Add(3, fmt.Appendf(nil, "w%d", i%7000), 70000)
		d.Len[0], d.Len[3] = 1000, 70000
		s.Add(d)
	}
	if pages := len(s.open.arena.pages); pages < 2 {
		t.Fatalf("the postings fill %d page of the arena: the test is meant to span several", pages)
	}
	if err := s.Seal(); err != nil {
		t.Fatal(err)
	}
	r, err := s.Reader()
	if err != nil {
		t.Fatal(err)
	}
	count := func(f int, term string, want func(id string, freq uint32) bool) int {
		p := r.Lookup(f, term)
		k := 0
		for {
			doc, freq, _, ok := p.Next()
			if !ok {
				break
			}
			if !want(r.ID(doc), freq) {
				t.Fatalf("%s: document %s with frequency %d", term, r.ID(doc), freq)
			}
			k++
		}
		if p.DF != uint64(k) {
			t.Fatalf("%s: df %d, %d postings", term, p.DF, k)
		}
		return k
	}
	var i int
	if k := count(0, "all", func(id string, freq uint32) bool {
		ok := id == fmt.Sprint("d", i) && freq == uint32(1+i%300)
		i++
		return ok
	}); k != n {
		t.Fatalf("all: %d postings, want %d", k, n)
	}
	if k := count(0, "even", func(string, uint32) bool { return true }); k != n/2 {
		t.Fatalf("even: %d postings, want %d", k, n/2)
	}
	for _, j := range []int{0, 1, 4097, n - 1} {
		if k := count(0, fmt.Sprint("u", j), func(id string, freq uint32) bool {
			return id == fmt.Sprint("d", j) && freq == uint32(1+j%2)
		}); k != 1 {
			t.Fatalf("u%d: %d postings", j, k)
		}
	}
	if k := count(3, "w6999", func(_ string, freq uint32) bool { return freq == 70000 }); k != n/7000 {
		t.Fatalf("w6999: %d postings, want %d", k, n/7000)
	}
}
