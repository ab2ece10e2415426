package index

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// An index's image, imported into another directory for a copy of the
// tree at another path, opens without a build and answers the same; a
// file changed in the copy is refreshed.
func TestImageImport(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{
		"a/alpha.go": "package a\n\n// Alpha adds one.\nfunc Alpha(x int) int { return x + 1 }\n",
		"b/beta.py":  "def beta(y):\n    return y * 2\n",
		"README.md":  "# Gamma\n\nAlpha and beta.\n",
	}
	src := t.TempDir()
	writeTree(t, src, files)
	x, err := Open(ctx, src, Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	paths, err := x.ImageFiles(ctx)
	if err != nil || len(paths) < 4 {
		t.Fatalf("image files %v, %v", paths, err)
	}
	img := map[string][]byte{}
	for name, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		img[name] = b
	}
	dst := t.TempDir()
	writeTree(t, dst, files)
	// The copy's files keep the source's times, as a store's lister
	// gives the published ones.
	for p := range files {
		fi, _ := os.Stat(filepath.Join(src, p))
		os.Chtimes(filepath.Join(dst, p), fi.ModTime(), fi.ModTime())
	}
	dir := filepath.Join(t.TempDir(), "index")
	if err := ImportImage(dir, dst, Options{}, img); err != nil {
		t.Fatal(err)
	}
	if err := ImportImage(dir, dst, Options{}, img); err == nil {
		t.Fatal("an image imported over an index")
	}
	y, err := Open(ctx, dst, Options{CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if st := y.Stats(); st.Mode != "open" && st.Mode != "refresh" || st.Changed != 0 {
		t.Fatalf("the imported image was not served as it is: %+v", st)
	}
	a, ra := x.Snapshot()
	b, rb := y.Snapshot()
	for _, q := range []string{"alpha", "beta gamma"} {
		ha, _ := a.Search(ctx, Query{Text: q}, 10)
		hb, _ := b.Search(ctx, Query{Text: q}, 10)
		if len(ha) == 0 || len(ha) != len(hb) || ha[0].ID != hb[0].ID || ha[0].Score != hb[0].Score {
			t.Fatalf("search %q: %+v vs %+v", q, ha, hb)
		}
	}
	ra()
	rb()
	y.Close()
	// A file changed in the copy: the next open refreshes it.
	writeTree(t, dst, map[string]string{"a/alpha.go": "package a\n\n// Omega replaces alpha.\nfunc Omega() {}\n"})
	z, err := Open(ctx, dst, Options{CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	if st := z.Stats(); st.Changed != 1 {
		t.Fatalf("after a change: %+v", st)
	}
	// Files that are not an index's are refused.
	bad := map[string][]byte{"COMPLETE": img["COMPLETE"], "../escape": []byte("x")}
	if err := ImportImage(filepath.Join(t.TempDir(), "i2"), dst, Options{}, bad); err == nil {
		t.Fatal("an image with a file outside the generation was imported")
	}
}
