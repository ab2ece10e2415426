package lsp

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/internal/retrieve"
)

// maxEdits is how many edited ranges a session remembers.
const maxEdits = 32

// activity is what the user did in this session: when each open buffer
// was last opened or changed, and the ranges edited, oldest first. Guarded
// by the session's mutex.
type activity struct {
	seq     uint64
	touched map[string]uint64 // absolute path → seq of its last open or change
	edits   []editRec
}

type editRec struct {
	path       string // absolute
	start, end int    // 1-based inclusive lines of the text after the edit
	seq        uint64
}

// touch records that path was opened or changed.
func (a *activity) touch(path string) {
	if a.touched == nil {
		a.touched = map[string]uint64{}
	}
	a.seq++
	a.touched[path] = a.seq
}

// closed forgets an open buffer (its edits stay: they were this session's).
func (a *activity) closed(path string) { delete(a.touched, path) }

// edited records the lines of path that differ between old and text (one
// range: from the first changed line to the last). An edit next to or
// over the last one of the same file extends it: typing is one edit.
func (a *activity) edited(path, old, text string) {
	start, end, ok := changedLines(old, text)
	if !ok {
		return
	}
	a.touch(path)
	if n := len(a.edits); n > 0 {
		last := &a.edits[n-1]
		if last.path == path && start <= last.end+1 && end >= last.start-1 {
			last.start, last.end, last.seq = min(last.start, start), max(last.end, end), a.seq
			return
		}
	}
	a.edits = append(a.edits, editRec{path, start, end, a.seq})
	if len(a.edits) > maxEdits {
		a.edits = slices.Delete(a.edits, 0, len(a.edits)-maxEdits)
	}
}

// changedLines returns the 1-based lines of text that differ from old
// (the common leading and trailing bytes left out); a deletion gives the
// line where it happened. ok is false when nothing changed. It runs on
// every didChange, so it compares bytes in place rather than split lines.
func changedLines(old, text string) (start, end int, ok bool) {
	if old == text {
		return 0, 0, false
	}
	p := 0
	for p < len(old) && p < len(text) && old[p] == text[p] {
		p++
	}
	s := 0
	for s < len(old)-p && s < len(text)-p && old[len(old)-1-s] == text[len(text)-1-s] {
		s++
	}
	start = strings.Count(text[:p], "\n") + 1
	end = start
	if last := len(text) - s - 1; last >= p { // text[p:last+1] is new
		end = strings.Count(text[:last], "\n") + 1
	}
	return start, end, true
}

// snapshot returns the activity inside a folder: rel maps an absolute
// path to the folder's relative one (false: outside it). Open buffers and
// edits are most recent first.
func (a *activity) snapshot(rel func(abs string) (string, bool)) *retrieve.Activity {
	out := &retrieve.Activity{}
	type opened struct {
		path string
		seq  uint64
	}
	var open []opened
	for p, seq := range a.touched {
		if r, ok := rel(p); ok {
			open = append(open, opened{r, seq})
		}
	}
	slices.SortFunc(open, func(x, y opened) int { return cmp.Compare(y.seq, x.seq) })
	for _, o := range open {
		out.Open = append(out.Open, o.path)
	}
	for i := len(a.edits) - 1; i >= 0; i-- {
		e := a.edits[i]
		if r, ok := rel(e.path); ok {
			out.Edits = append(out.Edits, retrieve.Edit{Path: r, Start: e.start, End: e.end})
		}
	}
	return out
}

// clone copies the activity for a request.
func (a *activity) clone() *activity {
	return &activity{seq: a.seq, touched: maps.Clone(a.touched), edits: slices.Clone(a.edits)}
}
