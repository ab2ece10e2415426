package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// The tables file is mapped in memory, not read: the strings decoded
// from it (paths, hashes, names, the chunks' symbols and documents, the
// symbol maps' names) must be copies, never views of the mapping, which
// is unmapped once the values reading it in place are gone. Here the
// mapping is dropped (and seen gone from /proc/self/maps) before every
// string is compared with what was written: a view would fault.
func TestTablesStringsOutliveMapping(t *testing.T) {
	if _, err := os.Stat("/proc/self/maps"); err != nil {
		t.Skip("no /proc/self/maps here")
	}
	s, files := fixtureTables(t)
	p := filepath.Join(t.TempDir(), "mapped-tables.bin")
	if err := writeTables(p, []string{"words"}, s.names, files, s.base.symbols()); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range files {
		want = append(want, f.info.Path, f.info.Hash, f.info.Language)
		for i := range f.recs() {
			c := f.recs()[i].toChunk(f.info.Path, s.names)
			want = append(want, c.Symbol, c.QualifiedName, c.Signature, c.Doc, string(c.Kind), c.Language)
			want = append(want, c.Defines...)
			want = append(want, c.References...)
		}
	}
	var symWant []string
	symWant = append(symWant, s.base.symbols().idx.names...)

	got, symGot, order := func() ([]string, []string, []string) {
		tf, err := openTables(p)
		if err != nil {
			t.Fatal(err)
		}
		if tf.hold == nil {
			t.Fatal("the tables file was not mapped")
		}
		nt := newNameTable()
		_, rfiles, sym, err := tf.decode(nt)
		if err != nil {
			t.Fatal(err)
		}
		if !mapped(t, p) {
			t.Fatal("the tables file is not in /proc/self/maps while read")
		}
		var got []string
		for _, f := range files {
			g := rfiles[f.info.Path]
			got = append(got, g.info.Path, g.info.Hash, g.info.Language)
			for i := range g.recs() {
				c := g.recs()[i].toChunk(g.info.Path, nt.view())
				got = append(got, c.Symbol, c.QualifiedName, c.Signature, c.Doc, string(c.Kind), c.Language)
				got = append(got, c.Defines...)
				got = append(got, c.References...)
			}
		}
		return got, sym.idx.names, tf.order
	}()
	// Nothing reachable holds the mapping now: its cleanup unmaps it.
	deadline := time.Now().Add(10 * time.Second)
	for mapped(t, p) {
		if time.Now().After(deadline) {
			t.Fatal("the tables file is still mapped after its readers are gone")
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("strings read from the tables differ from those written")
	}
	if strings.Join(symGot, "\x00") != strings.Join(symWant, "\x00") {
		t.Errorf("symbol names read from the tables differ from those written")
	}
	if len(order) != len(files) {
		t.Fatalf("stat section: %d paths, want %d", len(order), len(files))
	}
	for i, f := range files {
		if order[i] != f.info.Path {
			t.Errorf("stat section path %d = %q, want %q", i, order[i], f.info.Path)
		}
	}
}

// mapped reports whether the file at p is mapped in this process.
func mapped(t *testing.T, p string) bool {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(b), p)
}

// TestCompareSortedListing: the refresh pairs a sorted listing with the
// snapshot's sorted files in one pass; what it finds to read and to
// remove equals what looking each listed path up finds (the way taken
// for a listing out of order), for listings that drop, add, change and
// keep files at every position.
func TestCompareSortedListing(t *testing.T) {
	x, _ := openFixture(t, testOptions(t))
	if err := x.Update(context.Background(), "zz/new.go", []byte("package zz\n")); err != nil {
		t.Fatal(err) // a delta over the base tables, too
	}
	s, release := x.Snapshot()
	defer release()
	if len(s.delta) == 0 {
		t.Fatal("the snapshot has no delta over its base")
	}
	var all []Entry
	recs, hashes := s.recsInOrder(), s.Hashes()
	for i, p := range s.Paths() {
		fi, _ := s.Stat(p)
		all = append(all, Entry{Path: p, Size: fi.Size, ModTime: fi.ModTime})
		if recs[i] != s.file(p) || hashes[i] != fi.Hash {
			t.Fatalf("%s: the files in path order disagree with a lookup by path", p)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for round := range 200 {
		var entries []Entry
		for _, e := range all {
			switch rng.IntN(4) {
			case 0: // removed
			case 1:
				e.Size++ // changed
				entries = append(entries, e)
			default:
				entries = append(entries, e)
			}
		}
		for range rng.IntN(3) {
			entries = append(entries, Entry{Path: fmt.Sprintf("%c/new%d.go", 'a'+rng.IntN(26), rng.IntN(9)), Size: 1})
		}
		slices.SortFunc(entries, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
		entries = slices.CompactFunc(entries, func(a, b Entry) bool { return a.Path == b.Path })
		shuffled := slices.Clone(entries)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if len(shuffled) > 1 && slices.EqualFunc(shuffled, entries, func(a, b Entry) bool { return a.Path == b.Path }) {
			shuffled[0], shuffled[1] = shuffled[1], shuffled[0]
		}
		x.mu.Lock()
		jobs, removed := x.compareLocked(s, entries)
		wantJobs, wantRemoved := x.compareLocked(s, shuffled)
		x.mu.Unlock()
		paths := func(js []fileJob) []string {
			var ps []string
			for _, j := range js {
				ps = append(ps, j.entry.Path)
			}
			slices.Sort(ps)
			return ps
		}
		if !slices.Equal(paths(jobs), paths(wantJobs)) || !slices.Equal(removed, wantRemoved) {
			t.Fatalf("round %d: read %v removed %v; by path: read %v removed %v", round, paths(jobs), removed, paths(wantJobs), wantRemoved)
		}
	}
}

// BenchmarkNameTableFirstIntern is the first new name interned into a
// table of 200 000 names filled whole (as read from a tables file): the
// lookup over every name is built then.
func BenchmarkNameTableFirstIntern(b *testing.B) {
	names := make([]string, 200_000)
	for i := range names {
		names[i] = fmt.Sprintf("pkg%d.Name%d", i%997, i)
	}
	b.ReportAllocs()
	for b.Loop() {
		nt := newNameTable()
		nt.names = append(nt.names, names...)
		nt.intern("aNewName")
	}
}

// TestNameTableIntern: names interned into a table filled whole, and
// after it is compacted, get the ids they have, new ones the next.
func TestNameTableIntern(t *testing.T) {
	nt := newNameTable()
	nt.names = []string{"a", "b", "c"}
	view := nt.view()
	for _, c := range []struct {
		name string
		id   uint32
	}{{"b", 1}, {"d", 3}, {"a", 0}, {"d", 3}, {"e", 4}} {
		if got := nt.intern(c.name); got != c.id {
			t.Errorf("intern(%q) = %d, want %d", c.name, got, c.id)
		}
		if c.name == "d" {
			nt.compact()
		}
	}
	if got := nt.view(); !slices.Equal(got, []string{"a", "b", "c", "d", "e"}) || !slices.Equal(view, []string{"a", "b", "c"}) {
		t.Errorf("names %v, the earlier view %v", got, view)
	}
}

// TestVectorDeltaIsOwnFile: the vector cache's delta file is one of the
// index directory's own files, and its temporary files are cleaned up
// like the others'.
func TestVectorDeltaIsOwnFile(t *testing.T) {
	if !ownFile("semantic.v2.delta") || !ownTempFile(".semantic.v2.delta-123456") {
		t.Error("the vector delta is not an index directory's own file")
	}
}
