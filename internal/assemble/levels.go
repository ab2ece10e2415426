package assemble

import (
	"slices"
	"strconv"
	"strings"

	"github.com/ctxls/ctxls/internal/ranges"
)

// option is one way to show a candidate: a detail level and its lines.
type option struct {
	level Level
	rs    []ranges.Range
}

// elisionMarker is the line that stands for n elided lines in a part's text.
func elisionMarker(n int) string {
	if n == 1 {
		return "[... 1 line elided ...]\n"
	}
	return "[... " + strconv.Itoa(n) + " lines elided ...]\n"
}

// IsElisionMarker reports whether a line (without its newline) is an elision
// marker.
func IsElisionMarker(line string) bool {
	rest, ok := strings.CutPrefix(line, "[... ")
	if !ok {
		return false
	}
	num, rest, ok := strings.Cut(rest, " ")
	if !ok || (rest != "lines elided ...]" && rest != "line elided ...]") {
		return false
	}
	_, err := strconv.Atoi(num)
	return err == nil
}

// partText is the file's lines at rs, with an elision marker for every gap
// between ranges and between span's ends and the ranges.
func partText(f *fileText, rs []ranges.Range, span ranges.Range) string {
	var sb strings.Builder
	next := span.Start
	for _, r := range rs {
		if r.Start > next {
			sb.WriteString(elisionMarker(r.Start - next))
		}
		sb.WriteString(f.slice(r.Start, r.End))
		next = r.End + 1
	}
	if span.End >= next {
		sb.WriteString(elisionMarker(span.End - next + 1))
	}
	return sb.String()
}

// signatureOf is c's declaration lines within rs, or rs's first line.
func signatureOf(c *cand, rs []ranges.Range) ranges.Range {
	if !c.Signature.Empty() {
		if in := ranges.Intersect([]ranges.Range{c.Signature}, rs); len(in) > 0 {
			return in[0]
		}
	}
	return ranges.Range{Start: rs[0].Start, End: rs[0].Start}
}

// reducedOptions lists the reduced ways to show c's lines rs, richest first:
// trimmed around hit lines with shrinking context, then fewer hits, then the
// skeleton (doc comment + signature), then (if withReference) the
// declaration line alone. Options that show as much as rs, or the same lines
// as the previous option, are left out.
func reducedOptions(c *cand, rs []ranges.Range, hitContext int, withReference bool) []option {
	span := ranges.Span(rs)
	total := ranges.Total(rs)
	sig := signatureOf(c, rs)
	var hits []int
	for _, h := range c.Hits {
		if ranges.ContainsLine(rs, h) && !sig.Contains(h) {
			hits = append(hits, h)
		}
	}
	if len(hits) == 0 && sig.End < span.End {
		hits = []int{sig.End + 1} // no hit: keep the head of the body
	}
	var out []option
	add := func(level Level, keep []ranges.Range) {
		// A one-line gap costs a marker line at least as long as the line.
		keep = ranges.Intersect(ranges.Stitch(ranges.Normalize(keep, span.End), 1, 1, nil), rs)
		if len(keep) == 0 || ranges.Total(keep) >= total {
			return
		}
		if c.Reserve != "" && len(c.Hits) > 0 && !slices.ContainsFunc(c.Hits, func(h int) bool { return ranges.ContainsLine(keep, h) }) {
			// A reserved part (the cursor's, a changed unit) is about its
			// hit lines: without them it says nothing.
			return
		}
		if n := len(out); n > 0 && ranges.Equal(out[n-1].rs, keep) {
			return
		}
		out = append(out, option{level, keep})
	}
	trimmed := func(hs []int, ctx int) []ranges.Range {
		keep := []ranges.Range{c.Doc, sig, {Start: span.End, End: span.End}}
		for _, h := range hs {
			keep = append(keep, ranges.Range{Start: h - ctx, End: h + ctx})
		}
		return keep
	}
	if len(hits) > 0 {
		for ctx := hitContext; ; ctx /= 2 {
			add(LevelTrimmed, trimmed(hits, ctx))
			if ctx == 0 {
				break
			}
		}
		for k := len(hits) / 2; k >= 1; k /= 2 {
			add(LevelTrimmed, trimmed(hits[:k], 0))
		}
		if c.Reserve != "" {
			// A reserved part (the cursor's) is about its hit lines: when
			// a long declaration does not fit beside them, they go alone.
			add(LevelTrimmed, []ranges.Range{{Start: hits[0] - hitContext/2, End: hits[len(hits)-1] + hitContext/2}})
			add(LevelTrimmed, []ranges.Range{{Start: hits[0], End: hits[len(hits)-1]}})
		}
	}
	skeleton := []ranges.Range{sig}
	if !c.Doc.Empty() {
		skeleton = append(skeleton, c.Doc)
	}
	add(LevelSkeleton, skeleton)
	if withReference {
		add(LevelReference, []ranges.Range{{Start: sig.Start, End: sig.Start}})
	}
	return slices.Clip(out)
}
