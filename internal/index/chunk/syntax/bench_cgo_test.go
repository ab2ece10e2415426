//go:build cgo

package syntax

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/golang"

	"github.com/ctxls/ctxls/internal/gotree"
)

// BenchmarkSitterParse parses what BenchmarkParse does with
// go-tree-sitter's binding, without a walk: the native parse's floor.
func BenchmarkSitterParse(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(gotree.Src(b), "net", "http", "server.go"))
	if err != nil {
		b.Skip(err)
	}
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(golang.GetLanguage())
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		t, err := p.ParseCtx(context.Background(), nil, src)
		if err != nil {
			b.Fatal(err)
		}
		t.Close()
	}
}
