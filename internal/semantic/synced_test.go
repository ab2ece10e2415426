package semantic

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestInSync: after Load the cache file is known to hold the store of the
// snapshot's state, and of no other state or options; a change synced by
// the next Load moves the record to the new state (through the delta
// file as well as whole); any write to the cache file or its delta voids
// it.
func TestInSync(t *testing.T) {
	ctx := context.Background()
	x, root := indexFiles(t, topics())
	path := filepath.Join(t.TempDir(), CacheFile)
	opts := testOptions()
	opts.RetrainFiles, opts.RetrainDrift = 1, 1 // keep the model: the changes go into a delta
	snap := snapshot(t, x)
	if InSync(path, snap.StateRoot(), opts) {
		t.Fatal("in sync before any store was written")
	}
	if _, _, err := Load(ctx, snap, path, opts, false, nil); err != nil {
		t.Fatal(err)
	}
	first := snap.StateRoot()
	if !InSync(path, first, opts) {
		t.Fatal("not in sync with the state it was built for")
	}
	other := opts
	other.Dim++
	if InSync(path, first, other) || InSync(path, "another state", opts) {
		t.Fatal("in sync with other options or another state")
	}
	// A Load that changes nothing keeps the record.
	if _, _, err := Load(ctx, snap, path, opts, false, nil); err != nil || !InSync(path, first, opts) {
		t.Fatalf("not in sync after a Load of the same state (%v)", err)
	}
	write(t, x, root, "web/f1.go", "package web\n\nfunc cookieJar9(statusCode int) int {\n\treturn statusCode\n}\n")
	snap = snapshot(t, x)
	if snap.StateRoot() == first {
		t.Fatal("the edit did not change the state")
	}
	if InSync(path, snap.StateRoot(), opts) {
		t.Fatal("in sync with a state the store has not seen")
	}
	if _, _, err := Load(ctx, snap, path, opts, false, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + DeltaSuffix); err != nil {
		t.Fatalf("the change was not saved as a delta: %v", err)
	}
	if !InSync(path, snap.StateRoot(), opts) || InSync(path, first, opts) {
		t.Fatal("the record did not follow the synced state")
	}
	// Writing to either file voids the record.
	for _, p := range []string{path + DeltaSuffix, path} {
		if _, _, err := Load(ctx, snap, path, opts, false, nil); err != nil || !InSync(path, snap.StateRoot(), opts) {
			t.Fatalf("not in sync before writing %s (%v)", filepath.Base(p), err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond) // a change time of its own
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if InSync(path, snap.StateRoot(), opts) {
			t.Fatalf("in sync after %s was written", filepath.Base(p))
		}
	}
}
