package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestStateRootIncremental: after any sequence of adds, edits and
// removals (new directories, emptied ones), the snapshot's state root —
// computed from its base's directory digests plus the directories its
// delta touches — equals StateRoot over the snapshot's files from scratch.
func TestStateRootIncremental(t *testing.T) {
	ctx := context.Background()
	x, _ := openFixture(t, testOptions(t))
	rng := rand.New(rand.NewPCG(3, 4))
	dirs := []string{"", "ranges", "server", "new", "new/deep", "vendor/a"}
	live := map[string]bool{}
	s, release := x.Snapshot()
	for _, p := range s.Paths() {
		live[p] = true
	}
	release()
	for step := range 60 {
		var err error
		p := fmt.Sprintf("%s/f%d.go", dirs[rng.IntN(len(dirs))], rng.IntN(4))
		if p[0] == '/' {
			p = p[1:]
		}
		if live[p] && rng.IntN(3) == 0 {
			err = x.Remove(ctx, p)
			delete(live, p)
		} else {
			err = x.Update(ctx, p, []byte(fmt.Sprintf("package x\n\nfunc F%d() {}\n", step)))
			live[p] = true
		}
		if err != nil {
			t.Fatal(err)
		}
		s, release := x.Snapshot()
		hashes := map[string]string{}
		for _, q := range s.Paths() {
			fi, _ := s.Stat(q)
			hashes[q] = fi.Hash
		}
		if got, want := s.StateRoot(), StateRoot(hashes); got != want {
			t.Fatalf("step %d (%s): snapshot root %s, from scratch %s", step, p, got, want)
		}
		if len(hashes) != len(live) {
			t.Fatalf("step %d: %d files, want %d", step, len(hashes), len(live))
		}
		release()
	}
}
