package tokens

import (
	"unicode/utf8"
)

// The pre-tokenizers below split a text into the same pieces as the
// encodings' regular expressions do under regexp2's backtracking semantics
// (leftmost alternative wins; greedy quantifiers give back one rune at a
// time). Every position of a text starts a match of some alternative, so the
// pieces tile the text and a pre-tokenizer only has to find where the piece
// starting at i ends. The input must be valid UTF-8 (see sanitize).
//
// cl100k_base:
//
//	A1 (?i:'s|'t|'re|'ve|'m|'ll|'d)
//	A2 [^\r\n\p{L}\p{N}]?\p{L}+
//	A3 \p{N}{1,3}
//	A4  ?[^\s\p{L}\p{N}]+[\r\n]*
//	A5 \s*[\r\n]+
//	A6 \s+(?!\S)
//	A7 \s+
//
// o200k_base, with U = [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}],
// W = [\p{Ll}\p{Lm}\p{Lo}\p{M}] and C = (?i:'s|'t|'re|'ve|'m|'ll|'d):
//
//	B1 [^\r\n\p{L}\p{N}]?U*W+C?
//	B2 [^\r\n\p{L}\p{N}]?U+W*C?
//	B3 \p{N}{1,3}
//	B4  ?[^\s\p{L}\p{N}]+[\r\n/]*
//	B5 \s*[\r\n]+
//	B6 \s+(?!\S)
//	B7 \s+

// pieceEndCL100K returns the end of the cl100k_base piece starting at s[i].
func pieceEndCL100K(s string, i int) int {
	c0, n0 := classAt(s, i)
	j := i + n0
	switch {
	case c0&clsL != 0: // A2 without the optional prefix
		return spanAny(s, j, clsL)
	case c0&clsN != 0: // A3
		return digits(s, j)
	case c0&clsS != 0:
		return spaceEnd(s, i, j, c0, false)
	}
	// c0 is neither letter, digit nor space: it may start A1, is in A2's
	// optional prefix, and otherwise starts A4.
	if s[i] == '\'' {
		if n := contraction(s, i); n > 0 {
			return i + n
		}
	}
	if j < len(s) {
		if c1, n1 := classAt(s, j); c1&clsL != 0 {
			return spanAny(s, j+n1, clsL)
		}
	}
	return spanNewlines(s, spanNone(s, j, clsS|clsL|clsN), false)
}

// pieceEndO200K returns the end of the o200k_base piece starting at s[i].
func pieceEndO200K(s string, i int) int {
	c0, n0 := classAt(s, i)
	j := i + n0
	switch {
	case c0&clsN != 0: // B3
		return digits(s, j)
	case c0&clsS != 0:
		return spaceEnd(s, i, j, c0, true)
	}
	// c0 is a letter, a mark or another symbol. The alternatives are tried
	// in order, each first with the optional prefix (c0 is in the prefix
	// class unless it is a letter) and then, backtracking, without it.
	prefix := c0&clsL == 0
	letterish := c0&(clsU|clsW) != 0
	if prefix {
		if e := upperLower(s, j); e > 0 {
			return e
		}
	}
	if letterish {
		if e := upperLower(s, i); e > 0 {
			return e
		}
	}
	if prefix {
		if e := upperThenLower(s, j); e > 0 {
			return e
		}
	}
	if letterish {
		if e := upperThenLower(s, i); e > 0 {
			return e
		}
	}
	// B4; c0 is in [^\s\p{L}\p{N}] here (a letter always matches B1 or B2).
	return spanNewlines(s, spanNone(s, j, clsS|clsL|clsN), true)
}

// digits returns the end of \p{N}{1,3} given that the first digit ends at j.
func digits(s string, j int) int {
	for k := 0; k < 2 && j < len(s); k++ {
		c, n := classAt(s, j)
		if c&clsN == 0 {
			break
		}
		j += n
	}
	return j
}

// upperLower matches U*W+C? at s[st] (B1 after its prefix) and returns its
// end, or 0 if it does not match.
//
// U* is greedy: with the longest run of U ending at k, W+ matches at k only
// if s[k] is in W but not U, i.e. \p{Ll}; otherwise U* gives back runes until
// W+ can start, which happens at the last rune of the U run that is also in
// W (Lm, Lo, M), and W+ then matches that single rune (the next rune is
// either Lu/Lt or not in W).
func upperLower(s string, st int) int {
	// ASCII fast path: capitals are U but not W, small letters W but not
	// U, and nothing else ASCII is in either.
	k := st
	for k < len(s) && 'A' <= s[k] && s[k] <= 'Z' {
		k++
	}
	if k == len(s) {
		return 0
	}
	if b := s[k]; b < utf8.RuneSelf {
		if 'a' <= b && b <= 'z' {
			e := spanAny(s, k+1, clsW)
			return e + contraction(s, e)
		}
		return 0
	}
	oEnd := 0
	for k < len(s) {
		c, n := classAt(s, k)
		if c&clsU == 0 {
			if c&clsW != 0 {
				e := spanAny(s, k+n, clsW)
				return e + contraction(s, e)
			}
			break
		}
		k += n
		if c&clsW != 0 {
			oEnd = k
		}
	}
	if oEnd == 0 {
		return 0
	}
	return oEnd + contraction(s, oEnd)
}

// upperThenLower matches U+W*C? at s[st] (B2 after its prefix) and returns
// its end, or 0 if it does not match.
func upperThenLower(s string, st int) int {
	k := spanAny(s, st, clsU)
	if k == st {
		return 0
	}
	e := spanAny(s, k, clsW)
	return e + contraction(s, e)
}

// spaceEnd returns the end of the piece starting with the white-space rune
// s[i:j] of class c0. o200k selects the o200k_base variants of A2 and A4.
func spaceEnd(s string, i, j int, c0 uint8, o200k bool) int {
	if j == len(s) {
		return j
	}
	c1, n1 := classAt(s, j)
	if c1&clsS == 0 {
		// A run of one space rune followed by a non-space rune. A1 and
		// A3 cannot match; A2 and A4 can use the space as their prefix;
		// A5 matches a lone newline; A6 fails and A7 takes the rune.
		if c0&clsNL == 0 {
			if o200k {
				if e := upperLower(s, j); e > 0 {
					return e
				}
				if e := upperThenLower(s, j); e > 0 {
					return e
				}
			} else if c1&clsL != 0 {
				return spanAny(s, j+n1, clsL)
			}
			if s[i] == ' ' && c1&(clsL|clsN) == 0 {
				return spanNewlines(s, spanNone(s, j+n1, clsS|clsL|clsN), o200k)
			}
		}
		return j
	}
	// A run of two or more space runes: A2 and A4 cannot match. A5 takes
	// the run up to its last newline if it has one; otherwise A6 takes
	// the whole run at the end of the text and all but its last rune
	// elsewhere.
	lastNL, last, k := 0, j, j+n1
	if c0&clsNL != 0 {
		lastNL = j
	}
	if c1&clsNL != 0 {
		lastNL = k
	}
	for k < len(s) {
		b := s[k]
		if b < utf8.RuneSelf {
			if bmpClass[b]&clsS == 0 {
				break
			}
			last = k
			k++
			if b == '\r' || b == '\n' {
				lastNL = k
			}
			continue
		}
		c, n := classAt(s, k)
		if c&clsS == 0 {
			break
		}
		last = k
		k += n
	}
	switch {
	case lastNL > 0:
		return lastNL
	case k == len(s):
		return k
	default:
		return last
	}
}
