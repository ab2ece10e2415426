package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/index/chunk"
	"github.com/ctxls/ctxls/internal/tokens"
)

// countingOptions are testOptions whose chunker counts the files it chunks.
func countingOptions(t testing.TB) (Options, *atomic.Int64) {
	opts := testOptions(t)
	calls := new(atomic.Int64)
	opts.NewChunker = func() (Chunker, error) { return blockChunker{calls: calls}, nil }
	return opts, calls
}

func mustOpen(t testing.TB, root string, opts Options) *Index {
	t.Helper()
	x, err := Open(ctx, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func liveGen(t testing.TB, dir string) string {
	t.Helper()
	gen, err := readCurrent(dir)
	if err != nil || gen == "" {
		t.Fatalf("no live generation in %s: %v", dir, err)
	}
	return gen
}

func TestReopenServesCachedIndex(t *testing.T) {
	opts, calls := countingOptions(t)
	root := t.TempDir()
	writeTree(t, root, fixture())
	st, err := Build(ctx, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode != "build" || st.Files != 6 || st.Read != 6 || st.Chunks == 0 || st.IndexBytes == 0 || st.Reason != "no index" {
		t.Fatalf("first build stats %+v", st)
	}
	built := calls.Load()
	x := mustOpen(t, root, opts)
	defer x.Close()
	st2 := x.Stats()
	if st2.Mode != "open" || st2.Read != 0 || st2.Changed != 0 || calls.Load() != built {
		t.Fatalf("reopen stats %+v, chunker calls %d→%d", st2, built, calls.Load())
	}
	if st2.StateRoot != st.StateRoot || st2.Chunks != st.Chunks {
		t.Errorf("state %s/%d, want %s/%d", st2.StateRoot, st2.Chunks, st.StateRoot, st.Chunks)
	}
	if got := hitPaths(t, x, Query{Identifiers: []string{"parseHTTPRequest"}}); len(got) == 0 || got[0] != "server/http.go" {
		t.Errorf("search on reopened index: %v", got)
	}
	s, release := x.Snapshot()
	defer release()
	if d := s.Defs("Stitch"); len(d) != 1 {
		t.Errorf("symbol table after reload: %v", d)
	}
	if n, ok := s.TokenCount(s.Defs("Stitch")[0], "words"); !ok || n == 0 {
		t.Errorf("token counts after reload: %d %v", n, ok)
	}
	ents, _ := os.ReadDir(opts.CacheDir)
	gens := 0
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), genPrefix) {
			gens++
		}
	}
	if gens != 1 {
		t.Errorf("%d generations in the cache directory, want 1", gens)
	}
}

