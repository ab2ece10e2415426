// Package textutil pads and joins text for receipts (names may be
// non-ASCII: "Käse", "crème brûlée", "日本茶").
package textutil

import (
	"strings"
	"unicode/utf8"
)

// Pad right-pads s with spaces to width runes.
func Pad(s string, width int) string {
	if n := utf8.RuneCountInString(s); n < width {
		return s + strings.Repeat(" ", width-n)
	}
	return s
}

// JoinLines joins lines with newlines and ends with one.
func JoinLines(lines []string) string {
	return strings.Join(lines, "\n") + "\n"
}
