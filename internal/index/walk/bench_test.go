package walk

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/gotree"
)

// BenchmarkWalkGoroot walks $(go env GOROOT)/src with the default options.
func BenchmarkWalkGoroot(b *testing.B) {
	root := gotree.Src(b)
	b.ReportAllocs()
	var files []File
	var skipped []Skipped
	for b.Loop() {
		var err error
		files, skipped, err = Walk(context.Background(), root, Options{})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(files)), "files")
	b.ReportMetric(float64(len(skipped)), "skipped")
}

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

// BenchmarkWalkGorootUnchanged walks $(go env GOROOT)/src as a refresh
// does when nothing changed: every file is stat'ed, none is opened (the
// refresh's Unchanged says each one is as it was).
func BenchmarkWalkGorootUnchanged(b *testing.B) {
	root := gotree.Src(b)
	opts := Options{Unchanged: func(string, int64, time.Time) bool { return true }}
	b.ReportAllocs()
	var files []File
	for b.Loop() {
		var err error
		files, _, err = Walk(context.Background(), root, opts)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(files)), "files")
}