func TestRefreshRereadsOnlyChangedFiles(t *testing.T) {
	opts, calls := countingOptions(t)
	root := t.TempDir()
	writeTree(t, root, fixture())
	if _, err := Build(ctx, root, opts); err != nil {
		t.Fatal(err)
	}
	writeTree(t, root, map[string]string{
		"server/http.go": "package server\n\nfunc serveframes() {}\n", // changed
		"added/new.go":   "package added\n\nfunc Fresh() {}\n",        // added
	})
	os.Remove(filepath.Join(root, "README.md")) // removed
	// touched: new time, same content
	future := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(root, "ranges/stitch.go"), future, future)
	calls.Store(0)
	x := mustOpen(t, root, opts)
	st := x.Stats()
	// Read: the changed, the added and the touched file, no other.
	if st.Mode != "refresh" || st.Read != 3 || st.Changed != 2 || st.Removed != 1 || st.Files != 6 {
		t.Errorf("refresh stats %+v", st)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("chunked %d files, want 2 (the changed and the added)", n)
	}
	if got := hitPaths(t, x, Query{Text: "serveframes Fresh"}); !slices.Equal(got, []string{"added/new.go", "server/http.go"}) {
		t.Errorf("refreshed content: %v", got)
	}
	if got := hitPaths(t, x, Query{Text: "readwire"}); len(got) != 0 {
		t.Errorf("old content still served: %v", got)
	}
	x.Close()
	// Nothing changed since: no refresh work, the touched file's new time
	// was recorded.
	calls.Store(0)
	x = mustOpen(t, root, opts)
	defer x.Close()
	if st := x.Stats(); st.Mode != "open" || st.Read != 0 || calls.Load() != 0 {
		t.Errorf("second reopen: %+v, %d chunked", st, calls.Load())
	}
	if _, err := x.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestDamagedIndexIsRebuilt(t *testing.T) {
	cases := []struct {
		name, reason string
		damage       func(t *testing.T, dir, gen string)
	}{
		{"missing marker", "incomplete", func(t *testing.T, dir, gen string) {
			os.Remove(filepath.Join(gen, completeName))
		}},
		{"old schema", "schema version", func(t *testing.T, dir, gen string) {
			os.WriteFile(filepath.Join(gen, schemaName), []byte("0\n"), 0o644)
		}},
		{"old schema in marker", "schema version", func(t *testing.T, dir, gen string) {
			b, _ := os.ReadFile(filepath.Join(gen, completeName))
			os.WriteFile(filepath.Join(gen, completeName), []byte(strings.Replace(string(b), fmt.Sprintf(`"schema": %d`, schemaVersion), `"schema": 1`, 1)), 0o644)
		}},
		{"truncated tables", "damaged", func(t *testing.T, dir, gen string) {
			p := filepath.Join(gen, tablesName)
			fi, _ := os.Stat(p)
			os.Truncate(p, fi.Size()/2)
		}},
		{"flipped byte in tables", "damaged", func(t *testing.T, dir, gen string) {
			p := filepath.Join(gen, tablesName)
			b, _ := os.ReadFile(p)
			b[len(b)/3] ^= 0x40
			os.WriteFile(p, b, 0o644)
		}},
		{"truncated lexical store", "damaged", func(t *testing.T, dir, gen string) {
			n := 0
			filepath.WalkDir(filepath.Join(gen, postingsName), func(p string, d os.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() {
					os.Truncate(p, 0)
					n++
				}
				return nil
			})
			if n == 0 {
				t.Fatal("no lexical store files")
			}
		}},
		{"lexical store gone", "damaged", func(t *testing.T, dir, gen string) {
			os.RemoveAll(filepath.Join(gen, postingsName))
		}},
		{"bad CURRENT", "damaged", func(t *testing.T, dir, gen string) {
			os.WriteFile(filepath.Join(dir, currentName), []byte("../../etc\n"), 0o644)
		}},
		{"generation gone", "no index", func(t *testing.T, dir, gen string) {
			os.RemoveAll(gen)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := testOptions(t)
			root := t.TempDir()
			writeTree(t, root, fixture())
			first, err := Build(ctx, root, opts)
			if err != nil {
				t.Fatal(err)
			}
			c.damage(t, opts.CacheDir, liveGen(t, opts.CacheDir))
			x := mustOpen(t, root, opts)
			st := x.Stats()
			if st.Mode != "build" || !strings.Contains(st.Reason, c.reason) {
				t.Errorf("stats after damage: mode %q reason %q, want a build because %q", st.Mode, st.Reason, c.reason)
			}
			if st.StateRoot != first.StateRoot || st.Chunks != first.Chunks {
				t.Errorf("rebuilt state %s/%d, want %s/%d", st.StateRoot, st.Chunks, first.StateRoot, first.Chunks)
			}
			if got := hitPaths(t, x, Query{Identifiers: []string{"Stitch"}}); len(got) == 0 {
				t.Error("rebuilt index finds nothing")
			}
			x.Close()
			x = mustOpen(t, root, opts)
			if st := x.Stats(); st.Mode != "open" {
				t.Errorf("after the rebuild: mode %q (%s)", st.Mode, st.Reason)
			}
			x.Close()
		})
	}
}

