package postings

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ctxls/ctxls/internal/cachefile"
	"github.com/ctxls/ctxls/internal/osfile"
)

// Files of a store's directory: the manifest and one file per segment,
// named after the segment's generation number.
const (
	manifestName  = "MANIFEST"
	manifestMagic = "CTXLSPM1"
	segPrefix     = "s-"
	segSuffix     = ".seg"
)

// DefaultMaxSegments is how many segments a store keeps before it merges
// the smaller ones.
const DefaultMaxSegments = 8

// Store is a list of segments with their deleted documents, and an open
// builder for new documents. See the package documentation.
type Store struct {
	mu   sync.Mutex
	dir  string // "" in memory
	segs []*seg
	open *Builder
	// openDel: documents of open deleted before it was sealed.
	openDel bitset
	openGen uint32
	// ids maps the live documents written by this Store (added, or
	// moved by a merge) to where they are; those of the segments marked
	// byFind — opened from disk, or forgotten (ForgetIDs) — are found by
	// a binary search of their segment's ID order instead, so that the
	// first change after opening a large store does not build a map of
	// every document.
	ids     map[string]loc
	nextGen uint32
	// MaxSegments: more sealed segments than this are merged (default
	// DefaultMaxSegments).
	MaxSegments int
	closed      bool
}

// loc is where a live document is: the segment (or open builder) of
// generation gen, and its number there.
type loc struct{ gen, doc uint32 }

// seg is one sealed segment of a store.
type seg struct {
	*Segment
	gen  uint32
	name string            // file name in the store's directory; "" in memory
	hold *cachefile.Mapped // keeps the mapping alive; nil in memory
	del  bitset
	ndel uint32
	// shared: a Reader holds del; copy it before changing it.
	shared bool
	synced bool
	// byFind: the segment's live documents are not in Store.ids
	// (Segment.Find finds them).
	byFind bool
}

func (s *seg) live() uint32 { return s.docs - s.ndel }

// Create returns a new, empty store in dir ("" for one in memory). dir
// is created; anything in it is removed.
func Create(dir string) (*Store, error) {
	if dir != "" {
		if err := os.RemoveAll(dir); err != nil {
			return nil, fmt.Errorf("create postings store: %w", err)
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("create postings store: %w", err)
		}
	}
	return &Store{dir: dir, ids: map[string]loc{}, nextGen: 1}, nil
}

// Open opens the store persisted in dir.
func Open(dir string) (*Store, error) {
	body := cachefile.ReadRecords(filepath.Join(dir, manifestName), manifestMagic)
	if body == nil {
		return nil, fmt.Errorf("open postings store %s: %w: no manifest", dir, ErrDamaged)
	}
	r := cachefile.Record{B: body}
	s := &Store{dir: dir, nextGen: uint32(r.Uvarint())}
	for r.More() {
		name := r.String()
		gen := uint32(r.Uvarint())
		docs := r.Uvarint()
		ndel := r.Uvarint()
		if r.Err != nil || ndel > docs {
			break
		}
		m, err := cachefile.Map(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("open postings store: %w", err)
		}
		sg, err := openSegment(m.Data)
		if err != nil {
			return nil, fmt.Errorf("open postings store: %s: %w", name, err)
		}
		if uint64(sg.docs) != docs || gen >= s.nextGen {
			return nil, fmt.Errorf("open postings store: %s: %w: the manifest does not match it", name, ErrDamaged)
		}
		g := &seg{Segment: sg, gen: gen, name: name, hold: m, synced: true, byFind: true}
		d := uint64(0)
		for range ndel {
			d += r.Uvarint()
			if d >= docs || r.Err != nil {
				return nil, fmt.Errorf("open postings store: %s: %w: bad deletions", name, ErrDamaged)
			}
			if g.del.set(uint32(d), sg.docs) {
				g.ndel++
			}
			d++
		}
		s.segs = append(s.segs, g)
	}
	if r.Err != nil {
		return nil, fmt.Errorf("open postings store %s: %w: %v", dir, ErrDamaged, r.Err)
	}
	return s, nil
}

