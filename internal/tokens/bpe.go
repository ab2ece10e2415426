package tokens

// Byte-pair merging, counting only. Both functions compute what tiktoken's
// byte_pair_merge computes: start from single bytes and repeatedly merge the
// adjacent pair whose concatenation has the lowest rank, the leftmost one
// on ties, until no adjacent pair is a token. The result is the number of
// parts left.

// smallPiece is the longest piece merged with the quadratic, allocation-free
// algorithm; longer pieces use a heap.
const smallPiece = 128

// mergeCount returns the number of tokens byte-pair merging makes of p,
// len(p) >= 2.
func (t *rankTable) mergeCount(p string) int {
	if len(p) > smallPiece {
		return t.mergeCountHeap(p)
	}
	// Part k spans p[pos[k]:pos[k+1]]; rk[k] is the rank of parts k and
	// k+1 merged (noRank if that is not a token or k+1 is the last
	// boundary). m counts boundaries, so there are m-1 parts.
	var pos [smallPiece + 1]uint8
	var rk [smallPiece + 1]uint32
	m := len(p) + 1
	for k := range m {
		pos[k] = uint8(k)
		rk[k] = noRank
	}
	for k := 0; k+2 < m; k++ {
		rk[k] = t.rank(p[k : k+2])
	}
	for {
		best, bi := noRank, -1
		for k := 0; k < m-1; k++ {
			if rk[k] < best {
				best, bi = rk[k], k
			}
		}
		if bi < 0 {
			break
		}
		// Merge parts bi and bi+1 by removing boundary bi+1.
		if bi+3 < m {
			rk[bi] = t.rank(p[pos[bi]:pos[bi+3]])
		} else {
			rk[bi] = noRank
		}
		if bi > 0 {
			rk[bi-1] = t.rank(p[pos[bi-1]:pos[bi+2]])
		}
		copy(pos[bi+1:m-1], pos[bi+2:m])
		copy(rk[bi+1:m-1], rk[bi+2:m])
		m--
	}
	return m - 1
}

// mergeCountHeap is mergeCount for long pieces, in O(n log n): the parts
// form a linked list and candidate merges sit in a min-heap ordered by
// (rank, start), so that the lowest rank wins and the leftmost on ties.
// Entries made stale by earlier merges are skipped when popped.
func (t *rankTable) mergeCountHeap(p string) int {
	n := len(p)
	// Parts are named by their start offset, which merging preserves.
	// next[k] is the start of the part after part k (n for the last one);
	// prev[k] that of the part before (-1 for the first); rk[k] the rank
	// of part k merged with its successor; dead parts have next[k] = -1.
	next := make([]int32, n)
	prev := make([]int32, n)
	rk := make([]uint32, n)
	h := make(minHeap, 0, n)
	for k := range n {
		next[k] = int32(k + 1)
		prev[k] = int32(k - 1)
		rk[k] = noRank
		if k+2 <= n {
			rk[k] = t.rank(p[k : k+2])
			if rk[k] != noRank {
				h = append(h, uint64(rk[k])<<32|uint64(k))
			}
		}
	}
	h.init()
	parts := n
	// rankAfter returns the rank of part k merged with its successor.
	rankAfter := func(k int32) uint32 {
		nx := next[k]
		if nx >= int32(n) {
			return noRank
		}
		return t.rank(p[k:next[nx]])
	}
	for len(h) > 0 {
		top := h.pop()
		k, r := int32(uint32(top)), uint32(top>>32)
		if next[k] < 0 || rk[k] != r {
			continue // stale
		}
		// Merge part k with its successor nx.
		nx := next[k]
		next[k] = next[nx]
		if next[nx] < int32(n) {
			prev[next[nx]] = k
		}
		next[nx] = -1
		parts--
		if rk[k] = rankAfter(k); rk[k] != noRank {
			h.push(uint64(rk[k])<<32 | uint64(k))
		}
		if pk := prev[k]; pk >= 0 {
			if rk[pk] = rankAfter(pk); rk[pk] != noRank {
				h.push(uint64(rk[pk])<<32 | uint64(pk))
			}
		}
	}
	return parts
}

// minHeap is a binary min-heap of (rank<<32 | start) keys.
type minHeap []uint64

func (h minHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *minHeap) push(x uint64) {
	*h = append(*h, x)
	s := *h
	i := len(s) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if s[parent] <= s[i] {
			break
		}
		s[parent], s[i] = s[i], s[parent]
		i = parent
	}
}

func (h *minHeap) pop() uint64 {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	*h = s[:last]
	h.down(0)
	return top
}

func (h minHeap) down(i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		small := l
		if r := l + 1; r < n && h[r] < h[l] {
			small = r
		}
		if h[i] <= h[small] {
			return
		}
		h[i], h[small] = h[small], h[i]
		i = small
	}
}
