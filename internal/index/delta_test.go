package index

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// readMarker reads the live generation's completeness marker.
func readMarker(t *testing.T, dir string) marker {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(liveGen(t, dir), completeName))
	if err != nil {
		t.Fatal(err)
	}
	var m marker
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCheckpointWritesDelta: a refresh that changed a few files writes
// their rows beside the tables file (the delta file, the removed files in
// the marker) instead of the whole tables file again; the next open reads
// both and serves the same state as a fresh build of the tree, without
// indexing anything again. Past the fold threshold, and for an image, the
// tables file is written whole again and the delta dropped.
func TestCheckpointWritesDelta(t *testing.T) {
	opts, calls := countingOptions(t)
	root := t.TempDir()
	files := fixture()
	for i := range 20 {
		files[fmt.Sprintf("many/f%02d.go", i)] = fmt.Sprintf("package many\n\n// F%d is file %d.\nfunc F%d() {}\n", i, i, i)
	}
	writeTree(t, root, files)
	if _, err := Build(ctx, root, opts); err != nil {
		t.Fatal(err)
	}
	tablesPath := filepath.Join(liveGen(t, opts.CacheDir), tablesName)
	before, err := os.ReadFile(tablesPath)
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, root, map[string]string{
		"server/http.go": "package server\n\nfunc serveframes() {}\n",
		"added/new.go":   "package added\n\n// Fresh is a word written after the build.\nfunc Fresh() {}\n",
	})
	if err := os.Remove(filepath.Join(root, "README.md")); err != nil {
		t.Fatal(err)
	}
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(root, "ranges/stitch.go"), future, future); err != nil {
		t.Fatal(err)
	}
	x := mustOpen(t, root, opts)
	st := x.Stats()
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if st.Changed != 2 || st.Removed != 1 {
		t.Fatalf("refresh stats %+v", st)
	}
	after, err := os.ReadFile(tablesPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("the tables file was written again for a change of a few files")
	}
	m := readMarker(t, opts.CacheDir)
	if m.Delta == nil || !slices.Equal(m.Delta.Removed, []string{"README.md"}) || m.StateRoot != st.StateRoot {
		t.Fatalf("marker %+v, want a delta removing README.md at state %s", m, st.StateRoot)
	}
	if _, err := os.Stat(filepath.Join(liveGen(t, opts.CacheDir), deltaName)); err != nil {
		t.Fatal(err)
	}

	// The next open: the delta read, nothing indexed or re-read again.
	calls.Store(0)
	y := mustOpen(t, root, opts)
	st2 := y.Stats()
	if st2.Mode != "open" || st2.Read != 0 || st2.Changed != 0 || calls.Load() != 0 || st2.StateRoot != st.StateRoot || st2.Files != st.Files || st2.Chunks != st.Chunks {
		t.Errorf("open over a delta: %+v (chunked %d), want the refreshed state %s", st2, calls.Load(), st.StateRoot)
	}
	if got := hitPaths(t, y, Query{Text: "serveframes Fresh"}); !slices.Equal(got, []string{"added/new.go", "server/http.go"}) {
		t.Errorf("search over the delta: %v", got)
	}
	s, release := y.Snapshot()
	if _, ok := s.Stat("README.md"); ok {
		t.Error("the removed file is back")
	}
	if d := s.Defs("Fresh"); len(d) != 1 {
		t.Errorf("symbols over the delta: %v", d)
	}
	release()
	// An image holds the tables file alone: the delta is folded in.
	if _, err := y.ImageFiles(ctx); err != nil {
		t.Fatal(err)
	}
	if m := readMarker(t, opts.CacheDir); m.Delta != nil {
		t.Errorf("after an image: marker %+v, want no delta", m)
	}
	if _, err := os.Stat(filepath.Join(liveGen(t, opts.CacheDir), deltaName)); err == nil {
		t.Error("the delta file is left after the fold")
	}
	if err := y.Close(); err != nil {
		t.Fatal(err)
	}
	z := mustOpen(t, root, opts)
	if st3 := z.Stats(); st3.Mode != "open" || st3.Changed != 0 || st3.StateRoot != st.StateRoot {
		t.Errorf("open after the fold: %+v", st3)
	}
	z.Close()

	// A fresh build of the same tree: the same state.
	fresh := opts
	fresh.CacheDir = t.TempDir()
	if fs, err := Build(ctx, root, fresh); err != nil || fs.StateRoot != st.StateRoot || fs.Chunks != st.Chunks {
		t.Errorf("fresh build: %+v, %v; want state %s, %d chunks", fs, err, st.StateRoot, st.Chunks)
	}
}

