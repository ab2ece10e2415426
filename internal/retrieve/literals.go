package retrieve

import "strings"

// literalShare is the share of a code text's non-blank bytes that sit
// inside string literals: near 1 for a unit that is a text constant (a
// license template, an embedded page, a table of messages), near 0 for
// logic. The scan knows the quotes of the indexed languages — "…" and '…'
// end at the line's end if not before (a Rust lifetime or a Java char costs
// a few bytes), `…` and Python's triple quotes run across lines — and
// passes over // and # line comments, /* */ blocks and docstrings, which
// are prose.
func literalShare(text string) float64 {
	inside, total := 0, 0
	for i := 0; i < len(text); {
		c := text[i]
		var n int
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case c == '#' || c == '/' && strings.HasPrefix(text[i+1:], "/"):
			n = lineEnd(text, i) - i
		case c == '/' && strings.HasPrefix(text[i+1:], "*"):
			n = len(text) - i
			if j := strings.Index(text[i+2:], "*/"); j >= 0 {
				n = j + 4
			}
		case c == '"' || c == '\'' || c == '`':
			n = literalLen(text[i:])
			if !isDocstring(text, i) {
				inside += nonBlank(text[i : i+n])
			}
		default:
			// A run of bytes none of the cases above starts at: code,
			// none of it blank.
			n = 1
			for n < len(text)-i && !literalScanStop(text[i+n]) {
				n++
			}
			total += n
			i += n
			continue
		}
		total += nonBlank(text[i : i+n])
		i += n
	}
	if total == 0 {
		return 0
	}
	return float64(inside) / float64(total)
}

// literalScanStop reports whether literalShare's scan must look at c: a
// blank, a comment's start or a quote.
func literalScanStop(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '#', '/', '"', '\'', '`':
		return true
	}
	return false
}

// literalLen is the length of the string literal s starts with (s[0] is
// its quote): through its closing quote, or to the end of the line for an
// unclosed "…" or '…', or to the end of s.
func literalLen(s string) int {
	q := s[0]
	if q == '`' {
		if j := strings.IndexByte(s[1:], '`'); j >= 0 {
			return j + 2
		}
		return len(s)
	}
	if len(s) >= 3 && s[1] == q && s[2] == q { // """…""" or '''…'''
		if j := strings.Index(s[3:], s[:3]); j >= 0 {
			return j + 6
		}
		return len(s)
	}
	for j := 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return j + 1
		case '\n':
			return j
		}
	}
	return len(s)
}

// isDocstring reports whether the literal at i is a triple-quoted string
// that opens its line: a Python docstring, which is prose like a comment,
// not a constant (that one follows an "=").
func isDocstring(text string, i int) bool {
	if !strings.HasPrefix(text[i:], `"""`) && !strings.HasPrefix(text[i:], "'''") {
		return false
	}
	start := strings.LastIndexByte(text[:i], '\n') + 1
	return strings.TrimLeft(text[start:i], " \t") == ""
}

// lineEnd is the index of the newline ending the line at i (len(text) on
// the last line).
func lineEnd(text string, i int) int {
	if j := strings.IndexByte(text[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(text)
}

// nonBlank counts the bytes of s that are not spaces, tabs or line ends.
func nonBlank(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			n++
		}
	}
	return n
}
