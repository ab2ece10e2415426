package index

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestContentVerdictsKept: a file left out for its content (here binary)
// is not read again while its size and modification time hold — neither
// by a warm open nor by a refresh of the open index: given other content
// of the same size under the old mtime, it stays out. Touched (a new
// mtime), it is judged again and indexed. A damaged verdicts file is
// ignored: the walk judges the files again.
func TestContentVerdictsKept(t *testing.T) {
	ctx := context.Background()
	opts := testOptions(t)
	x, root := openFixture(t, opts)
	blob := filepath.Join(root, "blob.go")
	if err := os.WriteFile(blob, []byte("package a\x00\x01"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if st := x.Stats(); st.Skipped["binary"] != 1 {
		t.Fatalf("the binary file is not left out: %v", st.Skipped)
	}
	if x.verdicts["blob.go"].reason != "binary" {
		t.Fatalf("no verdict kept for blob.go: %v", x.verdicts)
	}
	// Same size, same mtime, text now: the verdict holds.
	fi, _ := os.Stat(blob)
	if err := os.WriteFile(blob, []byte("package a\n/"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(blob, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	indexed := func(x *Index) bool {
		s, release := x.Snapshot()
		defer release()
		_, ok := s.Stat("blob.go")
		return ok
	}
	if st, err := x.Refresh(ctx); err != nil || st.Skipped["binary"] != 1 || indexed(x) {
		t.Fatalf("a refresh read the file again: %v, skipped %v", err, st.Skipped)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	y, err := Open(ctx, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	if st := y.Stats(); st.Mode != "open" || st.Skipped["binary"] != 1 || indexed(y) {
		t.Fatalf("a warm open read the file again: mode %s, skipped %v", st.Mode, st.Skipped)
	}
	// Touched: judged again, and now it is text.
	later := fi.ModTime().Add(2 * time.Second)
	if err := os.Chtimes(blob, later, later); err != nil {
		t.Fatal(err)
	}
	if st, err := y.Refresh(ctx); err != nil || st.Skipped["binary"] != 0 || !indexed(y) {
		t.Fatalf("a touched file was not judged again: %v, skipped %v", err, st.Skipped)
	}
	if _, ok := y.verdicts["blob.go"]; ok {
		t.Error("the stale verdict is still kept")
	}
	// A damaged file is not trusted: back to binary on disk (same size as
	// the text, an old mtime), the verdict file garbled, the open judges it.
	if err := os.WriteFile(blob, []byte("package a\x00\x01"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := y.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	gen := y.gen
	if err := y.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(gen, verdictsName))
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x20
	if err := os.WriteFile(filepath.Join(gen, verdictsName), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if readVerdicts(gen) != nil {
		t.Fatal("a damaged verdicts file was read")
	}
	z, err := Open(ctx, root, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	if st := z.Stats(); st.Skipped["binary"] != 1 || indexed(z) || z.verdicts["blob.go"].reason != "binary" {
		t.Fatalf("after a damaged verdicts file: skipped %v, verdicts %v", st.Skipped, z.verdicts)
	}
}
