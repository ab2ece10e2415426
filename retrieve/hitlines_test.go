package retrieve

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/index"
	"github.com/ctxls/ctxls/index/chunk"
)

func TestContainsLower(t *testing.T) {
	for _, c := range []struct {
		s, term string
		want    bool
	}{
		{"func ServeHTTP(w ResponseWriter)", "servehttp", true},
		{"func ServeHTTP(w ResponseWriter)", "responsewriter", true},
		{"KEEPALIVE", "keepalive", true},
		{"keep-alive", "keepalive", false},
		{"abc", "abcd", false},
		{"", "a", false},
		{"x", "", true},
		{"aab", "ab", true},          // restart after a partial match
		{"naïve Café", "café", true}, // non-ASCII bytes compare as they are
		{"Ab1_", "ab1_", true},
	} {
		if got := containsLower(c.s, c.term); got != c.want {
			t.Errorf("containsLower(%q, %q) = %v, want %v", c.s, c.term, got, c.want)
		}
	}
}

// TestHitLines: the lines of a chunk that hold a query term, whatever
// their case, and only within the chunk.
func TestHitLines(t *testing.T) {
	root := t.TempDir()
	src := "package a\n// Keepalive here too\n\nfunc Serve() {\n\tconn.KeepAlive = true\n\tx := 1\n\treturn // keepalive\n}\n"
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	x, err := index.Open(ctx, root, index.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	snap, release := x.Snapshot()
	defer release()
	r := &run{snap: snap}
	s := &scored{c: chunk.Chunk{Path: "a.go", StartLine: 4, EndLine: 8}}
	if got := r.hitLines(s, []string{"keepalive"}); !slices.Equal(got, []int{5, 7}) {
		t.Errorf("hitLines = %v, want [5 7]", got)
	}
	// The same from the chunk's first byte (mid-line, as a node's may be).
	s.c.StartByte = strings.Index(src, "Serve()")
	if got := r.hitLines(s, []string{"keepalive"}); !slices.Equal(got, []int{5, 7}) {
		t.Errorf("hitLines from StartByte = %v, want [5 7]", got)
	}
	s.c.StartByte = 0
	s.c.StartLine, s.c.EndLine = 1, 20 // past the end of the file
	if got := r.hitLines(s, []string{"keepalive", "serve"}); !slices.Equal(got, []int{2, 4, 5, 7}) {
		t.Errorf("hitLines over the whole file = %v", got)
	}
	// Lines with non-ASCII letters fold case fully.
	if err := os.WriteFile(filepath.Join(root, "b.go"), []byte("package a\n// ÄNDERN hier\nvar x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := x.Update(ctx, "b.go", nil); err != nil {
		t.Fatal(err)
	}
	snap2, release2 := x.Snapshot()
	defer release2()
	r2 := &run{snap: snap2}
	if got := r2.hitLines(&scored{c: chunk.Chunk{Path: "b.go", StartLine: 1, EndLine: 3}}, []string{"ändern"}); !slices.Equal(got, []int{2}) {
		t.Errorf("hitLines with a non-ASCII term = %v, want [2]", got)
	}
	s.c.Path = "missing.go"
	if got := r.hitLines(s, []string{"keepalive"}); got != nil {
		t.Errorf("hitLines of a file not in the index = %v", got)
	}
}
