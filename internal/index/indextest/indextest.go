package indextest

import (
	"context"
	"testing"

	"github.com/ctxls/ctxls/internal/history/historytest"
	"github.com/ctxls/ctxls/internal/index"
)

// Snapshot writes files (slash path → text) under a new temporary root
// (historytest.Write) and returns a snapshot of an in-memory index of it,
// released and closed when the test ends.
func Snapshot(t testing.TB, files map[string]string) *index.Snapshot {
	t.Helper()
	x, err := index.Open(context.Background(), historytest.Write(t, files), index.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	snap, release := x.Snapshot()
	t.Cleanup(release)
	return snap
}
