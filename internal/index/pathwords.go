package index

import (
	"slices"
	"strings"
)

// PathWords calls fn with each lower-cased word of path p that path
// matching keys on: the file name without its extension (the text after
// the last '.', unless that is the name's first byte), each part of that
// stem (StemParts), and each directory name. A word may come more than
// once.
func PathWords(p string, fn func(word string)) {
	slash := strings.LastIndexByte(p, '/')
	base := p[slash+1:]
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	fn(lowerASCII(base))
	StemParts(base, true, fn)
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

// StemParts calls fn with each lower-cased part of a file name's stem, but
// for a stem that is one part: the stem split at '_', '-' and '.', and,
// with camel, each piece at its case changes — PostgresQueryRunner is
// postgres, query, runner; HTTPServer is http, server (Java and TypeScript
// name files after their types); keep_alive is keep, alive either way.
func StemParts(stem string, camel bool, fn func(part string)) {
	n, whole := 0, false
	eachStemPart(stem, camel, func(part string) { n, whole = n+1, part == stem })
	if n == 1 && whole {
		return
	}
	eachStemPart(stem, camel, func(part string) { fn(lowerASCII(part)) })
}

// eachStemPart calls fn with each part of stem, as StemParts splits it,
// in its own case.
func eachStemPart(stem string, camel bool, fn func(part string)) {
	for rest := stem; rest != ""; {
		i := strings.IndexAny(rest, "_-.")
		piece := rest
		if i >= 0 {
			piece, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		for piece != "" {
			j := len(piece)
			if camel {
				j = caseBreak(piece)
			}
			fn(piece[:j])
			piece = piece[j:]
		}
	}
}

// caseBreak is the length of s's first camel-case word: up to a lower-case
// letter or digit followed by an upper-case one (queryRunner), or up to
// the last of a run of upper-case letters that a lower-case one follows
// (HTTPServer); len(s) when there is none.
func caseBreak(s string) int {
	for i := 1; i < len(s); i++ {
		prev, c := s[i-1], s[i]
		upper := c >= 'A' && c <= 'Z'
		if upper && (prev >= 'a' && prev <= 'z' || prev >= '0' && prev <= '9') {
			return i
		}
		if prev >= 'A' && prev <= 'Z' && upper && i+1 < len(s) && s[i+1] >= 'a' && s[i+1] <= 'z' {
			return i
		}
	}
	return len(s)
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
//
// Words are numbered as they are met, and a directory's words are found
// once for all the files in it: on four copies of Go's src (40 000 paths,
// 10 000 directories) that is a map lookup per path and per stem word
// instead of one per word of every path, twice.
func (t *tables) pathIndex() map[string][]int32 {
	t.pathOnce.Do(func() {
		ids := map[string]int32{}
		var words []string
		var lists [][]int32
		id := func(w string) int32 {
			k, ok := ids[w]
			if !ok {
				k = int32(len(words))
				ids[w] = k
				words = append(words, w)
				lists = append(lists, nil)
			}
			return k
		}
		dirWords := map[string][]int32{} // directory → its words' ids
		var mine []int32
		// The paths are sorted: most follow one of the same directory,
		// whose words are the last ones found.
		lastDir, lastWords := "", []int32(nil)
		for i, p := range t.paths {
			mine = mine[:0]
			slash := strings.LastIndexByte(p, '/')
			if slash > 0 {
				if dir := p[:slash]; dir != lastDir || lastWords == nil {
					dw, ok := dirWords[dir]
					if !ok {
						for dirs := dir; dirs != ""; {
							d, rest, _ := strings.Cut(dirs, "/")
							if d != "" {
								dw = append(dw, id(lowerASCII(d)))
							}
							dirs = rest
						}
						dirWords[dir] = dw
					}
					lastDir, lastWords = dir, dw
				}
				mine = append(mine, lastWords...)
			}
			base := p[slash+1:]
			if j := strings.LastIndexByte(base, '.'); j > 0 {
				base = base[:j]
			}
			mine = append(mine, id(lowerASCII(base)))
			StemParts(base, true, func(w string) { mine = append(mine, id(w)) })
			for _, k := range mine {
				l := lists[k]
				if n := len(l); n > 0 && l[n-1] == int32(i) {
					continue // the word is this path's more than once
				}
				lists[k] = append(l, int32(i))
			}
		}
		t.byWord = make(map[string][]int32, len(words))
		for k, w := range words {
			t.byWord[w] = slices.Clip(lists[k])
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