// ForgetIDs drops the map of live IDs to documents (when every document
// is sealed): later writes find them in their segments (Segment.Find).
// A full build, which only adds, calls it when done: on a large tree the
// map holds tens of megabytes that a process that only reads never uses.
func (s *Store) ForgetIDs() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open != nil && s.open.Len() > 0 {
		return
	}
	for _, g := range s.segs {
		g.byFind = true
	}
	s.ids = nil
}

// SegmentFiles returns the segment files in dir, listed or not in its
// manifest (what a check of the files reads before the store opens).
func SegmentFiles(dir string) ([]string, error) {
	return filepath.Glob(filepath.Join(dir, segPrefix+"*"+segSuffix))
}

// Files returns the paths of the store's segment files.
func (s *Store) Files() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, g := range s.segs {
		if g.name != "" {
			out = append(out, filepath.Join(s.dir, g.name))
		}
	}
	return out
}

// Verify checks the CRC of every sealed segment.
func (s *Store) Verify() error {
	s.mu.Lock()
	segs := slices.Clone(s.segs)
	s.mu.Unlock()
	for _, g := range segs {
		if err := g.Verify(); err != nil {
			return fmt.Errorf("segment %s: %w", g.name, err)
		}
	}
	return nil
}

// DocCount returns the number of live documents.
func (s *Store) DocCount() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n uint64
	for _, g := range s.segs {
		n += uint64(g.live())
	}
	if s.open != nil {
		n += uint64(s.open.Len()) - uint64(s.openDel.count())
	}
	return n
}

// Add indexes d, deleting the live document with its ID if there is one.
// The store keeps nothing of d: the caller may Reset it and fill it again.
func (s *Store) Add(d *Doc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.needIDs()
	s.deleteLocked(d.ID)
	if s.open == nil {
		s.open = NewBuilder()
		s.openGen = s.nextGen
		s.nextGen++
	}
	doc := s.open.Add(d)
	s.ids[d.ID] = loc{s.openGen, doc}
}

// Delete deletes the live document with ID id, if there is one.
func (s *Store) Delete(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.needIDs()
	s.deleteLocked(id)
}

// lookupLocked returns where the live document id is.
func (s *Store) lookupLocked(id string) (loc, bool) {
	if l, ok := s.ids[id]; ok {
		return l, true
	}
	for i := len(s.segs) - 1; i >= 0; i-- {
		g := s.segs[i]
		if !g.byFind {
			continue
		}
		var l loc
		found := false
		g.Find(id, func(d uint32) bool {
			if !g.del.has(d) {
				l, found = loc{g.gen, d}, true
			}
			return found
		})
		if found {
			return l, true
		}
	}
	return loc{}, false
}

func (s *Store) deleteLocked(id string) {
	l, ok := s.lookupLocked(id)
	if !ok {
		return
	}
	delete(s.ids, id)
	if s.open != nil && l.gen == s.openGen {
		s.openDel.set(l.doc, uint32(s.open.Len()))
		return
	}
	for _, g := range s.segs {
		if g.gen == l.gen {
			if g.shared {
				g.del = g.del.clone()
				g.shared = false
			}
			if g.del.set(l.doc, g.docs) {
				g.ndel++
			}
			return
		}
	}
}

// needIDs makes the map of live IDs written by this Store if it is not
// there yet (the others are found in their segments).
func (s *Store) needIDs() {
	if s.ids == nil {
		s.ids = map[string]loc{}
	}
}

// Seal turns the documents added since the last Seal into a segment (a
// file in the store's directory, not yet synced) and merges segments if
// there are too many.
func (s *Store) Seal() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sealLocked()
}

