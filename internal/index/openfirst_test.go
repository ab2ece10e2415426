package index

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/index/chunk"
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

// TestOverlayDuringBuildVisibleAtOnce: while a background build runs, each
// SetOverlay (and ClearOverlay) is in the very next snapshot — also for a
// file the build has already indexed, and for one it has not reached — and
// the build's own result for that file never overwrites the buffer.
func TestOverlayDuringBuildVisibleAtOnce(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := range 200 {
		files[fmt.Sprintf("pkg/f%03d.go", i)] = fmt.Sprintf("package pkg\n\nfunc F%d() {}\n", i)
	}
	writeTree(t, root, files)
	ctx := context.Background()
	opts := testOptions(t)
	opts.Background, opts.Workers = true, 1
	opts.NewChunker = func() (Chunker, error) { return dozyChunker{delay: 15 * time.Millisecond}, nil }
	x, err := Open(ctx, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	// Let the build index the first files (they are in its batch, not yet
	// in a snapshot: the build publishes at most once a second).
	time.Sleep(300 * time.Millisecond)
	check := func(p, want string) {
		t.Helper()
		s, release := x.Snapshot()
		defer release()
		if s.Complete() {
			t.Fatal("the build ended before the check: make it slower")
		}
		f, err := s.File(p)
		if err != nil || f.Text != want {
			t.Fatalf("%s in the next snapshot: %q, %v; want %q", p, f.Text, err, want)
		}
		name := want[strings.LastIndex(want, "func ")+5 : strings.Index(want, "()")]
		hits, err := s.Search(ctx, Query{Text: name}, 5)
		if err != nil || len(hits) == 0 || hits[0].Path != p {
			t.Fatalf("%s not searchable in the next snapshot: %v %v", name, hits, err)
		}
	}
	for i, p := range []string{"pkg/f000.go", "pkg/f001.go", "pkg/f199.go", "pkg/f000.go", "pkg/f198.go", "pkg/f000.go"} {
		text := fmt.Sprintf("package pkg\n\nfunc Typed%dNow() {}\n", i)
		if err := x.SetOverlay(ctx, p, []byte(text)); err != nil {
			t.Fatal(err)
		}
		check(p, text)
	}
	if err := x.ClearOverlay(ctx, "pkg/f001.go"); err != nil {
		t.Fatal(err)
	}
	check("pkg/f001.go", files["pkg/f001.go"])
	if err := x.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	// After the build: the buffers, not the build's disk reads, are indexed.
	s, release := x.Snapshot()
	defer release()
	for p, want := range map[string]string{
		"pkg/f000.go": "package pkg\n\nfunc Typed5Now() {}\n",
		"pkg/f199.go": "package pkg\n\nfunc Typed2Now() {}\n",
		"pkg/f198.go": "package pkg\n\nfunc Typed4Now() {}\n",
		"pkg/f001.go": files["pkg/f001.go"],
	} {
		if f, err := s.File(p); err != nil || f.Text != want {
			t.Errorf("after the build %s is %q, %v; want %q", p, f.Text, err, want)
		}
	}
	// No document of an older buffer or of the build's disk reads is left
	// in the lexical store beside the tables' chunks.
	if n := x.post.DocCount(); n != uint64(s.NumChunks()) {
		t.Errorf("the lexical store holds %d documents for %d chunks", n, s.NumChunks())
	}
	if hits, _ := s.Search(ctx, Query{Text: "F0"}, 5); len(hits) != 0 && hits[0].Path == "pkg/f000.go" {
		t.Errorf("the disk text of a buffer is searchable: %v", hits)
	}
}