func TestOptionsChangeRebuilds(t *testing.T) {
	opts := testOptions(t)
	root := t.TempDir()
	writeTree(t, root, fixture())
	if _, err := Build(ctx, root, opts); err != nil {
		t.Fatal(err)
	}
	opts.Counters = map[string]tokens.Counter{"words": wordCounter{}, "w2": wordCounter{}}
	st, err := Build(ctx, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode != "build" || !strings.Contains(st.Reason, "encodings") {
		t.Errorf("encodings change: %+v", st)
	}
	opts.ConfigKey = "chunker v2"
	if st, _ = Build(ctx, root, opts); st.Mode != "build" || !strings.Contains(st.Reason, "configuration") {
		t.Errorf("config change: %+v", st)
	}
	opts.Rebuild = true
	if st, _ = Build(ctx, root, opts); st.Mode != "build" || st.Reason != "forced" {
		t.Errorf("forced: %+v", st)
	}
}

func TestChangesPersistThroughCheckpoint(t *testing.T) {
	opts := testOptions(t)
	x, root := openFixture(t, opts)
	gen := liveGen(t, opts.CacheDir)
	writeTree(t, root, map[string]string{"server/http.go": "package server\n\nfunc serveframes() {}\n"})
	if err := x.Update(ctx, "server/http.go", nil); err != nil {
		t.Fatal(err)
	}
	// Until the checkpoint the marker is gone: a crash now means a rebuild,
	// never tables that disagree with the lexical store.
	if _, err := os.Stat(filepath.Join(gen, completeName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("completeness marker present while the lexical store has unrecorded changes: %v", err)
	}
	if err := x.SetOverlay(ctx, "ranges/stitch.go", []byte("package ranges\n\nfunc unsavedonly() {}\n")); err != nil {
		t.Fatal(err)
	}
	if err := x.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(gen, completeName)); err != nil {
		t.Errorf("no marker after checkpoint: %v", err)
	}
	want := x.Stats().StateRoot
	_ = want
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	x = mustOpen(t, root, opts)
	defer x.Close()
	st := x.Stats()
	// The update was persisted (no rebuild); the overlay was not taken for
	// disk content: that one file is re-read.
	if st.Mode != "refresh" || st.Changed != 1 {
		t.Errorf("reopen after checkpoint: %+v", st)
	}
	if got := hitPaths(t, x, Query{Text: "serveframes"}); !slices.Equal(got, []string{"server/http.go"}) {
		t.Errorf("persisted update: %v", got)
	}
	if got := hitPaths(t, x, Query{Text: "unsavedonly"}); len(got) != 0 {
		t.Errorf("overlay of the previous process served: %v", got)
	}
	if got := hitPaths(t, x, Query{Identifiers: []string{"Stitch"}}); !slices.Contains(got, "ranges/stitch.go") {
		t.Errorf("disk content of the overlaid file: %v", got)
	}
}

func TestLockPreventsSecondWriter(t *testing.T) {
	opts := testOptions(t)
	a, root := openFixture(t, opts)
	before, _ := os.ReadDir(opts.CacheDir)

	start := time.Now()
	_, err := Open(ctx, root, opts)
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open: %v, want ErrLocked", err)
	}
	if d := time.Since(start); d < opts.LockTimeout {
		t.Errorf("gave up after %v, before the %v timeout", d, opts.LockTimeout)
	}

	popts := opts
	popts.PrivateWhenLocked = true
	b := mustOpen(t, root, popts)
	if b.Dir() == a.Dir() || !strings.Contains(b.Stats().Reason, "private") {
		t.Errorf("private index in %s (%s)", b.Dir(), b.Stats().Reason)
	}
	if err := b.Update(ctx, "server/http.go", []byte("package server\n\nfunc privateonly() {}\n")); err != nil {
		t.Fatal(err)
	}
	if got := hitPaths(t, b, Query{Text: "privateonly"}); len(got) != 1 {
		t.Errorf("private index search: %v", got)
	}
	privDir := b.Dir()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(privDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("private directory left behind: %v", err)
	}
	after, _ := os.ReadDir(opts.CacheDir)
	if len(before) != len(after) {
		t.Errorf("shared cache directory changed by the second Index: %d → %d entries", len(before), len(after))
	}
	// The first Index was not disturbed, and its directory reopens as is.
	if got := hitPaths(t, a, Query{Text: "privateonly"}); len(got) != 0 {
		t.Errorf("first index sees the private change: %v", got)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	c := mustOpen(t, root, opts)
	defer c.Close()
	if st := c.Stats(); st.Mode != "open" {
		t.Errorf("reopen after both closed: %+v", st)
	}
}

// slowChunker delays every file, to catch a background build in progress.
type slowChunker struct {
	blockChunker
	gate chan struct{}
}

func (s slowChunker) Chunk(p string, src []byte) ([]chunk.Chunk, error) {
	<-s.gate
	return s.blockChunker.Chunk(p, src)
}

func TestBackgroundBuild(t *testing.T) {
	opts := testOptions(t)
	gate := make(chan struct{})
	opts.NewChunker = func() (Chunker, error) { return slowChunker{gate: gate}, nil }
	opts.Background = true
	opts.Workers = 1
	opts.BatchSize = 1
	root := t.TempDir()
	writeTree(t, root, fixture())
	x := mustOpen(t, root, opts)
	defer x.Close()
	s, release := x.Snapshot()
	if s.Complete() || len(s.Paths()) != 0 {
		t.Errorf("snapshot during build: complete %v, %d files", s.Complete(), len(s.Paths()))
	}
	hits, err := s.Search(ctx, Query{Text: "stitch"}, 5)
	if err != nil || len(hits) != 0 {
		t.Errorf("search during build: %v %v", hits, err)
	}
	// s is still held when the build ends (and the index is reopened).
	defer func() {
		if _, err := s.Search(ctx, Query{Text: "stitch"}, 5); err != nil {
			t.Errorf("partial snapshot after the build: %v", err)
		}
		release()
	}()
	// Changes from disk during the build are applied after it; an editor
	// buffer is applied by the build's writer at once (SetOverlay returns
	// when a snapshot has it: here, once the gated chunker lets it chunk).
	overlaid := make(chan error, 1)
	go func() {
		overlaid <- x.SetOverlay(ctx, "ranges/stitch.go", []byte("package ranges\nfunc overlaidwhilebuilding() {}\n"))
	}()
	if err := x.Update(ctx, "server/http.go", []byte("package server\nfunc updatedwhilebuilding() {}\n")); err != nil {
		t.Fatal(err)
	}
	close(gate)
	if err := <-overlaid; err != nil {
		t.Fatal(err)
	}
	if err := x.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	s, release = x.Snapshot()
	defer release()
	if !s.Complete() || len(s.Paths()) != 6 {
		t.Errorf("after Wait: complete %v, %d files", s.Complete(), len(s.Paths()))
	}
	for _, w := range []string{"overlaidwhilebuilding", "updatedwhilebuilding"} {
		if hits, _ := s.Search(ctx, Query{Text: w}, 5); len(hits) != 1 {
			t.Errorf("%s: %v", w, hits)
		}
	}
}

// sleepyChunker takes 100 ms per file.
type sleepyChunker struct{ blockChunker }

func (s sleepyChunker) Chunk(p string, src []byte) ([]chunk.Chunk, error) {
	time.Sleep(100 * time.Millisecond)
	return s.blockChunker.Chunk(p, src)
}

func TestCloseCancelsBackgroundBuild(t *testing.T) {
	opts := testOptions(t)
	opts.NewChunker = func() (Chunker, error) { return sleepyChunker{}, nil }
	opts.Workers = 1
	opts.Background = true
	root := t.TempDir()
	writeTree(t, root, fixture())
	x := mustOpen(t, root, opts)
	done := make(chan error)
	go func() { done <- x.Close() }()
	select {
	case <-done:
	case <-time.After(400 * time.Millisecond):
		t.Fatal("Close waits for the whole build")
	}
	if err := x.Wait(ctx); err == nil {
		t.Error("cancelled build reported success")
	}
	if err := x.Update(ctx, "a.go", []byte("x")); !errors.Is(err, ErrClosed) {
		t.Errorf("Update after Close: %v", err)
	}
	s, release := x.Snapshot()
	defer release()
	if hits, err := s.Search(ctx, Query{Text: "x"}, 1); err != nil || len(hits) != 0 {
		t.Errorf("snapshot after Close: %v %v", hits, err)
	}
}

func TestCancelledBuildLeavesNoGeneration(t *testing.T) {
	opts := testOptions(t)
	root := t.TempDir()
	writeTree(t, root, fixture())
	cctx, cancel := context.WithCancel(ctx)
	n := 0
	opts.Progress = func(Progress) {
		if n++; n == 2 {
			cancel()
		}
	}
	if _, err := Open(cctx, root, opts); err == nil {
		t.Fatal("cancelled build succeeded")
	}
	ents, _ := os.ReadDir(opts.CacheDir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), genPrefix) || e.Name() == currentName {
			t.Errorf("left %s behind", e.Name())
		}
	}
	opts.Progress = nil
	x := mustOpen(t, root, opts)
	x.Close()
}