func (s *Store) sealLocked() error {
	if s.closed {
		return errors.New("postings store is closed")
	}
	if s.open != nil && s.open.Len() > 0 {
		g, err := s.write(s.open, s.openGen)
		if err != nil {
			return err
		}
		g.del = s.openDel
		g.ndel = uint32(g.del.count())
		s.segs = append(s.segs, g)
	}
	s.open, s.openDel = nil, nil
	return s.mergeIfNeeded()
}

// write encodes b as the segment of generation gen.
func (s *Store) write(b *Builder, gen uint32) (*seg, error) {
	if s.dir == "" {
		var buf bytes.Buffer
		buf.Grow(b.bytes + 64*len(b.ids) + 1024)
		if err := encode(b, &buf); err != nil {
			return nil, err
		}
		sg, err := openSegment(buf.Bytes())
		if err != nil {
			return nil, err
		}
		return &seg{Segment: sg, gen: gen}, nil
	}
	name := segPrefix + strconv.FormatUint(uint64(gen), 10) + segSuffix
	path := filepath.Join(s.dir, name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("write postings segment: %w", err)
	}
	err = encode(b, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("write postings segment %s: %w", name, err)
	}
	m, err := cachefile.Map(path)
	if err != nil {
		return nil, fmt.Errorf("write postings segment: %w", err)
	}
	sg, err := openSegment(m.Data)
	if err != nil {
		return nil, fmt.Errorf("write postings segment %s: %w", name, err)
	}
	return &seg{Segment: sg, gen: gen, name: name, hold: m}, nil
}

// mergeIfNeeded merges segments while there are more than MaxSegments:
// the smaller ones together when the largest holds more live documents
// than all the others, else all of them; and it rewrites a segment whose
// documents are mostly deleted.
func (s *Store) mergeIfNeeded() error {
	limit := s.MaxSegments
	if limit <= 0 {
		limit = DefaultMaxSegments
	}
	for len(s.segs) > limit {
		largest, total := 0, uint64(0)
		for i, g := range s.segs {
			total += uint64(g.live())
			if g.live() > s.segs[largest].live() {
				largest = i
			}
		}
		big := uint64(s.segs[largest].live())
		all := total-big >= big
		if err := s.mergeLocked(func(i int) bool { return all || i != largest }); err != nil {
			return err
		}
	}
	for i, g := range s.segs {
		if g.docs >= 1024 && g.ndel > g.docs/2 {
			return s.mergeLocked(func(j int) bool { return j == i })
		}
	}
	return nil
}

// Compact merges every segment into one (a store of one segment without
// deletions is left as it is).
func (s *Store) Compact() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.sealLocked(); err != nil {
		return err
	}
	if len(s.segs) < 2 && (len(s.segs) == 0 || s.segs[0].ndel == 0) {
		return nil
	}
	return s.mergeLocked(func(int) bool { return true })
}

// mergeLocked replaces the segments picked (by index) by one holding
// their live documents, in order.
func (s *Store) mergeLocked(pick func(i int) bool) error {
	b := NewBuilder()
	gen := s.nextGen
	s.nextGen++
	var in []*seg
	for i, g := range s.segs {
		if pick(i) {
			in = append(in, g)
		}
	}
	const gone = ^uint32(0)
	for _, g := range in {
		remap := make([]uint32, g.docs)
		for d := range g.docs {
			if g.del.has(d) {
				remap[d] = gone
				continue
			}
			var lens [NumFields]uint32
			for f := range NumFields {
				lens[f] = g.FieldLen(d, f)
			}
			id := g.ID(d)
			nd := b.newDoc(id, lens)
			remap[d] = nd
			s.needIDs()
			s.ids[id] = loc{gen, nd}
		}
		for f := range NumFields {
			fa := &b.fields[f]
			g.terms(f, func(t []byte, post []byte) {
				it := Iter{b: post}
				li := -1
				for {
					d, freq, ok := it.Next()
					if !ok {
						break
					}
					if d >= g.docs || remap[d] == gone {
						continue
					}
					if li < 0 {
						li = int(fa.listFor(t))
					}
					b.bytes += fa.lists[li].add(&b.arena, remap[d], freq)
				}
			})
		}
	}
	var out []*seg
	if b.Len() > 0 {
		m, err := s.write(b, gen)
		if err != nil {
			return err
		}
		out = append(out, m)
	}
	kept := s.segs[:0:0]
	for i, g := range s.segs {
		if !pick(i) {
			kept = append(kept, g)
		}
	}
	s.segs = append(kept, out...)
	return nil
}

