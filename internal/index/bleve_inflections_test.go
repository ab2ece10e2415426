package index

import (
	"slices"
	"testing"
)

func TestInflections(t *testing.T) {
	for w, want := range map[string]string{
		"stitched": "stitch", "ranges": "range", "running": "run", "assembler": "assemble",
		"parsers": "parse", "handler": "handle", "renderer": "render",
	} {
		if got := inflections(w); !slices.Contains(got, want) {
			t.Errorf("inflections(%q) = %q, want it to contain %q", w, got, want)
		}
	}
	if got := inflections("go"); got != nil {
		t.Errorf("short words are left alone: %q", got)
	}
}
