package retrieve

import (
	"strings"

	"github.com/ctxls/ctxls/internal/index/chunk"
)

// hitTerms are the lower-cased terms whose lines a trimmed part keeps.
func hitTerms(q Analyzed) []string {
	var out []string
	for _, t := range q.Terms() {
		if len(t) >= 3 {
			out = append(out, strings.ToLower(t))
		}
	}
	return out
}

// hitLines returns the lines of s's chunk that contain one of the terms r.hits
// was reset with (at most maxHitLines, the first ones), whatever their case.
func (r *run) hitLines(s *scored) []int {
	text, ok := r.files().Text(s.c.Path)
	if !ok {
		return nil
	}
	return r.hits.lines(text, s.c.StartLine, s.c.EndLine, s.c.StartByte)
}

// maxHitLines is how many hit lines a candidate carries at most.
const maxHitLines = 16

// hitScratch finds the lines of a chunk that hold a term. It is reset with
// a request's terms and keeps its buffers between the candidates.
type hitScratch struct {
	terms   []string
	byFirst [256][]string // the terms by their first byte
	lower   []byte        // a line, its ASCII letters lower-cased
}

// reset sets the terms (lower-case) the next calls of lines look for.
func (h *hitScratch) reset(terms []string) {
	h.terms = terms
	for i := range h.byFirst {
		h.byFirst[i] = h.byFirst[i][:0]
	}
	for _, t := range terms {
		if t != "" && strings.IndexByte(t, '\n') < 0 { // no line holds a line break
			h.byFirst[t[0]] = append(h.byFirst[t[0]], t)
		}
	}
}

// lines returns the chunk's lines — startLine to endLine of text, the first
// found from the line holding startByte when that is known, else by
// counting lines — that contain a term, at most maxHitLines, in order. A
// line with ASCII bytes only matches a term when its letters lower-cased
// contain it; any other line when strings.ToLower of it does. An ASCII
// line is read once, each byte against the terms that start with it, not
// once per term.
func (h *hitScratch) lines(text string, startLine, endLine, startByte int) []int {
	if len(h.terms) == 0 {
		return nil
	}
	var hits []int
	rest := fromLine(text, startLine, startByte)
	for l := startLine; l <= endLine && rest != "" && len(hits) < maxHitLines; l++ {
		var line string
		line, rest = nextLine(rest)
		if h.holds(line) {
			hits = append(hits, l)
		}
	}
	return hits
}

// fromLine returns text from the first byte of line startLine on ("" past
// its end): from the line holding startByte when that is known (> 0),
// else by counting lines.
func fromLine(text string, startLine, startByte int) string {
	rest, l := text, 1
	if b := startByte; b > 0 && b <= len(text) {
		rest = text[strings.LastIndexByte(text[:b], '\n')+1:]
		l = startLine
	}
	for ; l < startLine && rest != ""; l++ {
		i := strings.IndexByte(rest, '\n')
		if i < 0 {
			return ""
		}
		rest = rest[i+1:]
	}
	return rest
}

// nextLine splits rest's first line (without its line break) from the rest.
func nextLine(rest string) (line, after string) {
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		return rest[:i], rest[i+1:]
	}
	return rest, ""
}

// lineOfChunk is line n of text, read from c's start (n ≥ c.StartLine), ""
// past the text's end.
func lineOfChunk(text string, c chunk.Chunk, n int) string {
	rest := fromLine(text, c.StartLine, c.StartByte)
	for l := c.StartLine; l < n && rest != ""; l++ {
		_, rest = nextLine(rest)
	}
	line, _ := nextLine(rest)
	return line
}

// holds reports whether line holds a term: an ASCII line lower-cased
// letter by letter, any other folded by strings.ToLower.
func (h *hitScratch) holds(line string) bool {
	h.lower = h.lower[:0]
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		case c >= 0x80:
			folded := strings.ToLower(line)
			for _, t := range h.terms {
				if strings.Contains(folded, t) {
					return true
				}
			}
			return false
		}
		h.lower = append(h.lower, c)
	}
	for i, c := range h.lower {
		for _, t := range h.byFirst[c] {
			if len(t) <= len(h.lower)-i && string(h.lower[i:i+len(t)]) == t {
				return true
			}
		}
	}
	return false
}

// isASCII reports whether s has only ASCII bytes.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