// Persist seals, syncs every segment file and replaces the manifest, so
// that Open finds the store as it is now; segment files no longer listed
// are removed. A store in memory only seals.
func (s *Store) Persist() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.sealLocked(); err != nil {
		return err
	}
	if s.dir == "" {
		return nil
	}
	body := binary.AppendUvarint(nil, uint64(s.nextGen))
	keep := map[string]bool{}
	for _, g := range s.segs {
		if !g.synced {
			if err := syncFile(filepath.Join(s.dir, g.name)); err != nil {
				return fmt.Errorf("persist postings: %w", err)
			}
			g.synced = true
		}
		keep[g.name] = true
		body = cachefile.AppendString(body, g.name)
		body = binary.AppendUvarint(body, uint64(g.gen))
		body = binary.AppendUvarint(body, uint64(g.docs))
		body = binary.AppendUvarint(body, uint64(g.ndel))
		prev := uint32(0)
		g.del.each(func(d uint32) {
			body = binary.AppendUvarint(body, uint64(d-prev))
			prev = d + 1
		})
	}
	path := filepath.Join(s.dir, manifestName)
	if err := cachefile.WriteRecords(path, manifestMagic, body); err != nil {
		return fmt.Errorf("persist postings: %w", err)
	}
	if err := syncFile(path); err != nil {
		return fmt.Errorf("persist postings: %w", err)
	}
	if err := syncFile(s.dir); err != nil {
		return fmt.Errorf("persist postings: %w", err)
	}
	ents, _ := os.ReadDir(s.dir)
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, segPrefix) && strings.HasSuffix(n, segSuffix) && !keep[n] {
			os.Remove(filepath.Join(s.dir, n))
		}
	}
	return nil
}

func syncFile(path string) error { return osfile.Sync(path) }

// Close drops the store's segments; Readers taken before stay usable.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.segs, s.open, s.ids = nil, nil, nil
	return nil
}

// Reader seals and returns a view of the store as it is now.
func (s *Store) Reader() (*Reader, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.sealLocked(); err != nil {
		return nil, err
	}
	r := &Reader{views: make([]view, len(s.segs))}
	for i, g := range s.segs {
		g.shared = true
		r.views[i] = view{seg: g.Segment, hold: g.hold, del: g.del, ndel: g.ndel, base: r.total}
		r.total += g.docs
		r.live += uint64(g.live())
	}
	return r, nil
}

// bitset is a set of document numbers.
type bitset []uint64

// set adds d (below n, the set's universe) and reports whether it was new.
func (b *bitset) set(d, n uint32) bool {
	if len(*b) == 0 {
		*b = make(bitset, (n+63)/64)
	}
	w := int(d / 64)
	if w >= len(*b) {
		*b = append(*b, make(bitset, w+1-len(*b))...)
	}
	m := uint64(1) << (d % 64)
	if (*b)[w]&m != 0 {
		return false
	}
	(*b)[w] |= m
	return true
}

func (b bitset) has(d uint32) bool {
	w := int(d / 64)
	return w < len(b) && b[w]&(1<<(d%64)) != 0
}

func (b bitset) count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

func (b bitset) clone() bitset { return slices.Clone(b) }

func (b bitset) each(fn func(d uint32)) {
	for i, w := range b {
		for w != 0 {
			t := bits.TrailingZeros64(w)
			fn(uint32(i*64 + t))
			w &= w - 1
		}
	}
}
