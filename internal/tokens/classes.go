package tokens

import (
	"unicode"
	"unicode/utf8"
)

// Character classes used by the pre-tokenizers. A rune's class is a set of
// these bits; they mirror the classes of the tiktoken regular expressions as
// evaluated by github.com/dlclark/regexp2 (which tiktoken-go uses), with
// Go's unicode tables.
const (
	clsL  uint8 = 1 << iota // \p{L}
	clsN                    // \p{N}
	clsS                    // \s, which regexp2 evaluates with unicode.IsSpace
	clsNL                   // '\r' or '\n'
	clsU                    // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] (o200k "upper")
	clsW                    // [\p{Ll}\p{Lm}\p{Lo}\p{M}] (o200k "lower")
)

// bmpClass holds the class of every rune of the Basic Multilingual Plane.
// It is computed once at package initialisation from the unicode range
// tables (a fraction of a millisecond) and never written afterwards.
// TestClassTableMatchesUnicode checks it against classSlow for every rune.
var bmpClass = func() (t [1 << 16]uint8) {
	fill := func(tab *unicode.RangeTable, bits uint8) {
		for _, r := range tab.R16 {
			for c := uint32(r.Lo); c <= uint32(r.Hi); c += uint32(r.Stride) {
				t[c] |= bits
			}
		}
		for _, r := range tab.R32 {
			for c := r.Lo; c <= r.Hi && c <= 0xFFFF; c += r.Stride {
				t[c] |= bits
			}
		}
	}
	fill(unicode.L, clsL)
	fill(unicode.N, clsN)
	fill(unicode.Lu, clsU)
	fill(unicode.Lt, clsU)
	fill(unicode.Lm, clsU|clsW)
	fill(unicode.Lo, clsU|clsW)
	fill(unicode.M, clsU|clsW)
	fill(unicode.Ll, clsW)
	for c := rune(0); c <= 0xFF; c++ {
		if unicode.IsSpace(c) {
			t[c] |= clsS
		}
	}
	// unicode.IsSpace uses the White_Space property above Latin-1.
	for _, r := range unicode.White_Space.R16 {
		for c := uint32(r.Lo); c <= uint32(r.Hi); c += uint32(r.Stride) {
			if c > 0xFF {
				t[c] |= clsS
			}
		}
	}
	t['\r'] |= clsNL
	t['\n'] |= clsNL
	return t
}()

// classSlow computes a rune's class from the unicode package directly, the
// way regexp2 tests class membership. It is the definition bmpClass caches.
func classSlow(r rune) uint8 {
	var c uint8
	if unicode.Is(unicode.L, r) {
		c |= clsL
	}
	if unicode.Is(unicode.N, r) {
		c |= clsN
	}
	if unicode.IsSpace(r) {
		c |= clsS
	}
	if r == '\r' || r == '\n' {
		c |= clsNL
	}
	if unicode.Is(unicode.Lu, r) || unicode.Is(unicode.Lt, r) || unicode.Is(unicode.Lm, r) ||
		unicode.Is(unicode.Lo, r) || unicode.Is(unicode.M, r) {
		c |= clsU
	}
	if unicode.Is(unicode.Ll, r) || unicode.Is(unicode.Lm, r) || unicode.Is(unicode.Lo, r) ||
		unicode.Is(unicode.M, r) {
		c |= clsW
	}
	return c
}

// runeClass returns the class of r.
func runeClass(r rune) uint8 {
	if r <= 0xFFFF {
		return bmpClass[r]
	}
	return classSlow(r)
}

// classAt returns the class and the byte length of the rune starting at
// s[i]; s must be valid UTF-8 and i < len(s).
func classAt(s string, i int) (uint8, int) {
	if b := s[i]; b < utf8.RuneSelf {
		return bmpClass[b], 1
	}
	return classAtMultibyte(s, i)
}

// classAtMultibyte is classAt for a rune of more than one byte, kept apart
// so that classAt inlines.
func classAtMultibyte(s string, i int) (uint8, int) {
	r, n := utf8.DecodeRuneInString(s[i:])
	return runeClass(r), n
}

// spanAny returns the end of the longest run of runes starting at s[i]
// whose class has at least one of the bits of want.
func spanAny(s string, i int, want uint8) int {
	for i < len(s) {
		if b := s[i]; b < utf8.RuneSelf {
			if bmpClass[b]&want == 0 {
				return i
			}
			i++
			continue
		}
		c, n := classAt(s, i)
		if c&want == 0 {
			return i
		}
		i += n
	}
	return i
}

// spanNone returns the end of the longest run of runes starting at s[i]
// whose class has none of the bits of avoid.
func spanNone(s string, i int, avoid uint8) int {
	for i < len(s) {
		if b := s[i]; b < utf8.RuneSelf {
			if bmpClass[b]&avoid != 0 {
				return i
			}
			i++
			continue
		}
		c, n := classAt(s, i)
		if c&avoid != 0 {
			return i
		}
		i += n
	}
	return i
}

// spanNewlines returns the end of [\r\n]* at s[i], and with slash also
// '/', i.e. [\r\n/]*.
func spanNewlines(s string, i int, slash bool) int {
	for i < len(s) {
		switch s[i] {
		case '\r', '\n':
		case '/':
			if !slash {
				return i
			}
		default:
			return i
		}
		i++
	}
	return i
}

// lowerAt decodes the rune at s[i] and lowers it the way regexp2 does for
// case-insensitive matching (unicode.ToLower of the input rune). It returns
// -1 at the end of s.
func lowerAt(s string, i int) (rune, int) {
	if i >= len(s) {
		return -1, 0
	}
	if b := s[i]; b < utf8.RuneSelf {
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		return rune(b), 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return unicode.ToLower(r), n
}

// contraction returns the byte length of a match of
// (?i:'s|'t|'re|'ve|'m|'ll|'d) at s[i], or 0 if there is none.
func contraction(s string, i int) int {
	if i >= len(s) || s[i] != '\'' {
		return 0
	}
	r1, n1 := lowerAt(s, i+1)
	switch r1 {
	case 's', 't', 'm', 'd':
		return 1 + n1
	case 'r', 'v':
		if r2, n2 := lowerAt(s, i+1+n1); r2 == 'e' {
			return 1 + n1 + n2
		}
	case 'l':
		if r2, n2 := lowerAt(s, i+1+n1); r2 == 'l' {
			return 1 + n1 + n2
		}
	}
	return 0
}
