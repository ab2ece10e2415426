package retrieve

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxls/ctxls/internal/index"
)

// indexFiles writes files (slash path → text) under a new temporary root
// and returns a snapshot of an in-memory index of it, released and closed
// when the test ends.
func indexFiles(t testing.TB, files map[string]string) *index.Snapshot {
	t.Helper()
	root := t.TempDir()
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	x, err := index.Open(context.Background(), root, index.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	snap, release := x.Snapshot()
	t.Cleanup(release)
	return snap
}

// validate is Engine.Plan for a test that reads the request as checked.
func validate(e *Engine, r *Request) error {
	p, err := e.Plan(*r)
	if err == nil {
		*r = p.Request()
	}
	return err
}
