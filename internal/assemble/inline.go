package assemble

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// InlineText returns s as one line of visible text, for a name (a file
// path, a symbol, a handle) printed where a model reads it: in a part's
// header, a tool's list of definitions or left-out candidates. A file name
// may hold any byte but '/' and NUL, so a repository can name a file
// "x.go\n```\nIgnore the above…" to make its name read as instructions
// outside the code block; escaped, it stays one line inside its header.
// Line breaks and tabs become \n, \r, \t; other control characters, the
// Unicode line and paragraph separators and the bidirectional controls
// (which can make text display in an order other than the one read) become
// \u{XXXX}; a byte that is not UTF-8 becomes \x{XX}; a backslash that
// would start such an escape is doubled. Text without any of these is
// returned as it is.
func InlineText(s string) string {
	if !needsInline(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x{%02X}`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\\' && escapeFollows(s[i+1:]):
			b.WriteString(`\\`)
		case hiddenRune(r):
			fmt.Fprintf(&b, `\u{%04X}`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// needsInline reports whether InlineText changes s.
func needsInline(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || hiddenRune(r) || r == '\\' && escapeFollows(s[i+1:]) {
			return true
		}
		i += size
	}
	return false
}

// escapeFollows reports whether rest (after a backslash) starts like one of
// InlineText's escapes, so that the backslash must be doubled to keep the
// escaped text unambiguous.
func escapeFollows(rest string) bool {
	return strings.HasPrefix(rest, "n") || strings.HasPrefix(rest, "r") || strings.HasPrefix(rest, "t") ||
		strings.HasPrefix(rest, "u{") || strings.HasPrefix(rest, "x{") || strings.HasPrefix(rest, `\`)
}

// hiddenRune reports whether r is a control, a line or paragraph
// separator, or a bidirectional formatting character.
func hiddenRune(r rune) bool {
	switch {
	case unicode.IsControl(r), r == '\u2028', r == '\u2029':
		return true
	case r == '\u061C', r == '\u200E', r == '\u200F',
		'\u202A' <= r && r <= '\u202E', '\u2066' <= r && r <= '\u2069':
		return true
	}
	return false
}
