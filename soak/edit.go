package soak

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// contentChange is one change of a didChange: a range and its new text,
// or (Range nil) the whole new text.
type contentChange struct {
	Range *lspRange `json:"range,omitempty"`
	Text  string    `json:"text"`
}

// edit is one didChange a session sends: its changes, the text after
// them, and, for whole-line edits, a unified diff of it (for
// context/assemble by diff).
type edit struct {
	kind    string
	changes []contentChange
	text    string
	diff    string
	// marker is a name the edit added (a function, a comment word), ""
	// for none; removed is a marker line it took out.
	marker  string
	removed string
}

// editor makes the edits of one session: valid ones (a function or a
// comment added, a line removed), broken ones (a line that does not
// parse, a word replaced inside a line), several changes in one
// notification, and whole-text replacements.
type editor struct {
	rng     *rand.Rand
	session int
	n       int // edits made, for unique markers
}

// insertLines inserts lines (each ending in "\n") before the line of text
// starting at byte off (a line start), as one incremental change.
func (e *editor) insertLines(rel, text string, off int, lines string) (contentChange, string, string) {
	p := posAt(text, off)
	next := text[:off] + lines + text[off:]
	return contentChange{Range: &lspRange{Start: p, End: p}, Text: lines}, next, unifiedDiff(rel, text, p.Line, 0, lines)
}

// funcLineStarts are the offsets of the lines of text that start a
// top-level function: inserting before one keeps the file parsing.
func funcLineStarts(text string) []int {
	var out []int
	for _, s := range lineStarts(text) {
		if strings.HasPrefix(text[s:], "func ") {
			out = append(out, s)
		}
	}
	return out
}

// next makes the next edit of a buffer whose text is text; markers are
// the marker lines it holds (a removal takes one out).
func (e *editor) next(rel, text, disk string, markers []string) edit {
	e.n++
	id := fmt.Sprintf("S%dE%dZ", e.session, e.n)
	funcs := funcLineStarts(text)
	at := len(text)
	if len(funcs) > 0 {
		at = funcs[e.rng.IntN(len(funcs))]
	} else if at > 0 && !strings.HasSuffix(text, "\n") {
		at = strings.LastIndexByte(text, '\n') + 1
	}
	switch r := e.rng.IntN(100); {
	case r < 30: // a function, which parses
		name := "soak" + id
		line := fmt.Sprintf("func %s() int { return %d }\n\n", name, e.n)
		c, t, d := e.insertLines(rel, text, at, line)
		return edit{kind: "add-func", changes: []contentChange{c}, text: t, diff: d, marker: name}
	case r < 45: // a comment anywhere
		starts := lineStarts(text)
		off := 0
		if len(starts) > 0 {
			off = starts[e.rng.IntN(len(starts))]
		}
		name := "soakNote" + id
		c, t, d := e.insertLines(rel, text, off, "// "+name+" keeps the overlay honest\n")
		return edit{kind: "add-comment", changes: []contentChange{c}, text: t, diff: d, marker: name}
	case r < 57: // a line that does not parse
		name := "soakBroken" + id
		c, t, d := e.insertLines(rel, text, at, "func "+name+"( {\n")
		return edit{kind: "add-broken", changes: []contentChange{c}, text: t, diff: d, marker: name}
	case r < 72 && len(markers) > 0: // remove a marker line
		m := markers[e.rng.IntN(len(markers))]
		if ed, ok := removeLine(rel, text, m); ok {
			return ed
		}
		fallthrough
	case r < 84: // a word replaced inside a line (may break the syntax)
		return e.replaceInLine(text, id)
	case r < 94: // two changes in one notification, applied in order
		name := "soakPair" + id
		starts := lineStarts(text)
		off1 := 0
		if len(starts) > 0 {
			off1 = starts[e.rng.IntN(len(starts))]
		}
		c1, t1, _ := e.insertLines(rel, text, off1, "// "+name+"a first of two\n")
		starts = lineStarts(t1)
		off2 := starts[e.rng.IntN(len(starts))]
		c2, t2, _ := e.insertLines(rel, t1, off2, "// "+name+"b second of two\n")
		return edit{kind: "two-changes", changes: []contentChange{c1, c2}, text: t2, marker: name + "a"}
	default: // the whole text: the disk text and one function
		name := "soakFull" + id
		t := disk
		if t != "" && !strings.HasSuffix(t, "\n") {
			t += "\n"
		}
		t += fmt.Sprintf("\n// %s replaces the whole buffer.\nfunc %s() int { return %d }\n", name, name, e.n)
		return edit{kind: "full", changes: []contentChange{{Text: t}}, text: t, marker: name}
	}
}

