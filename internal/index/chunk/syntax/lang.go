package syntax

// Lang is a grammar compiled into ctxls. The numbers are the C walker's
// (csrc/syntax.c, ctxls_language).
type Lang uint8

// The grammars.
const (
	Go Lang = iota
	Python
	Rust
	JavaScript
	TypeScript
	TSX
	Java
	C
	CPP
	CSharp
	Ruby
	PHP
	numLangs
)

var langNames = [numLangs]string{"go", "python", "rust", "javascript", "typescript", "tsx", "java", "c", "cpp",
	"csharp", "ruby", "php"}

// String returns the language's name as the chunker spells it ("go",
// "cpp", "tsx", …).
func (l Lang) String() string {
	if l < numLangs {
		return langNames[l]
	}
	return "unknown"
}

// grammar is what a Parser knows of one language: the names of its node
// types and fields.
type grammar struct {
	symbols []string
	fields  []string // by field id; fields[0] is ""
	fieldID map[string]uint8
	lookups []string       // the fields the C walker looks up, by bit
	lookup  map[string]int // lookups' bits by name
}

// splitNames splits n NUL-terminated names.
func splitNames(b []byte, n int) ([]string, bool) {
	out := make([]string, 0, n)
	for len(out) < n {
		i := 0
		for i < len(b) && b[i] != 0 {
			i++
		}
		if i == len(b) {
			return nil, false
		}
		out = append(out, string(b[:i]))
		b = b[i+1:]
	}
	return out, len(b) == 0
}
