package index

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestUnchangedAgreesWithOpen: on a kept index the quick check says
// "unchanged" exactly when a refresh would change nothing, and then
// reports the statistics the refresh reports; Build answers with it.
func TestUnchangedAgreesWithOpen(t *testing.T) {
	opts, calls := countingOptions(t)
	root := t.TempDir()
	files := fixture()
	files["assets/logo.bin"] = "\x00\x01\x02binary" // left out: a verdict kept
	writeTree(t, root, files)
	if _, ok := Unchanged(ctx, root, opts); ok {
		t.Fatal("unchanged before any index was built")
	}
	if _, err := Build(ctx, root, opts); err != nil {
		t.Fatal(err)
	}
	// openStats is what opening the index reports, the reference.
	openStats := func() Stats {
		t.Helper()
		x := mustOpen(t, root, opts)
		defer x.Close()
		return x.Stats()
	}
	same := func(label string, quick, full Stats) {
		t.Helper()
		quick.DurationMs, full.DurationMs = 0, 0
		if quick.Mode != "open" || quick.Files != full.Files || quick.Chunks != full.Chunks || quick.Bytes != full.Bytes ||
			quick.StateRoot != full.StateRoot || quick.IndexBytes != full.IndexBytes || quick.Dir != full.Dir ||
			len(quick.Skipped) != len(full.Skipped) || quick.Read != 0 || quick.Changed != 0 || quick.Removed != 0 {
			t.Fatalf("%s: quick %+v, open %+v", label, quick, full)
		}
		for k, n := range full.Skipped {
			if quick.Skipped[k] != n {
				t.Fatalf("%s: skipped %v, open %v", label, quick.Skipped, full.Skipped)
			}
		}
	}
	calls.Store(0)
	quick, ok := Unchanged(ctx, root, opts)
	if !ok {
		t.Fatal("a freshly built index is not unchanged")
	}
	if calls.Load() != 0 {
		t.Errorf("the quick check chunked %d files", calls.Load())
	}
	same("fresh", quick, openStats())
	if len(quick.Skipped) == 0 {
		t.Errorf("the binary file is not among the skipped: %v", quick.Skipped)
	}

	// Each change makes the quick check step aside; after a refresh has
	// recorded it (a delta over the tables), it answers again.
	future := time.Now().Add(time.Hour)
	changes := []struct {
		name   string
		change func()
	}{
		{"content", func() {
			writeTree(t, root, map[string]string{"server/http.go": "package server\n\nfunc quickword() {}\n"})
		}},
		{"touched", func() { os.Chtimes(filepath.Join(root, "ranges/stitch.go"), future, future) }},
		{"added", func() { writeTree(t, root, map[string]string{"added/new.go": "package added\n\nfunc Fresh() {}\n"}) }},
		{"removed", func() { os.Remove(filepath.Join(root, "README.md")) }},
		{"newly left out", func() { writeTree(t, root, map[string]string{"assets/more.bin": "\x00\x00binary too"}) }},
		{"left out no more", func() { os.Remove(filepath.Join(root, "assets/logo.bin")) }},
	}
	for _, c := range changes {
		c.change()
		if st, ok := Unchanged(ctx, root, opts); ok {
			t.Fatalf("%s: unchanged after the change: %+v", c.name, st)
		}
		st, err := Build(ctx, root, opts)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode == "open" && c.name != "touched" && c.name != "newly left out" && c.name != "left out no more" {
			t.Fatalf("%s: Build did not refresh: %+v", c.name, st)
		}
		quick, ok := Unchanged(ctx, root, opts)
		if !ok {
			t.Fatalf("%s: not unchanged after the refresh", c.name)
		}
		same(c.name, quick, openStats())
		if bs, err := Build(ctx, root, opts); err != nil || bs.StateRoot != quick.StateRoot || bs.Mode != "open" {
			t.Fatalf("%s: Build on the unchanged index: %+v, %v", c.name, bs, err)
		}
	}
	if m := readMarkerForTest(t, liveGen(t, opts.CacheDir)); m.Delta == nil {
		t.Fatal("no delta written by the refreshes: the check over a delta is not exercised")
	}

	// A damaged tables file is not taken for an unchanged index.
	gen := liveGen(t, opts.CacheDir)
	p := filepath.Join(gen, tablesName)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := Unchanged(ctx, root, opts); ok {
		t.Fatal("a damaged tables file passed the quick check")
	}
}

// readMarkerForTest reads generation gen's completeness marker.
func readMarkerForTest(t *testing.T, gen string) marker {
	t.Helper()
	_, m := checkGeneration(gen, marker{Schema: schemaVersion})
	return m
}

// TestUnchangedLeavesALockedIndexAlone: while another process holds the
// index, the quick check steps aside at once (Open decides what to do).
func TestUnchangedLeavesALockedIndexAlone(t *testing.T) {
	opts := testOptions(t)
	root := t.TempDir()
	writeTree(t, root, fixture())
	if _, err := Build(ctx, root, opts); err != nil {
		t.Fatal(err)
	}
	lock, err := lockDir(ctx, opts.CacheDir, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.release()
	if _, ok := Unchanged(ctx, root, opts); ok {
		t.Fatal("unchanged answered on an index another holder has locked")
	}
}

// TestNameHintInternsAsTheIndex: a name table finding its names through
// the symbol maps' name index (whose extra names are not the table's)
// gives every name the id the table's own index gives, for names it has,
// names only the symbol maps have, and more new names than it looks for
// one by one; a hint whose names differ is not used.
func TestNameHintInternsAsTheIndex(t *testing.T) {
	names := []string{"Open", "Close", "Read", "Write", "parseHeader"}
	sym := &symIndex{idx: newNameIndex(names, 4)}
	for _, extra := range []string{"pkg.Open", "pkg.Close", "Server.Read"} {
		sym.idx.add(extra)
	}
	plain := &nameTable{names: slices.Clone(names)}
	hinted := &nameTable{names: slices.Clone(names)}
	hinted.useHint(sym)
	if hinted.hint == nil {
		t.Fatal("the hint was not taken")
	}
	asks := []string{"Read", "pkg.Close", "Open", "brandNew", "pkg.Close", "parseHeader"}
	for i := range hintedAtMost + 10 {
		asks = append(asks, fmt.Sprintf("fresh%d", i), "Write", fmt.Sprintf("fresh%d", i/2))
	}
	for _, s := range asks {
		if a, b := plain.intern(s), hinted.intern(s); a != b {
			t.Fatalf("intern(%q): %d with the table's index, %d with the hint", s, a, b)
		}
	}
	if !slices.Equal(plain.names, hinted.names) {
		t.Fatalf("names differ:\n%v\n%v", plain.names, hinted.names)
	}
	if hinted.hint != nil {
		t.Error("the hint is still used past the names it looks for one by one")
	}
	other := &nameTable{names: []string{"Open", "Shut"}}
	other.useHint(sym)
	if other.hint != nil {
		t.Error("a hint with other names was taken")
	}
}