// removeLine removes the line holding marker.
func removeLine(rel, text, marker string) (edit, bool) {
	i := strings.Index(text, marker)
	if i < 0 {
		return edit{}, false
	}
	start := strings.LastIndexByte(text[:i], '\n') + 1
	end := len(text)
	if j := strings.IndexByte(text[i:], '\n'); j >= 0 {
		end = i + j + 1
	}
	r := lspRange{Start: posAt(text, start), End: posAt(text, end)}
	next := text[:start] + text[end:]
	return edit{
		kind: "remove-line", changes: []contentChange{{Range: &r}}, text: next,
		diff: unifiedDiff(rel, text, r.Start.Line, 1, ""), removed: marker,
	}, true
}

// replaceInLine replaces a few characters inside a random line (UTF-16
// positions computed from the text, never splitting a character).
func (e *editor) replaceInLine(text, id string) edit {
	starts := lineStarts(text)
	if len(starts) == 0 {
		t := "soak" + id + "\n"
		return edit{kind: "replace", changes: []contentChange{{Text: t}}, text: t}
	}
	ls := starts[e.rng.IntN(len(starts))]
	le := strings.IndexByte(text[ls:], '\n')
	if le < 0 {
		le = len(text) - ls
	}
	line := text[ls : ls+le]
	var bounds []int // rune boundaries of the line
	for i := range line {
		bounds = append(bounds, i)
	}
	bounds = append(bounds, len(line))
	a := bounds[e.rng.IntN(len(bounds))]
	b := a
	for _, x := range bounds {
		if x > a && x <= a+8 && e.rng.IntN(2) == 0 {
			b = x
		}
	}
	ins := "soakWord" + id
	r := lspRange{Start: posAt(text, ls+a), End: posAt(text, ls+b)}
	next := text[:ls+a] + ins + text[ls+b:]
	return edit{kind: "replace", changes: []contentChange{{Range: &r, Text: ins}}, text: next, marker: ins}
}

// unifiedDiff is a one-hunk unified diff of text in which the del lines
// starting at 0-based line `line` are replaced by add (whole lines), with
// up to 3 lines of context.
func unifiedDiff(rel, text string, line, del int, add string) string {
	lines := strings.SplitAfter(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	line = min(line, len(lines))
	before := lines[max(0, line-3):line]
	removed := lines[line:min(len(lines), line+del)]
	after := lines[min(len(lines), line+del):min(len(lines), line+del+3)]
	var added []string
	if add != "" {
		added = strings.SplitAfter(strings.TrimSuffix(add, "\n"), "\n")
	}
	oldN := len(before) + len(removed) + len(after)
	newN := len(before) + len(added) + len(after)
	start := max(0, line-3) + 1
	var sb strings.Builder
	fmt.Fprintf(&sb, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n", rel, rel, rel, rel)
	fmt.Fprintf(&sb, "@@ -%d,%d +%d,%d @@\n", hunkStart(start, oldN), oldN, hunkStart(start, newN), newN)
	emit := func(prefix string, ls []string) {
		for _, l := range ls {
			sb.WriteString(prefix)
			sb.WriteString(strings.TrimSuffix(l, "\n"))
			sb.WriteString("\n")
		}
	}
	emit(" ", before)
	emit("-", removed)
	emit("+", added)
	emit(" ", after)
	return sb.String()
}

// hunkStart is a hunk's start line: 0 for an empty side, as diff writes.
func hunkStart(start, n int) int {
	if n == 0 {
		return start - 1
	}
	return start
}
