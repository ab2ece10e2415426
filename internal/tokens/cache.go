package tokens

import (
	"sync/atomic"
)

// Piece cache limits. Pieces longer than cacheMaxPiece bytes are rare and
// merged every time; the cache holds at most cacheSlots entries of 48 bytes
// and their pointers, so a counter's cache stays under 3.5 MB.
const (
	cacheMaxPiece = 32
	cacheSlots    = 1 << 16
)

// pieceCache is a bounded, lock-free cache from a piece (a substring that
// the pre-tokenizer produced and that is not itself a token) to its token
// count. It is direct-mapped: a piece can only live in the slot its hash
// selects, and a new piece overwrites whatever was there. Readers never
// block and never see a torn entry, because entries are immutable and
// published with an atomic pointer store.
type pieceCache struct {
	slots [cacheSlots]atomic.Pointer[cacheEntry]
}

// cacheEntry is immutable once stored. It holds its piece inline, so that
// caching a piece costs one allocation.
type cacheEntry struct {
	count int32
	n     uint8
	piece [cacheMaxPiece]byte
}

// slot returns the slot for hash h. The long rank table uses the low bits
// of the same hash, so take the cache index from the middle ones.
func (c *pieceCache) slot(h uint64) *atomic.Pointer[cacheEntry] {
	return &c.slots[(h>>16)&(cacheSlots-1)]
}

// get returns the cached count of piece p with hash h.
func (c *pieceCache) get(h uint64, p string) (int, bool) {
	if e := c.slot(h).Load(); e != nil && string(e.piece[:e.n]) == p {
		return int(e.count), true
	}
	return 0, false
}

// put caches the count of piece p (at most cacheMaxPiece bytes) with hash
// h, copying p, which is usually a substring of a much larger text.
func (c *pieceCache) put(h uint64, p string, count int) {
	e := &cacheEntry{count: int32(count), n: uint8(len(p))}
	copy(e.piece[:], p)
	c.slot(h).Store(e)
}

// tinyBits is the log2 of the number of entries of a tinyCache.
const tinyBits = 15

// tinyCache is a small, lock-free, direct-mapped cache of the counts of
// pieces of 2 to 7 bytes, the bulk of the pieces of code. An entry packs the
// piece's bytes (56 bits), its length (4 bits) and its count (at most 7, 4
// bits) into one word, so that it is read and written atomically and a hit
// costs one load from a table that stays in the CPU's cache. 0 is empty
// (a cached piece has at least 2 bytes).
type tinyCache struct {
	slots [1 << tinyBits]atomic.Uint64
}

// tinyEntry packs a piece's key (pack), length and count.
func tinyEntry(key uint64, n, count int) uint64 {
	return key<<8 | uint64(n)<<4 | uint64(count)
}

// get returns the cached count of the piece with packed bytes key, length
// n and shortHash h.
func (c *tinyCache) get(h, key uint64, n int) (int, bool) {
	e := c.slots[h>>(64-tinyBits)].Load()
	if e>>4 == tinyEntry(key, n, 0)>>4 {
		return int(e & 15), true
	}
	return 0, false
}

// put caches a count.
func (c *tinyCache) put(h, key uint64, n, count int) {
	c.slots[h>>(64-tinyBits)].Store(tinyEntry(key, n, count))
}
