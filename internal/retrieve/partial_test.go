package retrieve

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/index/chunk"
	"github.com/ctxls/ctxls/internal/tokens"
)

// gateChunker chunks by line windows, but only once gate is closed.
type gateChunker struct{ gate chan struct{} }

func (g gateChunker) Chunk(path string, src []byte) ([]chunk.Chunk, error) {
	<-g.gate
	n := strings.Count(string(src), "\n")
	return []chunk.Chunk{{Path: path, Kind: chunk.KindWindow, StartLine: 1, EndLine: max(1, n), EndByte: len(src)}}, nil
}
func (gateChunker) Close() {}

// TestFocusWhileIndexing: a focus on a file the background build has not
// reached yet is answered from what is indexed, with a note, not an error;
// once the index is complete the same focus is a parameter error only if
// the file is really not indexable.
func TestFocusWhileIndexing(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\nfunc A() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gate := make(chan struct{})
	ctx := context.Background()
	x, err := index.Open(ctx, root, index.Options{InMemory: true, Background: true,
		NewChunker: func() (index.Chunker, error) { return gateChunker{gate}, nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	e := NewEngine(tokens.NewRegistry())
	req := Request{Focus: &Focus{Path: "a.go", Line: 3}, Budget: assemble.Budget{MaxTokens: 500}}
	snap, release := x.Snapshot()
	if snap.Complete() {
		t.Fatal("the snapshot is complete before the build could run")
	}
	res, err := e.Assemble(ctx, snap, req)
	release()
	if err != nil {
		t.Fatalf("focus during indexing: %v", err)
	}
	if res.Stats.IndexComplete || !strings.Contains(res.Stats.Note, "not indexed yet") {
		t.Fatalf("stats = %+v", res.Stats)
	}
	close(gate)
	if err := x.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	snap, release = x.Snapshot()
	defer release()
	res, err = e.Assemble(ctx, snap, req)
	if err != nil || len(res.Parts) == 0 || res.Stats.Note != "" {
		t.Fatalf("after indexing: err %v, %+v", err, res)
	}
}
