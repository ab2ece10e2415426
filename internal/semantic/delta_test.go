package semantic

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sameStore fails unless a and b hold the same files, each with the same
// content hash, counts and vectors, the same model and the same sums.
func sameStore(t *testing.T, what string, a, b *Store) {
	t.Helper()
	if !slices.Equal(a.paths, b.paths) || a.tokens != b.tokens || a.oov != b.oov || a.trainedAt != b.trainedAt || a.opts != b.opts || a.ModelID() != b.ModelID() {
		t.Fatalf("%s: %d files %v, %d tokens, %d unknown; want %d files %v, %d tokens, %d unknown", what, len(a.paths), a.paths, a.tokens, a.oov, len(b.paths), b.paths, b.tokens, b.oov)
	}
	for i, p := range a.paths {
		x, y := a.order[i], b.order[i]
		if x.Hash != y.Hash || x.Tokens != y.Tokens || x.OOV != y.OOV || x.Fresh != y.Fresh || !slices.Equal(x.Vecs, y.Vecs) || !slices.Equal(x.Scales, y.Scales) {
			t.Fatalf("%s: %s: the vectors differ", what, p)
		}
	}
}

// TestVectorDelta: a store synced from its cache file and saved writes
// only the files it changed beside the file (the delta), which stays as
// it was; read back, the file with the delta over it is the store that
// was saved — the same as the store written whole and read back — and
// ranks the same hits. Further changes replace the delta; a delta of
// another cache file is not applied; Fold writes the whole store and
// removes the delta; a delta past its share of the vectors is written
// whole instead. A damaged delta is not applied.
func TestVectorDelta(t *testing.T) {
	ctx := context.Background()
	x, root := indexFiles(t, topics())
	dir := t.TempDir()
	path := filepath.Join(dir, CacheFile)
	// The model is kept however many files change (the last step changes
	// more than the delta's share of them).
	opts := testOptions()
	opts.RetrainFiles, opts.RetrainDrift = 1, 1
	if _, _, err := Load(ctx, snapshot(t, x), path, opts, false, nil); err != nil {
		t.Fatal(err)
	}
	base, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + DeltaSuffix); !os.IsNotExist(err) {
		t.Fatalf("a store built whole left a delta (%v)", err)
	}
	edits := []func(){
		func() {
			write(t, x, root, "web/f1.go", "package web\n\nfunc cookieJar9(statusCode int) int {\n\treturn statusCode\n}\n")
			write(t, x, root, "geo/new.go", "package geo\n\n// latLng2 handles the projection.\nfunc latLng2(coordPair int) int { return coordPair }\n")
			if err := os.Remove(filepath.Join(root, "cache", "f2.go")); err != nil {
				t.Fatal(err)
			}
			if err := x.Update(ctx, "cache/f2.go", nil); err != nil {
				t.Fatal(err)
			}
		},
		func() {
			write(t, x, root, "parse/f3.go", "package parse\n\n// parseExpr7 handles the grammar and the tokens.\nfunc parseExpr7(tokenStream int) int { return tokenStream }\n")
			write(t, x, root, "aaa/first.go", "package aaa\n\n// evictOldest3 handles the eviction.\nfunc evictOldest3(lruList int) int { return lruList }\n")
			if err := os.Remove(filepath.Join(root, "geo", "new.go")); err != nil {
				t.Fatal(err)
			}
			if err := x.Update(ctx, "geo/new.go", nil); err != nil {
				t.Fatal(err)
			}
		},
	}
	for round, edit := range edits {
		edit()
		snap := snapshot(t, x)
		s, st, err := Load(ctx, snap, path, opts, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		if st.Trained || st.Embedded == 0 {
			t.Fatalf("round %d: sync stats %+v, want files embedded with the kept model", round, st)
		}
		if now, _ := os.ReadFile(path); !bytes.Equal(now, base) {
			t.Fatalf("round %d: the cache file was written again (%d bytes, %d before)", round, len(now), len(base))
		}
		d, err := os.Stat(path + DeltaSuffix)
		if err != nil {
			t.Fatalf("round %d: no delta written: %v", round, err)
		}
		if d.Size() >= int64(len(base))/2 {
			t.Errorf("round %d: the delta has %d bytes, the whole file %d", round, d.Size(), len(base))
		}
		r := readStore(path)
		if r == nil {
			t.Fatalf("round %d: the store cannot be read back", round)
		}
		sameStore(t, "read back with the delta", r, s)
		whole := filepath.Join(t.TempDir(), CacheFile)
		if err := Save(whole, s); err != nil {
			t.Fatal(err)
		}
		sameStore(t, "read back with the delta, against written whole", r, readStore(whole))
		for _, q := range []string{"cookies and routing", "latitude projection", "eviction of stale entries", "grammar tokens"} {
			if a, b := r.Search(snap, r.Query(q), 20, -1, nil), s.Search(snap, s.Query(q), 20, -1, nil); !slices.Equal(a, b) {
				t.Errorf("round %d: %q: hits differ:\n%v\n%v", round, q, a, b)
			}
		}
		if n, st, err := r.Sync(ctx, snap); err != nil || n != r || st != (SyncStats{}) {
			t.Errorf("round %d: the store read back synced with work to do: %+v, %v", round, st, err)
		}
	}

	// A delta of another cache file is not applied.
	delta, err := os.ReadFile(path + DeltaSuffix)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), CacheFile)
	fresh, _, err := Build(ctx, snapshot(t, x), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := Save(other, fresh); err != nil {
		t.Fatal(err)
	}
	alone := readStore(other)
	if err := os.WriteFile(other+DeltaSuffix, delta, 0o600); err != nil {
		t.Fatal(err)
	}
	sameStore(t, "a delta of another file", readStore(other), alone)

	// A damaged delta is not applied either; the same delta intact is.
	same := filepath.Join(t.TempDir(), CacheFile)
	if err := os.WriteFile(same, base, 0o600); err != nil {
		t.Fatal(err)
	}
	baseAlone := readStore(same)
	damaged := slices.Clone(delta)
	damaged[len(damaged)/2] ^= 0x10
	if err := os.WriteFile(same+DeltaSuffix, damaged, 0o600); err != nil {
		t.Fatal(err)
	}
	sameStore(t, "a damaged delta", readStore(same), baseAlone)
	if err := os.WriteFile(same+DeltaSuffix, delta, 0o600); err != nil {
		t.Fatal(err)
	}
	sameStore(t, "the delta intact", readStore(same), readStore(path))

	// Fold: the whole store in the cache file, no delta.
	want := readStore(path)
	if err := Fold(path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + DeltaSuffix); !os.IsNotExist(err) {
		t.Errorf("Fold left the delta (%v)", err)
	}
	got := readStore(path)
	sameStore(t, "folded", got, want)
	if got.base == nil {
		t.Fatal("the folded store has no cache file to go back to")
	}

	// A change past the delta's share is written whole.
	folded, _ := os.ReadFile(path)
	for i := 2; i < 8; i++ {
		var b strings.Builder
		b.WriteString("package web\n")
		for j := range 4 {
			fmt.Fprintf(&b, "\n// routeTable%d%d handles the routing.\nfunc routeTable%d%d(httpHeader int) int {\n\treturn httpHeader\n}\n", i, j, i, j)
		}
		write(t, x, root, fmt.Sprintf("web/f%d.go", i), b.String())
	}
	s, st, err := Load(ctx, snapshot(t, x), path, opts, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Trained {
		t.Fatal("the model was trained again: the test wants it kept")
	}
	if now, _ := os.ReadFile(path); bytes.Equal(now, folded) {
		t.Error("a change past the delta's share was written as a delta")
	}
	if _, err := os.Stat(path + DeltaSuffix); !os.IsNotExist(err) {
		t.Errorf("the whole write left a delta (%v)", err)
	}
	sameStore(t, "written whole after a large change", readStore(path), s)
}
