package index

import (
	"slices"
	"strings"
)

// PathWords calls fn with each lower-cased word of path p that path
// matching keys on: the file name without its extension (the text after
// the last '.', unless that is the name's first byte), each part of that
// stem split at '_', '-' and '.', and each directory name. A word may come
// more than once.
func PathWords(p string, fn func(word string)) {
	slash := strings.LastIndexByte(p, '/')
	base := p[slash+1:]
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	base = lowerASCII(base)
	fn(base)
	for rest := base; rest != ""; {
		i := strings.IndexAny(rest, "_-.")
		if i < 0 {
			if rest != base {
				fn(rest)
			}
			break
		}
		if i > 0 {
			fn(rest[:i])
		}
		rest = rest[i+1:]
	}
	if slash > 0 {
		for dirs := p[:slash]; dirs != ""; {
			d, rest, _ := strings.Cut(dirs, "/")
			if d != "" {
				fn(lowerASCII(d))
			}
			dirs = rest
		}
	}
}

// lowerASCII lower-cases s, without allocating when it has no upper-case
// or non-ASCII byte.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' || c >= 0x80 {
			return strings.ToLower(s)
		}
	}
	return s
}

// pathIndex returns the map from each PathWords word to the indexes into
// t.paths of the paths that have it (ascending, each once), building it
// on the first call. Safe for concurrent use.
func (t *tables) pathIndex() map[string][]int32 {
	t.pathOnce.Do(func() {
		counts := make(map[string]int32)
		total := 0
		last := make(map[string]int32) // word → last path index counted
		for i, p := range t.paths {
			PathWords(p, func(w string) {
				if j, ok := last[w]; ok && j == int32(i) {
					return
				}
				last[w] = int32(i)
				counts[w]++
				total++
			})
		}
		t.byWord = slabLists(counts, total)
		for i, p := range t.paths {
			PathWords(p, func(w string) {
				l := t.byWord[w]
				if n := len(l); n > 0 && l[n-1] == int32(i) {
					return
				}
				t.byWord[w] = append(l, int32(i))
			})
		}
	})
	return t.byWord
}

// PathsWithWords returns, sorted, the snapshot's paths that have at least
// one of words (lower-case) among their PathWords.
func (s *Snapshot) PathsWithWords(words []string) []string {
	if len(words) == 0 {
		return nil
	}
	byWord := s.base.pathIndex()
	var idx []int32
	for _, w := range words {
		idx = append(idx, byWord[w]...)
	}
	slices.Sort(idx)
	idx = slices.Compact(idx)
	var out []string
	for _, i := range idx {
		p := s.base.paths[i]
		if _, changed := s.delta[p]; !changed {
			out = append(out, p)
		}
	}
	// Files changed since base (delta is small): test them directly.
	var added bool
	for p, f := range s.delta {
		if f == nil {
			continue
		}
		match := false
		PathWords(p, func(w string) { match = match || slices.Contains(words, w) })
		if match {
			out = append(out, p)
			added = true
		}
	}
	if added {
		slices.Sort(out)
	}
	return out
}
