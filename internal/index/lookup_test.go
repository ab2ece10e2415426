package index

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// TestAtMost: DefsAtMost/RefsAtMost agree with Defs/Refs within the
// limit and refuse over it, counting files changed since the base tables.
func TestAtMost(t *testing.T) {
	x, _ := openFixture(t, testOptions(t))
	s, release := x.Snapshot()
	all := s.Defs("Clamp")
	if len(all) != 2 {
		t.Fatalf("Defs(Clamp) = %v", all)
	}
	if d, ok := s.DefsAtMost("Clamp", 2); !ok || !slices.Equal(d, all) {
		t.Errorf("DefsAtMost(Clamp, 2) = %v, %v", d, ok)
	}
	if d, ok := s.DefsAtMost("Clamp", 1); ok || d != nil {
		t.Errorf("DefsAtMost(Clamp, 1) = %v, %v; want nil, false", d, ok)
	}
	if r, ok := s.RefsAtMost("parseHTTPRequest", 1); !ok || len(r) != 1 {
		t.Errorf("RefsAtMost(parseHTTPRequest, 1) = %v, %v", r, ok)
	}
	release()
	if err := x.Update(context.Background(), "more/clamp.go", []byte("package more\n\nfunc Clamp(x int) int {\n\treturn x\n}\n")); err != nil {
		t.Fatal(err)
	}
	s, release = x.Snapshot()
	if d, ok := s.DefsAtMost("Clamp", 2); ok {
		t.Errorf("DefsAtMost(Clamp, 2) with a third definition in a new file = %v, true", d)
	}
	if d, ok := s.DefsAtMost("Clamp", 3); !ok || len(d) != 3 || !slices.Equal(d, s.Defs("Clamp")) {
		t.Errorf("DefsAtMost(Clamp, 3) = %v, %v", d, ok)
	}
	// Every name of every chunk, with a file of the base changed too.
	release()
	if err := x.Update(context.Background(), "ranges/stitch.go", []byte("package ranges\n\nfunc Restitch(rs []Range) []Range {\n\treturn Clamp(rs)\n}\n")); err != nil {
		t.Fatal(err)
	}
	s, release = x.Snapshot()
	defer release()
	names := []string{"Clamp", "parseHTTPRequest", "Stitch", "Restitch", "nothere", ""}
	for _, p := range s.Paths() {
		for _, c := range s.ChunksOf(p) {
			names = append(append(append(names, c.Symbol, c.QualifiedName), c.Defines...), c.References...)
		}
	}
	for _, name := range names {
		if n, want := s.NumDefs(name), len(s.Defs(name)); n != want {
			t.Errorf("NumDefs(%s) = %d, want %d", name, n, want)
		}
		if n, want := s.NumRefs(name), len(s.Refs(name)); n != want {
			t.Errorf("NumRefs(%s) = %d, want %d", name, n, want)
		}
	}
}

// TestSymbolsPersistWithDelta: the symbol maps written at a checkpoint
// over a snapshot with changes since its base are those of the new state.
func TestSymbolsPersistWithDelta(t *testing.T) {
	opts := testOptions(t)
	x, root := openFixture(t, opts)
	ctx := context.Background()
	// Change the disk too: the reopened index refreshes from it.
	writeTree(t, root, map[string]string{"more/clamp.go": "package more\n\nfunc Clamp(x int) int {\n\treturn x\n}\n"})
	if err := x.Update(ctx, "more/clamp.go", nil); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "vendor/a/util.go")); err != nil {
		t.Fatal(err)
	}
	if err := x.Remove(ctx, "vendor/a/util.go"); err != nil {
		t.Fatal(err)
	}
	s, release := x.Snapshot()
	want := s.Defs("Clamp")
	release()
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	y, err := Open(ctx, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer y.Close()
	s, release = y.Snapshot()
	defer release()
	if s.base.sym == nil {
		t.Fatal("the reopened index built its symbol maps instead of reading them")
	}
	if got := s.Defs("Clamp"); !slices.Equal(got, want) || len(got) != 2 {
		t.Errorf("Defs(Clamp) after reopening = %v, want %v", got, want)
	}
}

// TestRemoveSeveral: Remove of several paths drops them all in one
// snapshot, and keeps a path that has an editor overlay.
func TestRemoveSeveral(t *testing.T) {
	x, _ := openFixture(t, testOptions(t))
	before := x.cur.Load()
	paths := before.Paths()
	if len(paths) < 3 {
		t.Fatalf("fixture has %d files", len(paths))
	}
	if err := x.SetOverlay(context.Background(), paths[2], []byte("package kept\n")); err != nil {
		t.Fatal(err)
	}
	seq := x.cur.Load().seq
	if err := x.Remove(context.Background(), paths[0], paths[1], paths[2]); err != nil {
		t.Fatal(err)
	}
	after := x.cur.Load()
	if after.seq != seq+1 {
		t.Errorf("%d snapshots published for one Remove, want 1", after.seq-seq)
	}
	got := after.Paths()
	if slices.Contains(got, paths[0]) || slices.Contains(got, paths[1]) || !slices.Contains(got, paths[2]) {
		t.Errorf("after Remove(%s, %s, %s with an overlay): %v", paths[0], paths[1], paths[2], got)
	}
}

// TestMemo: a snapshot's memo computes once, whatever the callers, and a
// new snapshot computes again.
func TestMemo(t *testing.T) {
	x, _ := openFixture(t, testOptions(t))
	s, release := x.Snapshot()
	defer release()
	type key struct{}
	var calls atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v := s.Memo(key{}, func() any { calls.Add(1); return len(s.Paths()) }).(int); v != len(s.Paths()) {
				t.Errorf("memo %d", v)
			}
		}()
	}
	wg.Wait()
	if calls.Load() != 1 {
		t.Fatalf("computed %d times", calls.Load())
	}
	if err := x.Update(context.Background(), "new/file.go", []byte("package x\n")); err != nil {
		t.Fatal(err)
	}
	s2, release2 := x.Snapshot()
	defer release2()
	if v := s2.Memo(key{}, func() any { calls.Add(1); return len(s2.Paths()) }).(int); v != len(s.Paths())+1 || calls.Load() != 2 {
		t.Fatalf("a new snapshot's memo: %d (computed %d times)", v, calls.Load())
	}
}
