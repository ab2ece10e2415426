package ranges

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func rs(pairs ...int) []Range {
	var out []Range
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, Range{pairs[i], pairs[i+1]})
	}
	return out
}

func TestNormalize(t *testing.T) {
	cases := []struct {
		name  string
		in    []Range
		lines int
		want  []Range
	}{
		{"empty", nil, 10, nil},
		{"sorts", rs(5, 6, 1, 2), 10, rs(1, 2, 5, 6)},
		{"merges overlapping", rs(1, 5, 3, 8), 10, rs(1, 8)},
		{"merges touching", rs(1, 3, 4, 6), 10, rs(1, 6)},
		{"keeps a one-line gap", rs(1, 3, 5, 6), 10, rs(1, 3, 5, 6)},
		{"coalesces duplicates", rs(2, 4, 2, 4, 2, 4), 10, rs(2, 4)},
		{"contained", rs(1, 10, 3, 4), 10, rs(1, 10)},
		{"clamps past EOF", rs(8, 20), 10, rs(8, 10)},
		{"drops past EOF", rs(11, 20), 10, nil},
		{"clamps below 1", rs(-5, 2), 10, rs(1, 2)},
		{"drops inverted", rs(5, 3, 1, 1), 10, rs(1, 1)},
		{"drops zero", rs(0, 0), 10, nil},
		{"empty file", rs(1, 3), 0, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := slices.Clone(c.in)
			got := Normalize(c.in, c.lines)
			if !slices.Equal(got, c.want) {
				t.Fatalf("Normalize(%v, %d) = %v, want %v", c.in, c.lines, got, c.want)
			}
			if !slices.Equal(in, c.in) {
				t.Fatalf("input modified: %v", c.in)
			}
		})
	}
}

func TestStitch(t *testing.T) {
	free := func(Range) int { return 0 }
	perLine := func(g Range) int { return 4 * g.Lines() }
	cases := []struct {
		name   string
		in     []Range
		maxGap int
		header int
		cost   GapCost
		want   []Range
	}{
		{"joins small gap", rs(1, 3, 6, 8), 3, 10, free, rs(1, 8)},
		{"keeps gap over max", rs(1, 3, 8, 9), 3, 10, free, rs(1, 3, 8, 9)},
		{"gap of exactly max", rs(1, 3, 7, 9), 3, 10, free, rs(1, 9)},
		{"gap dearer than header", rs(1, 3, 6, 8), 3, 8, perLine, rs(1, 3, 6, 8)},
		{"gap cheaper than header", rs(1, 3, 5, 8), 3, 8, perLine, rs(1, 8)},
		{"gap cost equal to header is not joined", rs(1, 3, 6, 8), 3, 8, func(Range) int { return 8 }, rs(1, 3, 6, 8)},
		{"chains", rs(1, 1, 3, 3, 5, 5, 20, 21), 1, 5, nil, rs(1, 5, 20, 21)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Stitch(c.in, c.maxGap, c.header, c.cost)
			if !slices.Equal(got, c.want) {
				t.Fatalf("Stitch(%v) = %v, want %v", c.in, got, c.want)
			}
		})
	}
}

func TestSetOps(t *testing.T) {
	a := rs(1, 10, 20, 30)
	b := rs(5, 22, 28, 40)
	if got, want := Intersect(a, b), rs(5, 10, 20, 22, 28, 30); !slices.Equal(got, want) {
		t.Errorf("Intersect = %v, want %v", got, want)
	}
	if got, want := Subtract(a, b), rs(1, 4, 23, 27); !slices.Equal(got, want) {
		t.Errorf("Subtract = %v, want %v", got, want)
	}
	if got, want := Subtract(b, a), rs(11, 19, 31, 40); !slices.Equal(got, want) {
		t.Errorf("Subtract(b,a) = %v, want %v", got, want)
	}
	if got, want := Union(a, b), rs(1, 40); !slices.Equal(got, want) {
		t.Errorf("Union = %v, want %v", got, want)
	}
	if got := Total(a); got != 21 {
		t.Errorf("Total = %d, want 21", got)
	}
	if !ContainsLine(a, 25) || ContainsLine(a, 15) || ContainsLine(a, 31) || !ContainsLine(a, 1) {
		t.Errorf("ContainsLine wrong on %v", a)
	}
	if got := Format(rs(1, 3, 5, 5)); got != "1-3,5" {
		t.Errorf("Format = %q", got)
	}
	p, err := Parse("1-3,5")
	if err != nil || !slices.Equal(p, rs(1, 3, 5, 5)) {
		t.Errorf("Parse = %v, %v", p, err)
	}
	if _, err := Parse("1-x"); err == nil {
		t.Errorf("Parse(1-x) gave no error")
	}
}

// lineSet is the obvious model: a set of line numbers.
func lineSet(rs []Range, lineCount int) map[int]bool {
	m := map[int]bool{}
	for _, r := range rs {
		for l := max(r.Start, 1); l <= min(r.End, lineCount); l++ {
			m[l] = true
		}
	}
	return m
}

func setOf(rs []Range) map[int]bool { return lineSet(rs, 1<<30) }

func sameSet(a, b map[int]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

func randRanges(r *rand.Rand, n, maxLine int) []Range {
	out := make([]Range, n)
	for i := range out {
		s := r.IntN(maxLine+4) - 2
		out[i] = Range{s, s + r.IntN(12) - 2}
	}
	return out
}

// TestProperties checks Normalize and the set operations against a line-set
// model on random inputs.
func TestProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3000; i++ {
		lines := r.IntN(60)
		in := randRanges(r, r.IntN(8), lines)
		n := Normalize(in, lines)
		if !IsNormalized(n) {
			t.Fatalf("Normalize(%v,%d) = %v is not normalized", in, lines, n)
		}
		if !sameSet(setOf(n), lineSet(in, lines)) {
			t.Fatalf("Normalize(%v,%d) = %v changes the lines", in, lines, n)
		}
		if !slices.Equal(Normalize(n, lines), n) {
			t.Fatalf("Normalize is not idempotent on %v", n)
		}
		m := Normalize(randRanges(r, r.IntN(8), lines), lines)
		sa, sb := setOf(n), setOf(m)
		inter, sub, uni := map[int]bool{}, map[int]bool{}, map[int]bool{}
		for k := range sa {
			if sb[k] {
				inter[k] = true
			} else {
				sub[k] = true
			}
			uni[k] = true
		}
		for k := range sb {
			uni[k] = true
		}
		for name, c := range map[string]struct {
			got  []Range
			want map[int]bool
		}{"Intersect": {Intersect(n, m), inter}, "Subtract": {Subtract(n, m), sub}, "Union": {Union(n, m), uni}} {
			if !IsNormalized(c.got) || !sameSet(setOf(c.got), c.want) {
				t.Fatalf("%s(%v, %v) = %v", name, n, m, c.got)
			}
		}
		st := Stitch(n, 3, 5, func(g Range) int { return g.Lines() * 2 })
		if !IsNormalized(st) || !setContains(setOf(st), sa) {
			t.Fatalf("Stitch(%v) = %v", n, st)
		}
	}
}

func setContains(big, small map[int]bool) bool {
	for k := range small {
		if !big[k] {
			return false
		}
	}
	return true
}