func TestTablesCodec(t *testing.T) {
	s, files := fixtureTables(t)
	p := filepath.Join(t.TempDir(), "t.bin")
	sym := s.base.symbols()
	if err := writeTables(p, []string{"words"}, s.names, files, sym); err != nil {
		t.Fatal(err)
	}
	nt := newNameTable()
	encs, got, gotSym, err := readTables(p, nt)
	if err != nil {
		t.Fatal(err)
	}
	if gotSym == nil || !reflect.DeepEqual(gotSym.idx.slots, sym.idx.slots) || !slices.Equal(gotSym.idx.names, sym.idx.names) ||
		!slices.Equal(gotSym.defs, sym.defs) || !slices.Equal(gotSym.refs, sym.refs) ||
		!slices.Equal(gotSym.defStart, sym.defStart) || !slices.Equal(gotSym.refStart, sym.refStart) {
		t.Fatalf("symbol index did not round-trip")
	}
	for _, name := range []string{"Stitch", "ranges.Stitch", "Clamp", "parseHTTPRequest", "nope"} {
		if !slices.Equal(gotSym.defsOf(name), sym.defsOf(name)) || !slices.Equal(gotSym.refsOf(name), sym.refsOf(name)) {
			t.Errorf("%s: defs %v refs %v after reading, %v %v before", name, gotSym.defsOf(name), gotSym.refsOf(name), sym.defsOf(name), sym.refsOf(name))
		}
	}
	if len(sym.defsOf("Clamp")) != 2 {
		t.Errorf("Clamp defs = %v", sym.defsOf("Clamp"))
	}
	if !slices.Equal(encs, []string{"words"}) || len(got) != len(files) {
		t.Fatalf("read %v, %d files", encs, len(got))
	}
	for _, f := range files {
		g := got[f.info.Path]
		if g == nil || g.info.Hash != f.info.Hash || !g.info.ModTime.Equal(f.info.ModTime) || len(g.recs()) != len(f.recs()) || g.numChunks() != len(f.recs()) || g.flenTotals() != f.flenTotals() {
			t.Fatalf("file %s: %+v vs %+v", f.info.Path, g, f.info)
		}
		if !slices.Equal(f.toks(), g.toks()) {
			t.Errorf("%s: tokens %v vs %v", f.info.Path, f.toks(), g.toks())
		}
		for i := range f.recs() {
			a, b := f.recs()[i].toChunk(f.info.Path, s.names), g.recs()[i].toChunk(f.info.Path, nt.view())
			if !reflect.DeepEqual(a, b) || f.recs()[i].flen != g.recs()[i].flen || f.recs()[i].hashes != g.recs()[i].hashes {
				t.Errorf("%s chunk %d differs:\n%+v\n%+v", f.info.Path, i, a, b)
			}
		}
	}
	b, _ := os.ReadFile(p)
	for _, at := range []int{3, len(b) / 3, len(b) / 2, len(b) - 30, len(b) - 1} {
		flipped := slices.Clone(b)
		flipped[at] ^= 0x10
		os.WriteFile(p, flipped, 0o644)
		if _, _, _, err := readTables(p, newNameTable()); !errors.Is(err, errCorrupt) {
			t.Errorf("bit flipped at %d: %v", at, err)
		}
	}
	for _, cut := range []int{0, 5, len(b) / 2, len(b) - 1} {
		os.WriteFile(p, b[:cut], 0o644)
		if _, _, _, err := readTables(p, newNameTable()); !errors.Is(err, errCorrupt) {
			t.Errorf("truncated at %d: %v", cut, err)
		}
	}
}

