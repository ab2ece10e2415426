package lsp

import (
	"fmt"
)

// applyChanges returns text with the changes of one didChange applied in
// order: a change without a range replaces the whole text; one with a range
// replaces that range, whose positions count UTF-16 code units.
func applyChanges(text string, changes []TextDocumentContentChangeEvent) (string, error) {
	for i, c := range changes {
		if c.Range == nil {
			text = c.Text
			continue
		}
		start, err := byteOffset(text, c.Range.Start)
		if err != nil {
			return "", fmt.Errorf("contentChanges[%d].range.start: %w", i, err)
		}
		end, err := byteOffset(text, c.Range.End)
		if err != nil {
			return "", fmt.Errorf("contentChanges[%d].range.end: %w", i, err)
		}
		if end < start {
			return "", fmt.Errorf("contentChanges[%d].range: end %d:%d is before start %d:%d",
				i, c.Range.End.Line, c.Range.End.Character, c.Range.Start.Line, c.Range.Start.Character)
		}
		text = text[:start] + c.Text + text[end:]
	}
	return text, nil
}

// byteOffset converts an LSP position (0-based line, UTF-16 character) into
// a byte offset in text. Lines end at "\n", "\r\n" or "\r". As the protocol
// asks, a character past the end of its line means the end of the line, and
// a line past the last one means the end of the text. A character inside a
// surrogate pair means the start of that character. Negative values are
// errors.
func byteOffset(text string, pos Position) (int, error) {
	if pos.Line < 0 || pos.Character < 0 {
		return 0, fmt.Errorf("negative position %d:%d", pos.Line, pos.Character)
	}
	start, ok := lineStart(text, pos.Line)
	if !ok {
		return len(text), nil
	}
	return start + lineColumn(text, start, pos.Character), nil
}

// lineColumn returns the byte offset, from start, of UTF-16 character
// character of the line of text that starts at start (clamped to the line;
// never splitting a character).
func lineColumn(text string, start, character int) int {
	return utf16ToBytes(text[start:lineContentEnd(text, start)], character)
}

// lineStart returns the byte offset where 0-based line n starts, or false
// when the text has fewer lines.
func lineStart(text string, n int) (int, bool) {
	off := 0
	for line := 0; line < n; line++ {
		i := off
		for i < len(text) && text[i] != '\n' && text[i] != '\r' {
			i++
		}
		if i == len(text) {
			return 0, false
		}
		if text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			i++
		}
		off = i + 1
	}
	return off, true
}

// lineContentEnd returns the offset of the line terminator (or the end of
// the text) of the line that starts at start.
func lineContentEnd(text string, start int) int {
	i := start
	for i < len(text) && text[i] != '\n' && text[i] != '\r' {
		i++
	}
	return i
}

// utf16ToBytes returns the byte length of the first units UTF-16 code units
// of line (clamped to the line; never splitting a character).
func utf16ToBytes(line string, units int) int {
	n := 0
	for i, r := range line {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if n+w > units {
			return i
		}
		n += w
	}
	return len(line)
}

// lineCount is the number of lines of text as the protocol counts them (an
// empty text has one empty line; a final terminator starts an empty line).
func lineCount(text string) int {
	n := 1
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			n++
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			n++
		}
	}
	return n
}
