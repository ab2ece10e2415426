package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
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

// TestStateRootDirsCutBySubdirs: a directory whose files sort on both
// sides of a subdirectory's ("a/b.go" < "a/b/c.go" < "a/b_x.go") is
// hashed in pieces by the base's one pass over the paths; its digest,
// and the root, equal StateRoot's over the files grouped whole — for the
// tables built in memory and for those read back from the tables file.
func TestStateRootDirsCutBySubdirs(t *testing.T) {
	root := t.TempDir()
	tree := map[string]string{
		"a/b.go": "package a\n", "a/b/c.go": "package b\n", "a/b_x.go": "package a\n\nvar X = 1\n",
		"a/b/c/d.go": "package c\n", "a/b/e.go": "package b\n\nvar E = 2\n", "a/z.go": "package a\n\nvar Z = 3\n",
		"top.go": "package top\n", "a-b/f.go": "package ab\n",
	}
	writeTree(t, root, tree)
	opts := testOptions(t)
	for _, pass := range []string{"built", "read back"} {
		x := mustOpen(t, root, opts)
		s, release := x.Snapshot()
		hashes := map[string]string{}
		for _, q := range s.Paths() {
			fi, _ := s.Stat(q)
			hashes[q] = fi.Hash
		}
		if len(hashes) != len(tree) {
			t.Fatalf("%s: %d files, want %d", pass, len(hashes), len(tree))
		}
		if got, want := s.StateRoot(), StateRoot(hashes); got != want {
			t.Errorf("%s: snapshot root %s, from scratch %s", pass, got, want)
		}
		ds := s.base.dirState()
		if got, want := ds.byDir["a"], []string{"a/b.go", "a/b_x.go", "a/z.go"}; !slices.Equal(got, want) {
			t.Errorf("%s: directory a holds %v, want %v", pass, got, want)
		}
		release()
		x.Close()
	}
}