func TestChunkRecRoundTrip(t *testing.T) {
	nt := newNameTable()
	for _, c := range []chunk.Chunk{
		{Path: "a.go", Language: "go", Kind: chunk.KindFunction, StartByte: 3, EndByte: 40, StartLine: 2, EndLine: 5,
			Symbol: "F", QualifiedName: "a.F", Signature: "func F()", SigEndLine: 2, Doc: "// F.", DocStartLine: 1,
			Defines: []string{"F"}, References: []string{"G", "x"}, Part: 2,
			TrackingHash: "00112233445566778899aabbccddeeff", ContentHash: "ffeeddccbbaa99887766554433221100"},
		{Path: "b.txt", Language: "text", Kind: chunk.KindWindow, StartLine: 1, EndLine: 1,
			TrackingHash: "not-hex", ContentHash: "00112233445566778899AABBCCDDEEFF"},
	} {
		r := newChunkRec(&c, nt)
		nt.compact() // the lookup map is rebuilt on demand
		if got := r.toChunk(c.Path, nt.view()); !reflect.DeepEqual(got, c) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got, c)
		}
	}
}

// TestDamagedStoreNeverPanics: 64 bytes flipped at the start of any page
// of the lexical store's manifest or segment lead to a rebuild, never to
// a panic or to an index served from damaged bytes.
func TestDamagedStoreNeverPanics(t *testing.T) {
	opts := testOptions(t)
	root := t.TempDir()
	writeTree(t, root, fixture())
	first, err := Build(ctx, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"MANIFEST", "s-1.seg"} {
		damageEveryPage(t, root, opts, first, name)
	}
}

