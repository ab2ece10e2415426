package analysis

import (
	"bytes"
	"hash/maphash"
)

// Visit calls emit for each term of input in order: lowercased, with the
// byte offsets of the text they come from. Terms share one buffer allocated by Visit, valid after it returns;
// emit must not modify them.
func Visit(input []byte, emit func(term []byte, start, end int, numeric bool)) {
	VisitBuf(input, nil, emit)
}

// VisitBuf is Visit with the terms' buffer given: buf's memory is used
// when it can hold len(input) bytes (else a new buffer is allocated), and
// the buffer is returned for the next call. The terms are valid until buf
// is used again. For a caller analyzing many texts in a row.
func VisitBuf(input, buf []byte, emit func(term []byte, start, end int, numeric bool)) []byte {
	if cap(buf) < len(input) {
		buf = make([]byte, 0, len(input))
	}
	buf = buf[:0]
	var parts []span
	for i := 0; i < len(input); {
		c := input[i]
		if isDigit(c) {
			j := i + 1
			for j < len(input) && isDigit(input[j]) {
				j++
			}
			if j-i > 1 {
				from := len(buf)
				buf = append(buf, input[i:j]...)
				emit(buf[from:len(buf):len(buf)], i, j, true)
			}
			i = j
			continue
		}
		if !isLetter(c) && c != '_' {
			i++
			continue
		}
		j := i + 1
		for j < len(input) && isIdent(input[j]) {
			j++
		}
		orig := input[i:j]
		from := len(buf)
		for _, b := range orig {
			buf = append(buf, lower(b))
		}
		low := buf[from:len(buf):len(buf)]
		if len(low) > 1 {
			emit(low, i, j, false)
		}
		parts = splitSpans(orig, parts[:0])
		if !(len(parts) == 1 && parts[0].start == 0 && parts[0].end == len(orig)) {
			for _, p := range parts {
				if p.end-p.start >= 2 {
					emit(low[p.start:p.end:p.end], i+p.start, i+p.end, false)
				}
			}
		}
		i = j
	}
	return buf
}

// Counter counts the terms of texts, reusing its buffers from one text
// to the next. Not safe for concurrent use; the zero Counter is ready.
type Counter struct {
	buf   []byte
	seed  maphash.Seed
	slots []int32 // open addressing: 1 + index into ents, 0 for empty
	ents  []counted
}

type counted struct {
	term  []byte
	hash  uint64
	count uint32
	slot  int32
}

// Count analyzes the texts like Visit, as if joined by a separator (no
// term spans two of them), and calls emit once for each distinct term, in
// the order of first occurrence, with its number of occurrences; it
// returns the number of terms (the texts' length in terms). The terms are
// valid until the next Count.
func (c *Counter) Count(emit func(term []byte, freq uint32), inputs ...[]byte) int {
	if c.slots == nil {
		c.seed = maphash.MakeSeed()
		c.slots = make([]int32, 256)
	}
	c.ents = c.ents[:0]
	total := 0
	for _, in := range inputs {
		total += len(in)
	}
	if cap(c.buf) < total {
		c.buf = make([]byte, 0, total)
	}
	// Each text's terms go after the previous ones' in buf: the counted
	// terms alias it.
	n, off := 0, 0
	for _, in := range inputs {
		used := VisitBuf(in, c.buf[off:off:cap(c.buf)], func(term []byte, _, _ int, _ bool) {
			n++
			c.add(term)
		})
		off += len(used)
	}
	for _, e := range c.ents {
		emit(e.term, e.count)
	}
	for _, e := range c.ents {
		c.slots[e.slot] = 0
	}
	return n
}

// add counts one occurrence of term.
func (c *Counter) add(term []byte) {
	h := maphash.Bytes(c.seed, term)
	mask := uint64(len(c.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := c.slots[i]
		if s == 0 {
			c.ents = append(c.ents, counted{term: term, hash: h, count: 1, slot: int32(i)})
			c.slots[i] = int32(len(c.ents))
			if 2*len(c.ents) > len(c.slots) {
				c.grow()
			}
			return
		}
		if e := &c.ents[s-1]; e.hash == h && bytes.Equal(e.term, term) {
			e.count++
			return
		}
	}
}

// grow doubles the table and places every term again.
func (c *Counter) grow() {
	c.slots = make([]int32, 2*len(c.slots))
	mask := uint64(len(c.slots) - 1)
	for k := range c.ents {
		e := &c.ents[k]
		i := e.hash & mask
		for c.slots[i] != 0 {
			i = (i + 1) & mask
		}
		c.slots[i] = int32(k + 1)
		e.slot = int32(i)
	}
}

// Terms returns the distinct terms the analyzer produces for text, in order
// of first occurrence. It is what a query must be made of to match the index.
func Terms(text string) []string {
	seen := map[string]struct{}{}
	var rv []string
	Visit([]byte(text), func(term []byte, _, _ int, _ bool) {
		if _, ok := seen[string(term)]; ok {
			return
		}
		s := string(term)
		seen[s] = struct{}{}
		rv = append(rv, s)
	})
	return rv
}

// Split returns the lowercased parts of one identifier, in order, including
// parts of one byte; for an identifier of one part it returns that part.
// It does not include the whole identifier (unless it is its only part).
//
//	Split("parseHTTPRequest")  = [parse http request]
//	Split("ParseHTTP2Request") = [parse http2 request]
//	Split("__init__")          = [init]
func Split(ident string) []string {
	parts := splitSpans([]byte(ident), nil)
	rv := make([]string, len(parts))
	for i, p := range parts {
		b := []byte(ident[p.start:p.end])
		for j, c := range b {
			b[j] = lower(c)
		}
		rv[i] = string(b)
	}
	return rv
}

// IsIdentifier reports whether s is a single token of the tokenizer that
// starts with a letter or underscore.
func IsIdentifier(s string) bool {
	if s == "" || isDigit(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdent(s[i]) {
			return false
		}
	}
	return true
}

type span struct{ start, end int }

// splitSpans appends to dst the parts of identifier s: underscores
// separate; a part starts at an upper-case letter that follows a lower-case
// letter or a digit (parseHTTP, HTTP2Request), and at the last upper-case
// letter of a run that is followed by a lower-case one (HTTPRequest). Digits
// never start a part, except after an underscore (x86_64 → x86 64).
func splitSpans(s []byte, dst []span) []span {
	start := -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' {
			if start >= 0 {
				dst = append(dst, span{start, i})
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		if isUpper(c) {
			p := s[i-1]
			boundary := isLower(p) || isDigit(p) ||
				(isUpper(p) && i+1 < len(s) && isLower(s[i+1]))
			if boundary {
				dst = append(dst, span{start, i})
				start = i
			}
		}
	}
	if start >= 0 {
		dst = append(dst, span{start, len(s)})
	}
	return dst
}

func isLetter(c byte) bool { return isUpper(c) || isLower(c) }
func isUpper(c byte) bool  { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool  { return 'a' <= c && c <= 'z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isIdent(c byte) bool  { return isLetter(c) || isDigit(c) || c == '_' }

func lower(c byte) byte {
	if isUpper(c) {
		return c + ('a' - 'A')
	}
	return c
}
