package walk

import (
	"strings"
	"testing"
)

// BenchmarkEvalIgnore decides one path against a 100-line .gitignore of
// the usual kinds (extensions, directories, anchored paths, negations).
func BenchmarkEvalIgnore(b *testing.B) {
	var lines []string
	for i := range 25 {
		n := string(rune('a' + i))
		lines = append(lines, "*."+n+"tmp", n+"build/", "/"+n+"out/*.o", "!"+n+"keep.log")
	}
	f := parseIgnoreFile("", ".gitignore", []byte(strings.Join(lines, "\n")))
	stack := []*dirIgnore{{files: [numLayers]*ignoreFile{layerGitignore: f}}}
	b.ReportAllocs()
	for b.Loop() {
		evalIgnore(stack, "src/internal/pkg/file.go", false)
	}
}
