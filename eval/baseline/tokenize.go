package baseline

import (
	"unicode"
	"unicode/utf8"
)

// Tokenize splits text into lower-cased terms: every identifier (a run of
// letters, digits and underscores) gives itself and, when it has several,
// its camelCase, snake_case and letter/digit parts ("parseHTTPHeader" →
// parsehttpheader, parse, http, header). Terms shorter than 2 bytes are
// dropped.
func Tokenize(text string) []string {
	var out []string
	emit := func(s string) {
		if len(s) >= 2 {
			out = append(out, s)
		}
	}
	forEachIdent(text, func(id string) {
		parts := splitIdent(id)
		emit(lower(id))
		if len(parts) > 1 {
			for _, p := range parts {
				emit(lower(p))
			}
		}
	})
	return out
}

func isIdentRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func forEachIdent(text string, f func(string)) {
	start := -1
	for i, r := range text {
		if isIdentRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			f(text[start:i])
			start = -1
		}
	}
	if start >= 0 {
		f(text[start:])
	}
}

// splitIdent cuts an identifier at underscores, lower→upper changes,
// before the last upper of an upper run followed by a lower ("HTTPServer"
// → HTTP, Server) and between letters and digits.
func splitIdent(id string) []string {
	var parts []string
	start := -1
	var prev rune
	for i, r := range id {
		if r == '_' {
			if start >= 0 {
				parts = append(parts, id[start:i])
			}
			start, prev = -1, r
			continue
		}
		if start < 0 {
			start, prev = i, r
			continue
		}
		cut := false
		switch {
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			cut = true
		case unicode.IsUpper(prev) && unicode.IsLower(r) && i-start > utf8.RuneLen(prev):
			// "HTTPServer": cut before the 'S'.
			j := i - utf8.RuneLen(prev)
			parts = append(parts, id[start:j])
			start = j
		case unicode.IsDigit(r) != unicode.IsDigit(prev):
			cut = true
		}
		if cut {
			parts = append(parts, id[start:i])
			start = i
		}
		prev = r
	}
	if start >= 0 {
		parts = append(parts, id[start:])
	}
	return parts
}

func lower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			b := []rune(s)
			for j, r := range b {
				b[j] = unicode.ToLower(r)
			}
			return string(b)
		}
	}
	return s
}
