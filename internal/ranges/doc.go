// Package ranges implements 1-based, inclusive line ranges over one file and
// the set operations the assembler needs: Normalize (sort, merge overlapping
// and touching ranges, clamp, drop empty ones), Stitch (join ranges separated
// by a small gap when the gap is cheaper than a second part header), Subtract,
// Intersect and line totals.
//
// It is pure: no I/O, no tokenizer, no knowledge of files beyond a line count.
package ranges
