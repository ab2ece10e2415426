package syntax

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxls/ctxls/internal/gotree"
)

// BenchmarkParse parses net/http's server.go whole with this build's
// engine (go test -bench Parse, and again with -tags ctxls_wasm).
func BenchmarkParse(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(gotree.Src(b), "net", "http", "server.go"))
	if err != nil {
		b.Skip(err)
	}
	p := NewParser()
	defer p.Close()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		t, err := p.Parse(Go, src, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(t.Listed()), "nodes")
		t.Close()
	}
}
