package ranges

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Range is a 1-based, inclusive range of lines of one file. A Range with
// Start < 1 or End < Start is empty.
type Range struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Lines returns the number of lines in r (0 if r is empty).
func (r Range) Lines() int {
	if r.Empty() {
		return 0
	}
	return r.End - r.Start + 1
}

// Empty reports whether r holds no line.
func (r Range) Empty() bool { return r.Start < 1 || r.End < r.Start }

// Contains reports whether line is inside r.
func (r Range) Contains(line int) bool { return !r.Empty() && line >= r.Start && line <= r.End }

// String formats r as "12-40", or "12" for a single line.
func (r Range) String() string {
	if r.Start == r.End {
		return strconv.Itoa(r.Start)
	}
	return strconv.Itoa(r.Start) + "-" + strconv.Itoa(r.End)
}

// Compare orders ranges by (Start, End).
func Compare(a, b Range) int {
	if a.Start != b.Start {
		if a.Start < b.Start {
			return -1
		}
		return 1
	}
	if a.End != b.End {
		if a.End < b.End {
			return -1
		}
		return 1
	}
	return 0
}

// Normalize returns a new, sorted set of disjoint ranges covering the same
// lines as rs clamped to [1, lineCount]: ranges are sorted by (Start, End),
// overlapping and touching ranges (e.g. 1-3 and 4-6) are merged, duplicates
// coalesce, and empty or inverted ranges are dropped. A lineCount < 1 gives
// an empty result. The input is not modified.
func Normalize(rs []Range, lineCount int) []Range {
	if lineCount < 1 || len(rs) == 0 {
		return nil
	}
	out := make([]Range, 0, len(rs))
	for _, r := range rs {
		if r.Start < 1 {
			r.Start = 1
		}
		if r.End > lineCount {
			r.End = lineCount
		}
		if r.Empty() {
			continue
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil
	}
	slices.SortFunc(out, Compare)
	merged := out[:1]
	for _, r := range out[1:] {
		last := &merged[len(merged)-1]
		if r.Start <= last.End+1 { // overlapping or touching
			if r.End > last.End {
				last.End = r.End
			}
			continue
		}
		merged = append(merged, r)
	}
	return slices.Clip(merged)
}

// IsNormalized reports whether rs is sorted, disjoint, non-touching and has
// no empty range, as Normalize returns it.
func IsNormalized(rs []Range) bool {
	for i, r := range rs {
		if r.Empty() {
			return false
		}
		if i > 0 && r.Start <= rs[i-1].End+1 {
			return false
		}
	}
	return true
}

// GapCost returns the cost, in tokens, of including the lines of gap
// (1-based, inclusive) to join two ranges.
type GapCost func(gap Range) int

// Stitch joins consecutive ranges of a normalized set whose gap is at most
// maxGap lines and costs (per gapCost) fewer tokens than headerCost, the
// price of starting a second part. A nil gapCost counts every gap as free.
// The input must be normalized; the result is a new normalized slice.
func Stitch(rs []Range, maxGap int, headerCost int, gapCost GapCost) []Range {
	if len(rs) == 0 {
		return nil
	}
	out := make([]Range, 1, len(rs))
	out[0] = rs[0]
	for _, r := range rs[1:] {
		last := &out[len(out)-1]
		gap := Range{Start: last.End + 1, End: r.Start - 1}
		if g := gap.Lines(); g <= maxGap && (gapCost == nil || gapCost(gap) < headerCost) {
			last.End = r.End
			continue
		}
		out = append(out, r)
	}
	return out
}

// Total returns the number of lines in a normalized set.
func Total(rs []Range) int {
	n := 0
	for _, r := range rs {
		n += r.Lines()
	}
	return n
}

// Span returns the smallest range covering a normalized, non-empty set.
func Span(rs []Range) Range {
	if len(rs) == 0 {
		return Range{}
	}
	return Range{Start: rs[0].Start, End: rs[len(rs)-1].End}
}

// ContainsLine reports whether line is in the normalized set rs.
func ContainsLine(rs []Range, line int) bool {
	_, found := slices.BinarySearchFunc(rs, line, func(r Range, l int) int {
		switch {
		case r.End < l:
			return -1
		case r.Start > l:
			return 1
		}
		return 0
	})
	return found
}

// Intersect returns the lines in both normalized sets a and b.
func Intersect(a, b []Range) []Range {
	var out []Range
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		s := max(a[i].Start, b[j].Start)
		e := min(a[i].End, b[j].End)
		if s <= e {
			out = append(out, Range{s, e})
		}
		if a[i].End < b[j].End {
			i++
		} else {
			j++
		}
	}
	return out
}

// Subtract returns the lines of normalized set a that are not in normalized
// set b.
func Subtract(a, b []Range) []Range {
	var out []Range
	j := 0
	for _, r := range a {
		cur := r
		for j < len(b) && b[j].End < cur.Start {
			j++
		}
		k := j
		for k < len(b) && b[k].Start <= cur.End {
			if b[k].Start > cur.Start {
				out = append(out, Range{cur.Start, b[k].Start - 1})
			}
			cur.Start = b[k].End + 1
			if cur.Start > cur.End {
				break
			}
			k++
		}
		if cur.Start <= cur.End {
			out = append(out, cur)
		}
	}
	return out
}

// Union returns the normalized union of normalized sets a and b.
func Union(a, b []Range) []Range {
	if len(a) == 0 {
		return slices.Clone(b)
	}
	if len(b) == 0 {
		return slices.Clone(a)
	}
	all := make([]Range, 0, len(a)+len(b))
	all = append(all, a...)
	all = append(all, b...)
	return Normalize(all, max(Span(a).End, Span(b).End))
}

// Equal reports whether two sets hold the same ranges in the same order.
func Equal(a, b []Range) bool { return slices.Equal(a, b) }

// Format writes a set as "12-40,50,60-61".
func Format(rs []Range) string {
	var sb strings.Builder
	for i, r := range rs {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(r.String())
	}
	return sb.String()
}

// Parse reads a set written by Format ("12-40,50"). The result is not
// normalized.
func Parse(s string) ([]Range, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []Range
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		a, b, isRange := strings.Cut(f, "-")
		start, err := strconv.Atoi(a)
		if err != nil {
			return nil, fmt.Errorf("range %q: bad start line", f)
		}
		end := start
		if isRange {
			if end, err = strconv.Atoi(b); err != nil {
				return nil, fmt.Errorf("range %q: bad end line", f)
			}
		}
		out = append(out, Range{start, end})
	}
	return out, nil
}
