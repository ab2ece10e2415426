package retrieve

import (
	"testing"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/index/indextest"
)

// indexFiles is a snapshot of an in-memory index of files (slash path →
// text) written for the test (indextest.Snapshot).
func indexFiles(t testing.TB, files map[string]string) *index.Snapshot {
	return indextest.Snapshot(t, files)
}

// validate is Engine.Plan for a test that reads the request as checked.
func validate(e *Engine, r *Request) error {
	p, err := e.Plan(*r)
	if err == nil {
		*r = p.Request()
	}
	return err
}
