package chunk

import (
	"fmt"
	"strings"
	"testing"
)

// TestCommentBetweenDeclarationsCovered: a comment line between two
// declarations that is no unit's doc (a blank line below it) belongs to
// some chunk, so that a search for its words finds it; a separator of
// punctuation alone is still left out.
func TestCommentBetweenDeclarationsCovered(t *testing.T) {
	for _, tc := range []struct{ path, src, marker string }{
		{"a.go", "package a\n\n// One does one thing.\nfunc One() int {\n\treturn 1\n}\n\n// marker zanzibar\n\n// Two does two things.\nfunc Two() int {\n\treturn 2\n}\n", "// marker zanzibar"},
		{"a.py", "def one():\n    return 1\n\n# marker quokka\n\ndef two():\n    return 2\n", "# marker quokka"},
		{"a.js", "function one () {\n  return 1\n}\n\n// marker wombat\n\nfunction two () {\n  return 2\n}\n", "// marker wombat"},
		{"a.rs", "fn one() -> i32 {\n    1\n}\n\n// marker numbat\n\nfn two() -> i32 {\n    2\n}\n", "// marker numbat"},
		{"a.py", "class A:\n    def one(self):\n        return 1\n\n    # marker dingo\n\n    def two(self):\n        return 2\n", "# marker dingo"},
	} {
		cs := chunkOf(t, Options{}, tc.path, tc.src)
		at := strings.Index(tc.src, tc.marker)
		line := strings.Count(tc.src[:at], "\n") + 1
		covered := false
		for _, c := range cs {
			if c.StartLine <= line && line <= c.EndLine && strings.Contains(tc.src[c.StartByte:c.EndByte], tc.marker) {
				covered = true
			}
		}
		if !covered {
			t.Errorf("%s: line %d (%q) is in no chunk: %+v", tc.path, line, tc.marker, spans(cs))
		}
	}
	cs := chunkOf(t, Options{}, "b.go", "package a\n\nfunc One() int {\n\treturn 1\n}\n\n// ---\n\nfunc Two() int {\n\treturn 2\n}\n")
	for _, c := range cs {
		if c.StartLine <= 7 && 7 <= c.EndLine {
			t.Errorf("a separator of punctuation got a chunk: %+v", spans(cs))
		}
	}
}

// spans lists chunks as kind and line ranges, for messages.
func spans(cs []Chunk) []string {
	var out []string
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%s %s %d-%d", c.Kind, c.QualifiedName, c.StartLine, c.EndLine))
	}
	return out
}
