package index

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/index/chunk"
)

// dozyChunker chunks like blockChunker, slowly.
type dozyChunker struct {
	blockChunker
	delay time.Duration
}

func (s dozyChunker) Chunk(path string, src []byte) ([]chunk.Chunk, error) {
	time.Sleep(s.delay)
	return s.blockChunker.Chunk(path, src)
}

// TestOpenFilesFirst: a file opened in an editor while a background build
// runs is indexed next, with the editor's text, and is searchable in a
// partial snapshot long before the build ends.
func TestOpenFilesFirst(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := range 80 {
		files[fmt.Sprintf("pkg/f%02d.go", i)] = fmt.Sprintf("package pkg\n\nfunc F%d() {}\n", i)
	}
	writeTree(t, root, files)
	ctx := context.Background()
	opts := testOptions(t)
	opts.Background, opts.Workers = true, 1
	opts.NewChunker = func() (Chunker, error) { return dozyChunker{delay: 20 * time.Millisecond}, nil }
	x, err := Open(ctx, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	// The last file in walk order, opened with text that is not on disk.
	if err := x.SetOverlay(ctx, "pkg/f79.go", []byte("package pkg\n\nfunc ZebraOpened() {}\n")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, release := x.Snapshot()
		hits, err := s.Search(ctx, Query{Text: "ZebraOpened"}, 5)
		complete := s.Complete()
		release()
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) > 0 {
			if complete {
				t.Fatal("the open file became searchable only when the build ended")
			}
			if hits[0].Path != "pkg/f79.go" {
				t.Fatalf("hit %v", hits[0])
			}
			break
		}
		if complete || time.Now().After(deadline) {
			t.Fatalf("open file not searchable during the build (complete %v)", complete)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := x.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	s, release := x.Snapshot()
	defer release()
	if fi, ok := s.Stat("pkg/f79.go"); !ok || !fi.Overlay {
		t.Errorf("after the build: %+v, %v", fi, ok)
	}
	if f, err := s.File("pkg/f79.go"); err != nil || !strings.Contains(f.Text, "ZebraOpened") {
		t.Errorf("after the build the open file's text is %q, %v", f.Text, err)
	}
}
