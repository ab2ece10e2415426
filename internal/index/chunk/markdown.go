package chunk

import (
	"bytes"
	"strings"
)

// heading is one Markdown heading: ATX ("## Title") or setext (a line
// underlined with === or ---).
type heading struct {
	line, endLine int // first and last line of the heading
	level         int
	text          string
}

// markdown cuts a Markdown file into one KindSection chunk per heading,
// from the heading to the line before the next heading of any level, plus
// a section without Symbol for text before the first heading. Headings in
// fenced code blocks and in front matter do not count. Sections longer than
// MaxLines are cut into windows (Part 1, 2, …).
func (c *Chunker) markdown(src []byte) []Chunk {
	li := &c.li
	hs := c.headings()
	var out []Chunk
	section := func(first, last int, h *heading, qual string) {
		s, e := trimRange(src, li.start(first), li.end(last))
		if e <= s {
			return
		}
		base := Chunk{Kind: KindSection, QualifiedName: qual}
		if h != nil {
			base.Symbol = h.text
			var sig []string
			for l := h.line; l <= h.endLine; l++ {
				sig = append(sig, string(bytes.TrimSpace(li.text(l))))
			}
			base.Signature = cleanString([]byte(strings.Join(sig, "\n")))
			base.SigEndLine = h.endLine
		}
		if li.span(s, e) <= c.opts.MaxLines {
			ch := base
			ch.StartByte, ch.EndByte = s, e
			out = append(out, ch)
			return
		}
		for i, w := range windowRanges(li, c.opts, s, e) {
			ch := base
			ch.StartByte, ch.EndByte, ch.Part = w.start, w.end, i+1
			if i > 0 {
				ch.SigEndLine = 0
			}
			out = append(out, ch)
		}
	}

	firstHeading := li.count() + 1
	if len(hs) > 0 {
		firstHeading = hs[0].line
	}
	if firstHeading > 1 {
		section(1, firstHeading-1, nil, "")
	}
	var stack []heading
	for i := range hs {
		h := &hs[i]
		for len(stack) > 0 && stack[len(stack)-1].level >= h.level {
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, *h)
		names := make([]string, len(stack))
		for j, s := range stack {
			names[j] = s.text
		}
		last := li.count()
		if i+1 < len(hs) {
			last = hs[i+1].line - 1
		}
		section(h.line, last, h, strings.Join(names, " > "))
	}
	return out
}

// headings finds the headings of the Markdown file in c.li.
func (c *Chunker) headings() []heading {
	li := &c.li
	n := li.count()
	start := 1
	// YAML front matter: "---" on the first line up to the next "---"/"...".
	if n > 1 && string(bytes.TrimRight(li.text(1), " \t")) == "---" {
		for l := 2; l <= n; l++ {
			if t := string(bytes.TrimRight(li.text(l), " \t")); t == "---" || t == "..." {
				start = l + 1
				break
			}
		}
	}
	var hs []heading
	var fence byte
	fenceLen := 0
	prevPara := false // the previous line is paragraph text (a setext candidate)
	for l := start; l <= n; l++ {
		t := li.text(l)
		ind := 0
		for ind < len(t) && t[ind] == ' ' {
			ind++
		}
		s := t[ind:]
		if fence != 0 {
			if ind <= 3 && runOf(s, fence) >= fenceLen && blank(s[runOf(s, fence):]) {
				fence = 0
			}
			prevPara = false
			continue
		}
		if ind <= 3 && (bytes.HasPrefix(s, []byte("```")) || bytes.HasPrefix(s, []byte("~~~"))) {
			fence, fenceLen = s[0], runOf(s, s[0])
			prevPara = false
			continue
		}
		if blank(s) || ind > 3 {
			prevPara = prevPara && !blank(s)
			continue
		}
		if level, txt, ok := atxHeading(s); ok {
			hs = append(hs, heading{line: l, endLine: l, level: level, text: txt})
			prevPara = false
			continue
		}
		if prevPara {
			if u := setextLevel(s); u > 0 {
				hs = append(hs, heading{line: l - 1, endLine: l, level: u, text: cleanString(li.text(l - 1))})
				prevPara = false
				continue
			}
		}
		prevPara = !isListOrQuote(s)
	}
	return hs
}

// runOf counts the leading bytes of s equal to b.
func runOf(s []byte, b byte) int {
	i := 0
	for i < len(s) && s[i] == b {
		i++
	}
	return i
}

// atxHeading parses "## Title ##" (indentation already removed).
func atxHeading(s []byte) (int, string, bool) {
	level := runOf(s, '#')
	if level < 1 || level > 6 {
		return 0, "", false
	}
	rest := s[level:]
	if len(rest) > 0 && rest[0] != ' ' && rest[0] != '\t' {
		return 0, "", false
	}
	rest = bytes.TrimSpace(rest)
	// An optional closing sequence of #s preceded by a space.
	if i := len(rest) - 1; i >= 0 && rest[i] == '#' {
		j := i
		for j >= 0 && rest[j] == '#' {
			j--
		}
		if j < 0 {
			rest = nil
		} else if rest[j] == ' ' || rest[j] == '\t' {
			rest = bytes.TrimSpace(rest[:j])
		}
	}
	return level, cleanString(rest), true
}

// setextLevel returns 1 for a "===" underline, 2 for "---", else 0.
func setextLevel(s []byte) int {
	s = bytes.TrimRight(s, " \t")
	if len(s) == 0 {
		return 0
	}
	if r := runOf(s, '='); r == len(s) {
		return 1
	}
	if r := runOf(s, '-'); r == len(s) {
		return 2
	}
	return 0
}

// isListOrQuote reports a list item or block quote line, which cannot be
// the text of a setext heading.
func isListOrQuote(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	switch s[0] {
	case '>', '|':
		return true
	case '-', '*', '+':
		return len(s) == 1 || s[1] == ' ' || s[1] == '\t'
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i > 0 && i < len(s) && (s[i] == '.' || s[i] == ')')
}
