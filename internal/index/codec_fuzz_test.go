package index

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// fixtureTables returns a snapshot of the fixture (released at the end of
// the test) and its files in path order, as writeStateLocked writes them.
func fixtureTables(t testing.TB) (*Snapshot, []*fileRec) {
	x, _ := openFixture(t, testOptions(t))
	s, release := x.Snapshot()
	t.Cleanup(release)
	var files []*fileRec
	for _, p := range s.Paths() {
		files = append(files, s.file(p))
	}
	return s, files
}

// validTables returns the bytes of a tables file written for the fixture.
func validTables(t testing.TB) []byte {
	s, files := fixtureTables(t)
	p := filepath.Join(t.TempDir(), "t.bin")
	if err := writeTables(p, []string{"words"}, s.names, files, s.base.symbols()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// withCRC replaces b's checksum by a correct one, so that a reader must
// survive the content itself (a writer bug, a hand-made file).
func withCRC(b []byte) []byte {
	if len(b) < 4 {
		return b
	}
	out := append([]byte(nil), b...)
	binary.LittleEndian.PutUint32(out[len(out)-4:], crc32.Checksum(out[:len(out)-4], crc32.MakeTable(crc32.Castagnoli)))
	return out
}

// readAll reads a tables file and, if that succeeds, touches everything a
// snapshot would: every file's chunks and the symbol lookups.
func readAll(t *testing.T, data []byte) error {
	tf, err := tablesFromBytes("fuzz", data)
	var files map[string]*fileRec
	var sym *symIndex
	if err == nil {
		_, files, sym, err = tf.decode(newNameTable())
	}
	if err != nil {
		if !errors.Is(err, errCorrupt) {
			return err
		}
		return nil
	}
	for _, f := range files {
		f.recs()
		f.toks()
	}
	if sym != nil {
		for _, name := range append([]string{"", "absent name", "Stitch"}, sym.idx.names...) {
			sym.defsOf(name)
			sym.refsOf(name)
		}
	}
	return nil
}

// FuzzReadTables: any tables file with a valid checksum is read without a
// panic or a hang: either an error wrapping errCorrupt, or tables whose
// every chunk and symbol lookup works.
func FuzzReadTables(f *testing.F) {
	f.Add(validTables(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := readAll(t, withCRC(data)); err != nil {
			t.Fatal(err)
		}
	})
}

// TestReadTablesRejectsBadSymbols: symbol maps with a negative chunk
// position or a slot table without an empty slot are corrupt, not a
// panic or an endless probe later.
func TestReadTablesRejectsBadSymbols(t *testing.T) {
	s, files := fixtureTables(t)
	good := s.base.symbols()
	negative := *good
	negative.defs = append([]int32{-1}, good.defs[1:]...)
	full := *good
	idx := *good.idx
	idx.slots = make([]int32, len(good.idx.slots))
	for i := range idx.slots {
		idx.slots[i] = int32(i % len(good.idx.names))
	}
	full.idx = &idx
	for name, sym := range map[string]*symIndex{"negative position": &negative, "no empty slot": &full} {
		p := filepath.Join(t.TempDir(), "t.bin")
		if err := writeTables(p, []string{"words"}, s.names, files, sym); err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := readTables(p, newNameTable()); !errors.Is(err, errCorrupt) {
			t.Errorf("%s: %v, want errCorrupt", name, err)
		}
	}
	// A string id at the top of the range does not wrap around.
	r := &tablesReader{}
	d := &recDecoder{offs: []int32{0}}
	if got := d.str(math.MaxUint64, r); got != "" || r.err == nil {
		t.Errorf("str(MaxUint64) = %q, err %v", got, r.err)
	}
}
