package tokens

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"hash/maphash"
	"strings"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// noRank marks a byte sequence that is not a token.
const noRank = ^uint32(0)

// shortToken is the length of the longest token kept in the short table.
// Four in five tokens (and most pieces of code) are this short.
const shortToken = 8

// rankTable maps the byte sequence of each token of an encoding to its
// rank (which is also its token id). It is immutable once built and holds no
// pointers besides its slices, so it costs the garbage collector nothing to
// keep.
//
// Tokens of at most 8 bytes live in the short table, keyed by their bytes
// packed into a uint64, so that a lookup is one multiplication and usually
// one cache line. Longer tokens live in the long table, hashed with
// hash/maphash.
type rankTable struct {
	// short is an open-addressing hash table (linear probing, load factor
	// at most 2/3) indexed by the top bits of shortHash.
	short      []shortSlot
	shortShift uint

	// seed seeds every maphash of this table and of the piece cache of
	// the counters built on it.
	seed maphash.Seed
	// longData holds the bytes of the long tokens; the bytes of the i-th
	// long token are longData[longOff[i]:longOff[i+1]] and its rank is
	// longRank[i].
	longData string
	longOff  []uint32
	longRank []uint32
	// long is an open-addressing hash table (linear probing, load factor
	// at most 1/2): 0 is empty, otherwise the high 32 bits are those of
	// the token's hash and the low 32 bits are its long index + 1.
	long     []uint64
	longMask uint64

	// tokens is the number of tokens.
	tokens int
}

// shortSlot is one entry of the short table; n == 0 marks an empty slot.
type shortSlot struct {
	key  uint64 // the token's bytes, little-endian
	n    uint32 // the token's length
	rank uint32
}

// pack returns the bytes of p (at most 8) as a little-endian uint64.
func pack(p string) uint64 {
	switch n := len(p); {
	case n >= 4:
		lo := uint64(p[0]) | uint64(p[1])<<8 | uint64(p[2])<<16 | uint64(p[3])<<24
		hi := uint64(p[n-4]) | uint64(p[n-3])<<8 | uint64(p[n-2])<<16 | uint64(p[n-1])<<24
		return lo | hi<<(8*(n-4))
	case n >= 2:
		lo := uint64(p[0]) | uint64(p[1])<<8
		hi := uint64(p[n-2]) | uint64(p[n-1])<<8
		return lo | hi<<(8*(n-2))
	case n == 1:
		return uint64(p[0])
	}
	return 0
}

// shortHash hashes a packed key of length n.
func shortHash(key uint64, n int) uint64 {
	return (key ^ uint64(n)<<60) * 0x9E3779B97F4A7C15
}

