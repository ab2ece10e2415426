package chunk

import "sort"

// lineIndex maps byte offsets of one file to 1-based line numbers.
type lineIndex struct {
	src    []byte
	starts []int // starts[i] is the byte offset where line i+1 begins
}

// reset rebuilds the index for src, reusing the backing array.
func (li *lineIndex) reset(src []byte) {
	li.src = src
	li.starts = append(li.starts[:0], 0)
	for i, b := range src {
		if b == '\n' && i+1 < len(src) {
			li.starts = append(li.starts, i+1)
		}
	}
}

// count is the number of lines in the file (a trailing newline does not
// start a new line).
func (li *lineIndex) count() int { return len(li.starts) }

// lineOf returns the 1-based line holding byte offset b.
func (li *lineIndex) lineOf(b int) int {
	return sort.SearchInts(li.starts, b+1)
}

// lastLine returns the line of the last byte of the half-open range
// [start, end); for an empty range, the line of start.
func (li *lineIndex) lastLine(start, end int) int {
	if end > start {
		return li.lineOf(end - 1)
	}
	return li.lineOf(start)
}

// span returns the number of lines the half-open byte range touches.
func (li *lineIndex) span(start, end int) int {
	return li.lastLine(start, end) - li.lineOf(start) + 1
}

// start returns the byte offset where 1-based line l begins.
func (li *lineIndex) start(l int) int {
	if l < 1 {
		return 0
	}
	if l > len(li.starts) {
		return len(li.src)
	}
	return li.starts[l-1]
}

// end returns the byte offset just past the content of 1-based line l,
// excluding its newline (and a carriage return before it).
func (li *lineIndex) end(l int) int {
	s := li.start(l)
	e := len(li.src)
	if l >= 1 && l < len(li.starts) {
		e = li.starts[l] - 1 // the '\n'
	} else if e > s && li.src[e-1] == '\n' {
		e--
	}
	if e > s && li.src[e-1] == '\r' {
		e--
	}
	return e
}

// text returns the bytes of 1-based line l without its line terminator.
func (li *lineIndex) text(l int) []byte {
	s, e := li.start(l), li.end(l)
	if e < s {
		return nil
	}
	return li.src[s:e]
}

// isSpace reports whether b is ASCII white space.
func isSpace(b byte) bool {
	switch b {
	case ' ', '\t', '\n', '\r', '\v', '\f':
		return true
	}
	return false
}

// trimRange shrinks [start, end) so that it neither begins nor ends with
// white space. An all-space range collapses to (start, start).
func trimRange(src []byte, start, end int) (int, int) {
	for start < end && isSpace(src[start]) {
		start++
	}
	for end > start && isSpace(src[end-1]) {
		end--
	}
	return start, end
}

// blank reports whether b holds only white space.
func blank(b []byte) bool {
	for _, c := range b {
		if !isSpace(c) {
			return false
		}
	}
	return true
}