// TestDeltaOfOtherTables: a delta is read over the tables file it was
// written for only, and only when it passes its checksum; otherwise the
// index is rebuilt, never served wrong.
func TestDeltaOfOtherTables(t *testing.T) {
	for _, damage := range []string{"other tables", "a bit flipped"} {
		t.Run(damage, func(t *testing.T) {
			opts, _ := countingOptions(t)
			root := t.TempDir()
			writeTree(t, root, fixture())
			if _, err := Build(ctx, root, opts); err != nil {
				t.Fatal(err)
			}
			writeTree(t, root, map[string]string{"added/new.go": "package added\n\nfunc Fresh() {}\n"})
			x := mustOpen(t, root, opts)
			x.Close()
			gen := liveGen(t, opts.CacheDir)
			m := readMarker(t, opts.CacheDir)
			if m.Delta == nil {
				t.Fatal("no delta written")
			}
			if damage == "other tables" {
				m.Delta.Base++
				if err := writeMarker(gen, m); err != nil {
					t.Fatal(err)
				}
			} else {
				p := filepath.Join(gen, deltaName)
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				b[len(b)/2] ^= 0x10
				if err := os.WriteFile(p, b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			y := mustOpen(t, root, opts)
			defer y.Close()
			if st := y.Stats(); st.Mode != "build" || st.Files != 7 {
				t.Errorf("%s: %+v, want a rebuild", damage, st)
			}
			if got := hitPaths(t, y, Query{Identifiers: []string{"Fresh"}}); !slices.Equal(got, []string{"added/new.go"}) {
				t.Errorf("search: %v", got)
			}
		})
	}
}

// TestDeltaFoldsPastThreshold: a change of more than compactAfter files
// writes the tables file whole again, and no delta.
func TestDeltaFoldsPastThreshold(t *testing.T) {
	opts, _ := countingOptions(t)
	root := t.TempDir()
	files := map[string]string{}
	for i := range compactAfter + 10 {
		files[fmt.Sprintf("many/f%03d.go", i)] = fmt.Sprintf("package many\n\nfunc F%d() {}\n", i)
	}
	writeTree(t, root, files)
	if _, err := Build(ctx, root, opts); err != nil {
		t.Fatal(err)
	}
	tablesPath := filepath.Join(liveGen(t, opts.CacheDir), tablesName)
	before, err := os.ReadFile(tablesPath)
	if err != nil {
		t.Fatal(err)
	}
	for p := range files {
		files[p] += "\nfunc Later() {}\n"
	}
	writeTree(t, root, files)
	x := mustOpen(t, root, opts)
	st := x.Stats()
	x.Close()
	after, err := os.ReadFile(tablesPath)
	if err != nil {
		t.Fatal(err)
	}
	if m := readMarker(t, opts.CacheDir); bytes.Equal(before, after) || m.Delta != nil || st.Changed != len(files) {
		t.Errorf("%d files changed: tables rewritten %v, marker delta %+v", st.Changed, !bytes.Equal(before, after), m.Delta)
	}
	y := mustOpen(t, root, opts)
	defer y.Close()
	if st2 := y.Stats(); st2.Mode != "open" || st2.StateRoot != st.StateRoot {
		t.Errorf("reopen: %+v", st2)
	}
}
