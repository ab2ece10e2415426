package semantic

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// TestCacheFileRoundTrip: a store saved and opened again (its vectors
// read in place from the mapped file) has the same model, files and
// vectors, embeds a question the same way and ranks the same hits; it
// syncs with nothing to do; a save removes the earlier versions' file.
func TestCacheFileRoundTrip(t *testing.T) {
	ctx := context.Background()
	x, _ := indexFiles(t, topics())
	snap := snapshot(t, x)
	s, _, err := Build(ctx, snap, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, oldCacheFile), []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, CacheFile)
	if err := Save(path, s); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, oldCacheFile)); !os.IsNotExist(err) {
		t.Errorf("the earlier versions' cache file is still there (%v)", err)
	}
	r := readStore(path)
	if r == nil {
		t.Fatal("the saved store cannot be read back")
	}
	if r.model.src == nil {
		t.Error("the model was not read in place from the file")
	}
	if !slices.Equal(r.model.Terms, s.model.Terms) || !slices.Equal(r.model.IDF, s.model.IDF) ||
		!slices.Equal(r.model.Codes, s.model.Codes) || !slices.Equal(r.model.Scales, s.model.Scales) ||
		r.model.Chunks != s.model.Chunks || r.model.BaseOOV != s.model.BaseOOV {
		t.Fatal("the model read back differs")
	}
	if !slices.Equal(r.paths, s.paths) || r.tokens != s.tokens || r.oov != s.oov || r.trainedAt != s.trainedAt || r.opts != s.opts {
		t.Fatalf("the store read back differs: %d files, %d tokens, trained at %q", len(r.paths), r.tokens, r.trainedAt)
	}
	for _, p := range s.paths {
		a, b := s.file(p), r.file(p)
		if a.Hash != b.Hash || a.Tokens != b.Tokens || a.OOV != b.OOV || !slices.Equal(a.Vecs, b.Vecs) || !slices.Equal(a.Scales, b.Scales) {
			t.Fatalf("%s: vectors read back differ", p)
		}
	}
	for _, q := range []string{"stale entries and capacity", "latitude and distance", "routing of request headers"} {
		if !slices.Equal(r.Query(q), s.Query(q)) {
			t.Errorf("%q: the question's vector differs", q)
		}
		if a, b := s.Search(snap, s.Query(q), 20, -1, nil), r.Search(snap, r.Query(q), 20, -1, nil); !slices.Equal(a, b) {
			t.Errorf("%q: different hits:\n%v\n%v", q, a, b)
		}
	}
	if n, st, err := r.Sync(ctx, snap); err != nil || n != r || st != (SyncStats{}) {
		t.Errorf("a store read back synced with work to do: %+v, %v", st, err)
	}
	// The mapping outlives the store's last user only as long as needed:
	// collecting it leaves other stores' reads intact.
	hits := r.Search(snap, r.Query("cookies"), 5, -1, nil)
	r = nil
	runtime.GC()
	runtime.GC()
	if again := readStore(path).Search(snap, s.Query("cookies"), 5, -1, nil); !slices.Equal(hits, again) {
		t.Errorf("hits after a collection differ:\n%v\n%v", hits, again)
	}
}

// TestCacheFileDamaged: a flipped byte anywhere, a truncated file, another
// version or no file at all gives no store (it is recomputed), never a
// wrong one.
func TestCacheFileDamaged(t *testing.T) {
	x, _ := indexFiles(t, topics())
	s, _, err := Build(context.Background(), snapshot(t, x), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Unmarshal(slices.Clone(b)); err != nil {
		t.Fatalf("the intact file is refused: %v", err)
	}
	// Every byte of the preamble and header, then a sample of the rest.
	for i := 0; i < len(b); i += 1 + i/64 {
		bad := slices.Clone(b)
		bad[i] ^= 0x10
		if _, err := Unmarshal(bad); err == nil {
			t.Fatalf("a flipped byte at %d of %d went unnoticed", i, len(b))
		}
	}
	for _, n := range []int{0, 7, preambleSize, len(b) / 2, len(b) - 1} {
		if _, err := Unmarshal(slices.Clone(b[:n])); err == nil {
			t.Errorf("a file truncated to %d bytes went unnoticed", n)
		}
	}
	if readStore(filepath.Join(t.TempDir(), CacheFile)) != nil || readStore("") != nil {
		t.Error("a missing file gave a store")
	}
}
