package index

import (
	"math/bits"
	"slices"

	"github.com/ctxls/ctxls/internal/cachefile"
)

// nameIndex maps strings to their position in a slice by open addressing
// over one flat array: no allocation per entry and one hash per string,
// where a Go map costs several times that to build for the ≈ 10⁵ names
// of a large tree (it was most of a CLI run's start-up). The hash is
// fixed (FNV-1a, then Fibonacci hashing), so the slots can be stored in
// the tables file and loaded as they are.
type nameIndex struct {
	slots []int32 // -1: empty; else an index into names
	names []string
	mask  uint64
	shift uint // 64 - log2(len(slots))
}

// hashName is FNV-1a over s.
func hashName(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// newNameIndex indexes names (the first of duplicates wins) with room for
// extra more without growing.
func newNameIndex(names []string, extra int) *nameIndex {
	n := uint64(16)
	for n < uint64(2*(len(names)+extra)) {
		n <<= 1
	}
	x := &nameIndex{slots: make([]int32, n), names: slices.Clip(names), mask: n - 1, shift: uint(64 - bits.TrailingZeros64(n))}
	for i := range x.slots {
		x.slots[i] = -1
	}
	for i, s := range names {
		if slot, found := x.slot(s); !found {
			x.slots[slot] = int32(i)
		}
	}
	return x
}

// slot returns s's slot and whether s is there; if not, the slot is the
// empty one where s goes.
func (x *nameIndex) slot(s string) (uint64, bool) {
	for i := (hashName(s) * 0x9E3779B97F4A7C15) >> x.shift; ; i = (i + 1) & x.mask {
		id := x.slots[i]
		if id < 0 {
			return i, false
		}
		if x.names[id] == s {
			return i, true
		}
	}
}

// find returns the position of s.
func (x *nameIndex) find(s string) (int32, bool) {
	i, ok := x.slot(s)
	if !ok {
		return -1, false
	}
	return x.slots[i], true
}

// add returns the position of s, appending s if it is new.
func (x *nameIndex) add(s string) int32 {
	i, ok := x.slot(s)
	if ok {
		return x.slots[i]
	}
	id := int32(len(x.names))
	x.names = append(x.names, s)
	x.slots[i] = id
	if uint64(len(x.names))*2 > uint64(len(x.slots)) {
		x.grow()
	}
	return id
}

func (x *nameIndex) grow() {
	n := uint64(len(x.slots)) * 2
	x.slots = make([]int32, n)
	x.mask, x.shift = n-1, uint(64-bits.TrailingZeros64(n))
	for i := range x.slots {
		x.slots[i] = -1
	}
	for id, s := range x.names {
		if slot, found := x.slot(s); !found {
			x.slots[slot] = int32(id)
		}
	}
}

// symIndex is the symbol maps of a tables: for each name (an index of
// idx), the chunks (indexes into tables.all, in order) that define it and
// those that refer to it.
type symIndex struct {
	idx                *nameIndex
	defStart, refStart []int32 // len(idx.names)+1 offsets into defs, refs
	defs, refs         []int32
	// hold keeps the mapped tables file the arrays are read from in
	// place (nil: built here, or read from memory of their own).
	hold *cachefile.Mapped
}

func (si *symIndex) list(name string, start, slab []int32) []int32 {
	id, ok := si.idx.find(name)
	if !ok || int(id)+1 >= len(start) {
		return nil
	}
	return slab[start[id]:start[id+1]:start[id+1]]
}

// defsOf returns the chunks that define name: as their symbol, qualified
// name or one of their Defines.
func (si *symIndex) defsOf(name string) []int32 { return si.list(name, si.defStart, si.defs) }

// refsOf returns the chunks whose References include name.
func (si *symIndex) refsOf(name string) []int32 { return si.list(name, si.refStart, si.refs) }

// buildSymIndex builds the symbol maps of t. Files whose chunks are not
// decoded yet are decoded for the pass and not kept (fileRec.peek), so
// that writing the tables after an edit does not bring every file's
// records back into memory.
func buildSymIndex(t *tables) *symIndex {
	idx := newNameIndex(t.names, len(t.all)/4)
	// One pass over the chunks, in order: the def ids of each chunk (its
	// symbol, its qualified name and its Defines, each distinct name
	// once; see forEachDefName) and its reference ids, into two slabs.
	defIDs := make([]int32, 0, len(t.all)*2)
	defEnd := make([]int32, len(t.all))
	var refIDs []uint32
	refEnd := make([]int32, len(t.all))
	for i := 0; i < len(t.all); {
		f := t.all[i].file
		recs, _ := f.peek()
		for ; i < len(t.all) && t.all[i].file == f; i++ {
			rec := &recs[t.all[i].ord]
			if rec.symbol != "" {
				defIDs = append(defIDs, idx.add(rec.symbol))
			}
			if rec.qualifiedName != "" && rec.qualifiedName != rec.symbol {
				defIDs = append(defIDs, idx.add(rec.qualifiedName))
			}
			for _, id := range rec.defines() {
				if d := t.names[id]; d != rec.symbol && d != rec.qualifiedName {
					defIDs = append(defIDs, int32(id))
				}
			}
			defEnd[i] = int32(len(defIDs))
			refIDs = append(refIDs, rec.references()...)
			refEnd[i] = int32(len(refIDs))
		}
	}
	n := len(idx.names)
	si := &symIndex{idx: idx, defStart: make([]int32, n+1), refStart: make([]int32, n+1),
		defs: make([]int32, len(defIDs)), refs: make([]int32, len(refIDs))}
	// Count, turn counts into offsets, then fill in chunk order (so each
	// list is sorted as all is: by path, then line).
	for _, id := range defIDs {
		si.defStart[id+1]++
	}
	for _, id := range refIDs {
		si.refStart[id+1]++
	}
	for i := 1; i <= n; i++ {
		si.defStart[i] += si.defStart[i-1]
		si.refStart[i] += si.refStart[i-1]
	}
	nextDef := slices.Clone(si.defStart[:n])
	nextRef := slices.Clone(si.refStart[:n])
	prevDef, prevRef := int32(0), int32(0)
	for i := range t.all {
		for _, id := range defIDs[prevDef:defEnd[i]] {
			si.defs[nextDef[id]] = int32(i)
			nextDef[id]++
		}
		prevDef = defEnd[i]
		for _, id := range refIDs[prevRef:refEnd[i]] {
			si.refs[nextRef[id]] = int32(i)
			nextRef[id]++
		}
		prevRef = refEnd[i]
	}
	return si
}

// pointsBelow reports whether every list entry is a chunk position in
// [0, n).
func (si *symIndex) pointsBelow(n int) bool {
	for _, slab := range [][]int32{si.defs, si.refs} {
		for _, c := range slab {
			if c < 0 || int(c) >= n {
				return false
			}
		}
	}
	return true
}
