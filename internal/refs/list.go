package refs

import (
	"fmt"
	"strings"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/ranges"
)

// MaxOmittedListed bounds the left-out entries a listing names (the best
// of them, with handles); OmittedTotal counts them all.
const MaxOmittedListed = 40

// Omitted is an entry a budget left out: the unit to read it in.
type Omitted struct {
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Symbol string `json:"symbol,omitempty"`
	Kind   string `json:"kind"`
	Handle string `json:"handle" jsonschema:"pass to expand_context to read the enclosing unit"`
}

// Listing is a list cut to a token budget: a text of one line per entry,
// the entries it holds and the best of those it left out.
type Listing struct {
	Text         string
	Tokens       int
	Listed       int // how many entries the text holds (the first Listed)
	Omitted      []Omitted
	OmittedTotal int
}

// entry is one line of a listing and what to hand out when it is left
// out.
type entry struct {
	line    string
	omitted Omitted
}

// maxBytesPerToken bounds, for the try of list's one whole count, how
// many bytes a token of a listing's text holds on average: a text longer
// than this many bytes per token of the budget is not counted whole first
// (it will not fit), but line by line up to the budget.
const maxBytesPerToken = 16

// list renders head and entries, one line each, within maxTokens counted
// by count (maxTokens <= 0: no limit). Lines are added whole, in order,
// while they fit; the rest are omitted. Every line ends with a newline and
// starts with a character other than a space, so the text's count is the
// sum of its lines' (tokens.Counter's additivity). When the whole listing
// may fit, it is counted once, whole: the usual answer, and a long one,
// costs one pass of the counter. Otherwise lines are counted one by one up
// to the budget, the text they make is counted once more and lines are
// dropped from the end should it be over. Either way Tokens is the count
// of the text returned, never over maxTokens.
func list(head string, entries []entry, maxTokens int, count func(string) int) Listing {
	var out Listing
	size := len(head)
	for _, e := range entries {
		size += len(e.line)
	}
	if maxTokens <= 0 || size <= maxBytesPerToken*maxTokens {
		var b strings.Builder
		b.Grow(size)
		b.WriteString(head)
		for _, e := range entries {
			b.WriteString(e.line)
		}
		text := b.String()
		n := 0
		if count != nil {
			n = count(text)
		}
		if maxTokens <= 0 || n <= maxTokens {
			out.Text, out.Tokens, out.Listed = text, n, len(entries)
			return out
		}
	}
	used := 0
	fits := func(l string) bool {
		n := count(l)
		if used+n > maxTokens {
			return false
		}
		used += n
		return true
	}
	if !fits(head) {
		for _, e := range entries {
			out.omit(e.omitted)
		}
		return out
	}
	for i, e := range entries {
		if !fits(e.line) {
			for _, r := range entries[i:] {
				out.omit(r.omitted)
			}
			break
		}
		out.Listed++
	}
	render := func() string {
		var b strings.Builder
		b.WriteString(head)
		for _, e := range entries[:out.Listed] {
			b.WriteString(e.line)
		}
		return b.String()
	}
	text := render()
	n := count(text)
	for n > maxTokens && out.Listed > 0 {
		out.Listed--
		out.OmittedTotal++
		text = render()
		n = count(text)
	}
	out.Text, out.Tokens = text, n
	return out
}

func (l *Listing) omit(o Omitted) {
	l.OmittedTotal++
	if len(l.Omitted) < MaxOmittedListed {
		l.Omitted = append(l.Omitted, o)
	}
}

// handle is the handle of a site's enclosing unit (its line when none).
func handle(p string, line, start, end int) string {
	if start == 0 {
		start, end = line, line
	}
	return assemble.Handle(p, []ranges.Range{{Start: start, End: end}})
}

// List renders r's sites within maxTokens (see list): a head line naming
// the target, then "path:line:column kind in Symbol" per site. Names are
// escaped onto their line (assemble.InlineText).
func (r *Result) List(maxTokens int, count func(string) int) Listing {
	how := "by types"
	if !r.Exact {
		how = "by name"
	}
	t := r.Target
	head := fmt.Sprintf("References to %s (%s at %s:%d): %d, %s\n", assemble.InlineText(t.Name), t.Kind, assemble.InlineText(t.Path), t.Line, len(r.Sites), how)
	entries := make([]entry, len(r.Sites))
	for i, s := range r.Sites {
		l := fmt.Sprintf("%s:%d:%d %s", s.Path, s.Line, s.Column, s.Kind)
		if s.Symbol != "" {
			l += " in " + s.Symbol
		}
		if !s.Exact {
			l += " (by name)"
		}
		entries[i] = entry{line: assemble.InlineText(l) + "\n",
			omitted: Omitted{Path: s.Path, Line: s.Line, Symbol: s.Symbol, Kind: s.Kind, Handle: handle(s.Path, s.Line, s.UnitStart, s.UnitEnd)}}
	}
	return list(head, entries, maxTokens, count)
}

// Handle is the handle of the site's enclosing unit.
func (s Site) Handle() string { return handle(s.Path, s.Line, s.UnitStart, s.UnitEnd) }
