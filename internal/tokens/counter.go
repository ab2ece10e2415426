package tokens

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Counter counts the tokens of a text in one encoding.
//
// Implementations are safe for concurrent use and deterministic: the same
// text always gives the same count.
//
// Additivity: for the tiktoken encodings, Count(a+b) == Count(a)+Count(b)
// whenever a ends with '\n' and the first character of b (its first rune as
// utf8.DecodeRuneInString decodes it) is neither white space, in the sense
// of unicode.IsSpace, nor '/': the pre-tokenizer always splits there.
// Additive reports this condition. Looking at b's first byte is not enough:
// multi-byte white space such as U+3000 also joins the newlines before it
// ("\n\n" + "\u3000\n" is 1 token in o200k_base, not 1+1), and '/' joins a
// punctuation run before the newline in o200k_base ("x.\n" + "/" is 2, not
// 2+1). The assembler relies on this to count a rendered context from cached
// per-part counts, and still verifies the final text with one whole count.
type Counter interface {
	// Name is the encoding's name, e.g. "cl100k_base".
	Name() string
	// Count returns the number of tokens of text.
	Count(text string) int
}

// Additive reports whether the additivity rule of Counter guarantees
// Count(a+b) == Count(a)+Count(b) for the tiktoken encodings: a ends with
// '\n' and b starts with a rune that is neither white space nor '/'. It is
// also true, trivially, when a or b is empty.
func Additive(a, b string) bool {
	if a == "" || b == "" {
		return true
	}
	if !strings.HasSuffix(a, "\n") {
		return false
	}
	r, _ := utf8.DecodeRuneInString(b)
	return r != '/' && !unicode.IsSpace(r)
}
