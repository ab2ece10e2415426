package lsp

import (
	"fmt"

	"github.com/ctxls/ctxls/internal/textpos"
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
	start, ok := textpos.LineStart(text, pos.Line)
	if !ok {
		return len(text), nil
	}
	return start + textpos.LineColumn(text, start, pos.Character), nil
}
