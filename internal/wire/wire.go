package wire

import "github.com/ctxls/ctxls/internal/assemble"

// Position is a 0-based LSP position.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is a 0-based LSP range.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Part is an assembled part as the faces send it.
type Part struct {
	assemble.Part
	// URI is the part's file URI (the language server's results only).
	URI string `json:"uri,omitempty"`
	// Range is the 0-based LSP range covering the part's Ranges: from the
	// start of its first line to the start of the line after its last.
	Range Range `json:"range"`
}

// Parts returns parts as the faces send them; uri, when not nil, gives a
// part's URI from its path. The result is never nil.
func Parts(parts []assemble.Part, uri func(path string) string) []Part {
	out := make([]Part, len(parts))
	for i, p := range parts {
		out[i] = Part{Part: p}
		if n := len(p.Ranges); n > 0 {
			out[i].Range = Range{Start: Position{Line: p.Ranges[0].Start - 1}, End: Position{Line: p.Ranges[n-1].End}}
		}
		if uri != nil {
			out[i].URI = uri(p.Path)
		}
	}
	return out
}