// loadRankTable parses the named encoding's BPE file embedded by
// tiktoken-go-loader: one token a line, "<base64 bytes> <rank>", ranks
// 0, 1, 2, ... in order.
func loadRankTable(name string) (*rankTable, error) {
	file := name + ".tiktoken"
	raw, err := assets.Assets.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read embedded %s: %w", file, err)
	}
	// A first pass sizes the tables from the lengths of the base64 fields,
	// so that the second one allocates nothing but them.
	nShort, nLong, longBytes := 0, 0, 0
	for rest := raw; len(rest) > 0; {
		var line []byte
		line, rest = nextLine(rest)
		if sp := bytes.IndexByte(line, ' '); sp > 0 {
			n := base64.StdEncoding.DecodedLen(sp) - (sp - len(bytes.TrimRight(line[:sp], "=")))
			if n <= shortToken {
				nShort++
			} else {
				nLong++
				longBytes += n
			}
		}
	}
	t := &rankTable{
		seed:     maphash.MakeSeed(),
		longOff:  make([]uint32, 1, nLong+1),
		longRank: make([]uint32, 0, nLong),
	}
	// Load factors: between 1/3 and 2/3 for the short table, at most 1/2
	// for the long one.
	shortBits := uint(1)
	for 1<<shortBits < nShort*3/2 {
		shortBits++
	}
	t.short = make([]shortSlot, 1<<shortBits)
	t.shortShift = 64 - shortBits
	var long strings.Builder
	long.Grow(longBytes)
	var buf [256]byte
	for lineNo := 1; len(raw) > 0; lineNo++ {
		var line []byte
		line, raw = nextLine(raw)
		if len(line) == 0 {
			continue
		}
		sp := bytes.IndexByte(line, ' ')
		if sp < 0 || base64.StdEncoding.DecodedLen(sp) > len(buf) {
			return nil, fmt.Errorf("%s:%d: malformed line", file, lineNo)
		}
		n, err := base64.StdEncoding.Decode(buf[:], line[:sp])
		if err != nil || n == 0 {
			return nil, fmt.Errorf("%s:%d: bad token: %v", file, lineNo, err)
		}
		rank, ok := parseUint(line[sp+1:])
		if !ok || rank != t.tokens {
			return nil, fmt.Errorf("%s:%d: rank %q, want %d", file, lineNo, line[sp+1:], t.tokens)
		}
		t.tokens++
		tok := buf[:n]
		if n <= shortToken {
			if !t.insertShort(shortSlot{key: pack(string(tok)), n: uint32(n), rank: uint32(rank)}) {
				return nil, fmt.Errorf("%s:%d: token %q appears twice", file, lineNo, tok)
			}
			continue
		}
		long.Write(tok)
		t.longOff = append(t.longOff, uint32(long.Len()))
		t.longRank = append(t.longRank, uint32(rank))
	}
	t.longData = long.String()
	size := 1
	for size < 2*len(t.longRank) {
		size <<= 1
	}
	t.long = make([]uint64, size)
	t.longMask = uint64(size - 1)
	for i := range t.longRank {
		tok := t.longData[t.longOff[i]:t.longOff[i+1]]
		h := maphash.String(t.seed, tok)
		if _, dup := t.lookupLong(h, tok); dup {
			return nil, fmt.Errorf("%s: token %q appears twice", file, tok)
		}
		j := h & t.longMask
		for t.long[j] != 0 {
			j = (j + 1) & t.longMask
		}
		t.long[j] = h&^0xFFFFFFFF | uint64(i+1)
	}
	return t, nil
}

// nextLine splits b after its first line, without the '\n'.
func nextLine(b []byte) (line, rest []byte) {
	if k := bytes.IndexByte(b, '\n'); k >= 0 {
		return b[:k], b[k+1:]
	}
	return b, nil
}

// insertShort adds a short token; it reports false if it is already there.
func (t *rankTable) insertShort(tok shortSlot) bool {
	mask := uint64(len(t.short) - 1)
	for i := shortHash(tok.key, int(tok.n)) >> t.shortShift; ; i = (i + 1) & mask {
		s := &t.short[i]
		if s.n == 0 {
			*s = tok
			return true
		}
		if s.key == tok.key && s.n == tok.n {
			return false
		}
	}
}

// parseUint parses a decimal number of at most 9 digits.
func parseUint(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// lookupShort returns the rank of p, len(p) <= shortToken.
func (t *rankTable) lookupShort(p string) uint32 {
	key := pack(p)
	return t.lookupShortKey(shortHash(key, len(p)), key, len(p))
}

// lookupShortKey returns the rank of the short token with packed bytes key,
// length n and shortHash h.
func (t *rankTable) lookupShortKey(h, key uint64, n int) uint32 {
	mask := uint64(len(t.short) - 1)
	for i := h >> t.shortShift; ; i = (i + 1) & mask {
		s := &t.short[i]
		if s.n == 0 {
			return noRank
		}
		if s.key == key && s.n == uint32(n) {
			return s.rank
		}
	}
}

// lookupLong returns the rank of p, len(p) > shortToken, whose maphash is h.
func (t *rankTable) lookupLong(h uint64, p string) (uint32, bool) {
	tag := h &^ 0xFFFFFFFF
	for i := h & t.longMask; ; i = (i + 1) & t.longMask {
		e := t.long[i]
		if e == 0 {
			return noRank, false
		}
		if e&^0xFFFFFFFF == tag {
			k := uint32(e) - 1
			if t.longData[t.longOff[k]:t.longOff[k+1]] == p {
				return t.longRank[k], true
			}
		}
	}
}

// rank returns the rank of the token p, or noRank.
func (t *rankTable) rank(p string) uint32 {
	if len(p) <= shortToken {
		return t.lookupShort(p)
	}
	r, _ := t.lookupLong(maphash.String(t.seed, p), p)
	return r
}

// size returns the number of tokens.
func (t *rankTable) size() int { return t.tokens }
