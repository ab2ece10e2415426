package textpos

// LineColumn returns the byte offset, from start, of UTF-16 character
// character of the line of text that starts at start (clamped to the line;
// never splitting a character).
func LineColumn(text string, start, character int) int {
	return utf16ToBytes(text[start:lineContentEnd(text, start)], character)
}

// LineStart returns the byte offset where 0-based line n starts, or false
// when the text has fewer lines.
func LineStart(text string, n int) (int, bool) {
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

// LineCount is the number of lines of text as the protocol counts them (an
// empty text has one empty line; a final terminator starts an empty line).
func LineCount(text string) int {
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
