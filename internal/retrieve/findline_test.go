package retrieve

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/ranges"
	"github.com/ctxls/ctxls/internal/tokens"
)

// TestCommentLineFound: a comment line between two declarations (a
// marker a session typed) is found by a query for its word, read from
// disk and from an editor's buffer laid over the file.
func TestCommentLineFound(t *testing.T) {
	root := t.TempDir()
	src := "package a\n\n// One does one thing.\nfunc One() int {\n\treturn 1\n}\n\n// marker zanzibar\n\n// Two does two things.\nfunc Two() int {\n\treturn 2\n}\n"
	for name, text := range map[string]string{"go.mod": "module example.com/a\n\ngo 1.22\n", "a.go": src, "b.go": "package a\n\n// Three is three.\nfunc Three() int { return 3 }\n"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	x, err := index.Open(ctx, root, index.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	e := NewEngine(tokens.NewRegistry())
	found := func(word string, line int) bool {
		snap, release := x.Snapshot()
		defer release()
		resp, err := e.Assemble(ctx, snap, Request{Query: word, Budget: assemble.Budget{MaxTokens: 2000}})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range resp.Parts {
			if p.Path == "a.go" && ranges.ContainsLine(p.Ranges, line) {
				return true
			}
		}
		return false
	}
	if !found("zanzibar", 8) {
		t.Error("a query for zanzibar does not find a.go:8 on disk")
	}
	buffer := "package a\n\n// One does one thing.\nfunc One() int {\n\treturn 1\n}\n\n// Two does two things.\nfunc Two() int {\n\treturn 2\n}\n\n// marker okapi\n\n// Four is four.\nfunc Four() int { return 4 }\n"
	if err := x.SetOverlay(ctx, "a.go", []byte(buffer)); err != nil {
		t.Fatal(err)
	}
	if !found("okapi", 13) {
		t.Error("a query for okapi does not find a.go:13 in the editor's buffer")
	}
}
