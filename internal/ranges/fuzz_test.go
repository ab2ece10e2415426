package ranges

import (
	"slices"
	"testing"
)

func decodeRanges(data []byte) []Range {
	var out []Range
	for i := 0; i+1 < len(data); i += 2 {
		out = append(out, Range{int(int8(data[i])), int(int8(data[i])) + int(int8(data[i+1]))})
	}
	return out
}

// FuzzNormalizeStitch checks that Normalize keeps exactly the in-file lines,
// is idempotent, and that Stitch keeps every line and stays normalized.
func FuzzNormalizeStitch(f *testing.F) {
	f.Add([]byte{1, 3, 4, 2}, uint8(10), uint8(3), uint8(5))
	f.Add([]byte{0, 0, 200, 5, 7, 250}, uint8(0), uint8(0), uint8(0))
	f.Add([]byte{5, 1, 1, 3, 9, 4, 20, 1}, uint8(30), uint8(2), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, lineCount, maxGap, header uint8) {
		in := decodeRanges(data)
		n := Normalize(in, int(lineCount))
		if !IsNormalized(n) {
			t.Fatalf("not normalized: %v", n)
		}
		if !sameSet(setOf(n), lineSet(in, int(lineCount))) {
			t.Fatalf("Normalize(%v, %d) = %v changes the lines", in, lineCount, n)
		}
		if !slices.Equal(Normalize(n, int(lineCount)), n) {
			t.Fatalf("not idempotent: %v", n)
		}
		st := Stitch(n, int(maxGap), int(header), func(g Range) int { return g.Lines() })
		if !IsNormalized(st) || !setContains(setOf(st), setOf(n)) || Total(st) > int(lineCount) {
			t.Fatalf("Stitch(%v) = %v", n, st)
		}
		for i := 1; i < len(st); i++ {
			if gap := st[i].Start - st[i-1].End - 1; gap <= int(maxGap) && gap < int(header) {
				t.Fatalf("Stitch(%v) left a stitchable gap: %v", n, st)
			}
		}
	})
}
