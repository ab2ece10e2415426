package index

import (
	"reflect"
	"slices"
	"sync/atomic"
	"testing"
)

// A full build chunks each content once: a file with the same content and
// language as one already indexed (a vendored copy, the same tree checked
// out twice) takes its chunks and token counts, and gets lexical documents
// of its own path; the index answers exactly as if it had been chunked.
func TestSameContentChunkedOnce(t *testing.T) {
	src := fixture()["ranges/stitch.go"]
	files := map[string]string{
		"a/stitch.go":      src,
		"vendor/stitch.go": src,
		"v2/stitch.go":     src, // as many path terms as vendor's: shares its records
		"b/other.go":       "package b\n\nfunc Other() {}\n",
		"doc/stitch.md":    src, // same bytes, another language: chunked again
	}
	root := t.TempDir()
	writeTree(t, root, files)
	var calls atomic.Int64
	opts := testOptions(t)
	opts.NewChunker = func() (Chunker, error) { return blockChunker{calls: &calls}, nil }
	x := mustOpen(t, root, opts)
	defer x.Close()
	if n := calls.Load(); n != 3 {
		t.Errorf("%d files chunked, want 3 (the copy takes the first's chunks)", n)
	}
	s, release := x.Snapshot()
	defer release()
	a := s.ChunksOf("a/stitch.go")
	for _, copyPath := range []string{"vendor/stitch.go", "v2/stitch.go"} {
		v := s.ChunksOf(copyPath)
		if len(a) == 0 || len(a) != len(v) {
			t.Fatalf("%d and %d chunks", len(a), len(v))
		}
		for i := range a {
			ca, cv := a[i].Chunk, v[i].Chunk
			if cv.Path != copyPath {
				t.Errorf("chunk %d of the copy has path %q", i, cv.Path)
			}
			cv.Path = ca.Path
			if !reflect.DeepEqual(ca, cv) {
				t.Errorf("chunk %d:\n%+v\n%+v", i, ca, cv)
			}
			na, _ := s.TokenCount(ChunkIDOf("a/stitch.go", i), "words")
			nv, ok := s.TokenCount(ChunkIDOf(copyPath, i), "words")
			if !ok || na != nv {
				t.Errorf("chunk %d: %d and %d tokens", i, na, nv)
			}
		}
	}
	hits, err := s.Search(ctx, Query{Identifiers: []string{"Stitch"}}, 10)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	score := map[string]float64{}
	for _, h := range hits {
		if !slices.Contains(paths, h.Path) {
			paths = append(paths, h.Path)
			score[h.Path] = h.Score
		}
	}
	if !slices.Contains(paths, "a/stitch.go") || !slices.Contains(paths, "vendor/stitch.go") {
		t.Fatalf("hits in %q, want both copies", paths)
	}
	// The paths differ in their terms (a, vendor): the path field scores
	// them apart, the text does not.
	if hits := searchIDs(t, x, Query{Identifiers: []string{"vendor"}}, 10); len(hits) == 0 {
		t.Error("the copy's path is not searchable")
	} else if p, _, _ := hits[0].Split(); p != "vendor/stitch.go" {
		t.Errorf("best hit for vendor: %s", p)
	}
}
