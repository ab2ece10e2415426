package soak

import (
	"strings"
	"unicode/utf8"

	"github.com/ctxls/ctxls/internal/assemble"
)

// position is an LSP position: a 0-based line and a character offset in
// UTF-16 code units.
type position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// lspRange is an LSP range (end exclusive).
type lspRange struct {
	Start position `json:"start"`
	End   position `json:"end"`
}

// lineRange is a 1-based inclusive range of lines, as parts carry them.
type lineRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// lineStarts returns the byte offset of the start of every line of text
// (lines end at "\n"; the trees the harness uses hold no "\r"). A text
// ending with "\n" has no empty last line here, as the assembler counts.
func lineStarts(text string) []int {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' && i+1 < len(text) {
			starts = append(starts, i+1)
		}
	}
	if text == "" {
		return nil
	}
	return starts
}

// numLines is the number of lines as the assembler counts them.
func numLines(text string) int { return len(lineStarts(text)) }

// linesOf returns lines start..end (1-based, inclusive) of text, each
// ending with "\n" (the last one too, as the assembler renders it), and
// false when the range is not inside the text.
func linesOf(text string, starts []int, start, end int) (string, bool) {
	if start < 1 || end < start || end > len(starts) {
		return "", false
	}
	a := starts[start-1]
	b := len(text)
	if end < len(starts) {
		b = starts[end]
	}
	s := text[a:b]
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s, true
}

// withoutElisions is a part's text without its elision markers.
func withoutElisions(text string) string {
	if !strings.Contains(text, "[... ") {
		return text
	}
	var sb strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		if !assemble.IsElisionMarker(strings.TrimSuffix(line, "\n")) {
			sb.WriteString(line)
		}
	}
	return sb.String()
}

// partMatches reports whether a part showing lines rs with text partText
// shows text: its text without elision markers is text's lines at rs.
func partMatches(text string, rs []lineRange, partText string) bool {
	if len(rs) == 0 {
		return false
	}
	starts := lineStarts(text)
	var want strings.Builder
	for _, r := range rs {
		s, ok := linesOf(text, starts, r.Start, r.End)
		if !ok {
			return false
		}
		want.WriteString(s)
	}
	return withoutElisions(partText) == want.String()
}

// posAt converts a byte offset of text into an LSP position.
func posAt(text string, off int) position {
	line := strings.Count(text[:off], "\n")
	ls := strings.LastIndexByte(text[:off], '\n') + 1
	return position{Line: line, Character: utf16Len(text[ls:off])}
}

// utf16Len is the length of s in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// usableText reports whether a file's text can be used by the harness as
// it is: valid UTF-8 (JSON carries nothing else) without "\r" (the
// server ends lines at "\r" too; the checks count "\n" only).
func usableText(b []byte) bool {
	return utf8.Valid(b) && !strings.ContainsRune(string(b), '\r') && !strings.ContainsRune(string(b), 0)
}