func damageEveryPage(t *testing.T, root string, opts Options, first Stats, name string) {
	bolt := filepath.Join(liveGen(t, opts.CacheDir), postingsName, name)
	good, err := os.ReadFile(bolt)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	rebuilt, rounds := 0, 0
	for off := 0; off < len(good); off += page {
		rounds++
		bolt := filepath.Join(liveGen(t, opts.CacheDir), postingsName, name)
		b := slices.Clone(good)
		for i := off; i < off+64 && i < len(b); i++ {
			b[i] ^= 0xff
		}
		if err := os.WriteFile(bolt, b, 0o600); err != nil {
			t.Fatal(err)
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("page at %d: Open panicked: %v", off, r)
				}
			}()
			x := mustOpen(t, root, opts)
			defer x.Close()
			st := x.Stats()
			if st.Mode == "build" {
				rebuilt++
			}
			if st.StateRoot != first.StateRoot || len(hitPaths(t, x, Query{Identifiers: []string{"Stitch"}})) == 0 {
				t.Fatalf("page at %d: state %s (%s), or nothing found", off, st.StateRoot, st.Reason)
			}
		}()
		// The next round damages the index as first built.
		good2, err := os.ReadFile(filepath.Join(liveGen(t, opts.CacheDir), postingsName, name))
		if err != nil {
			t.Fatal(err)
		}
		good = good2
	}
	if rebuilt != rounds {
		t.Fatalf("%s: %d of %d damaged pages led to a rebuild", name, rebuilt, rounds)
	}
}

// TestCacheDirInsideRoot: an index kept inside the tree it indexes (a CI
// job caching it in the checkout) does not index itself, in the first
// build or the refreshes after.
func TestCacheDirInsideRoot(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, fixture())
	opts := testOptions(t)
	opts.CacheDir = filepath.Join(root, ".ctxls-index")
	first, err := Build(ctx, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	if first.Files != len(fixture()) {
		t.Fatalf("%d files indexed, want the %d of the tree", first.Files, len(fixture()))
	}
	writeTree(t, root, map[string]string{"more/new.go": "package more\n"})
	x := mustOpen(t, root, opts)
	defer x.Close()
	s, release := x.Snapshot()
	defer release()
	for _, p := range s.Paths() {
		if strings.HasPrefix(p, ".ctxls-index/") {
			t.Fatalf("the index indexed itself: %s", p)
		}
	}
	if len(s.Paths()) != len(fixture())+1 {
		t.Fatalf("after a refresh: %v", s.Paths())
	}
}
