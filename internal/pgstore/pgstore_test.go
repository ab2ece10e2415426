package pgstore

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/index/chunk"
	"github.com/ctxls/ctxls/internal/pgstore/pgtest"
)

// tree writes files into a new directory.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, text := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// localSnapshot indexes root on disk and returns the index's snapshot,
// released and closed when the test ends.
func localSnapshot(t *testing.T, root string) *index.Snapshot {
	t.Helper()
	x, err := index.Open(context.Background(), root, index.Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	snap, release := x.Snapshot()
	t.Cleanup(release)
	return snap
}

// publishTree indexes root and publishes it as repo.
func publishTree(t *testing.T, s *Store, repo, root string) PublishStats {
	t.Helper()
	ctx := context.Background()
	snap := localSnapshot(t, root)
	st, err := s.Publish(ctx, repo, snap, PublishOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// openIndex builds the index of a checkout from its stored chunks.
func openIndex(t *testing.T, co *Checkout) *index.Index {
	t.Helper()
	x, err := index.Open(context.Background(), co.Root, index.Options{CacheDir: co.IndexDir, Lister: co.Lister(), Files: co.Files(), NewChunker: co.NewChunker, ConfigKey: ConfigKey})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

func open(t *testing.T, url string) *Store {
	t.Helper()
	s, err := Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// A token reads the repositories it grants and no other: another
// repository is refused exactly as one that does not exist.
func TestTokenGrantsOnlyItsRepos(t *testing.T) {
	ctx := context.Background()
	s := open(t, pgtest.Start(t).NewDatabase(t, "tokens"))
	for _, r := range []string{"team/a", "team/b", "other/c"} {
		publishTree(t, s, r, tree(t, map[string]string{"main.go": "package main\n\n// " + r + " secret sauce\nfunc main() {}\n"}))
	}
	tok, err := s.CreateToken(ctx, "bot-a", []string{"team/a"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateToken(ctx, "bot-a", []string{"team/b"}); err == nil {
		t.Fatal("a second token with the same name was made")
	}
	g, err := s.Authorize(ctx, tok)
	if err != nil {
		t.Fatal(err)
	}
	if !g.Allows("team/a") || g.Allows("team/b") || g.Allows("other/c") {
		t.Fatalf("grant %+v", g)
	}
	list, err := s.Repos(ctx, g)
	if err != nil || len(list) != 1 || list[0].Name != "team/a" {
		t.Fatalf("repos of the token: %+v, %v", list, err)
	}
	cache := t.TempDir()
	co, err := s.Checkout(ctx, "team/a", cache, g.Allows)
	if err != nil {
		t.Fatal(err)
	}
	co.Close()
	_, errB := s.Checkout(ctx, "team/b", cache, g.Allows)
	_, errZ := s.Checkout(ctx, "team/zzz", cache, g.Allows)
	if !errors.Is(errB, ErrNoRepo) || !errors.Is(errZ, ErrNoRepo) || strings.Replace(errB.Error(), "team/b", "X", 1) != strings.Replace(errZ.Error(), "team/zzz", "X", 1) {
		t.Fatalf("refusals differ or are not ErrNoRepo: %v / %v", errB, errZ)
	}
	if ents, _ := os.ReadDir(cache); len(ents) != 1 {
		t.Fatalf("a refused checkout left files: %d entries", len(ents))
	}
	if _, err := s.Authorize(ctx, tok+"x"); !errors.Is(err, ErrBadToken) {
		t.Fatalf("a wrong token: %v", err)
	}
	if err := s.RevokeToken(ctx, "bot-a"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authorize(ctx, tok); !errors.Is(err, ErrBadToken) {
		t.Fatalf("a revoked token: %v", err)
	}
	all, err := s.CreateToken(ctx, "indexer", []string{AllRepos})
	if err != nil {
		t.Fatal(err)
	}
	if g, _ := s.Authorize(ctx, all); !g.Allows("other/c") {
		t.Fatal("'*' does not grant every repository")
	}
}

// A damaged blob is an error, never content.
func TestDamagedBlob(t *testing.T) {
	ctx := context.Background()
	s := open(t, pgtest.Start(t).NewDatabase(t, "damage"))
	publishTree(t, s, "r", tree(t, map[string]string{"a.go": "package a\n\nfunc A() int { return 1 }\n"}))
	if _, err := s.pool.Exec(ctx, "UPDATE ctxls_blobs SET data = $1 WHERE size < 100", s.codec.compress([]byte("package a\n\nfunc A() int { return 2 }\n"))); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Checkout(ctx, "r", t.TempDir(), nil); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("checkout of a damaged blob: %v", err)
	}
}

// The chunks a checkout's index is built from are the publisher's: same
// files, same chunks, same search results; a later generation updates
// only what changed.
func TestCheckoutIndexEqualsLocal(t *testing.T) {
	ctx := context.Background()
	s := open(t, pgtest.Start(t).NewDatabase(t, "checkout"))
	files := map[string]string{
		"pkg/a.go":     "package pkg\n\n// Alpha adds.\nfunc Alpha(x int) int { return x + 1 }\n\n// Beta calls Alpha.\nfunc Beta() int { return Alpha(2) }\n",
		"pkg/b.py":     "def gamma(x):\n    return x * 2\n\n\nclass Delta:\n    def run(self):\n        return gamma(3)\n",
		"README.md":    "# Title\n\nSome words about alpha and gamma.\n",
		"copy/a.go":    "package pkg\n\n// Alpha adds.\nfunc Alpha(x int) int { return x + 1 }\n\n// Beta calls Alpha.\nfunc Beta() int { return Alpha(2) }\n",
		"deep/x/y/z.c": "int zeta(void) { return 7; }\n",
	}
	root := tree(t, files)
	lsnap := localSnapshot(t, root)
	if _, err := s.Publish(ctx, "r", lsnap, PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	co, err := s.Checkout(ctx, "r", t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer co.Close()
	if co.Written != len(files) {
		t.Fatalf("wrote %d files, want %d", co.Written, len(files))
	}
	rsnap, rrelease := openIndex(t, co).Snapshot()
	defer rrelease()
	if lsnap.StateRoot() != rsnap.StateRoot() {
		t.Fatal("state roots differ")
	}
	for _, p := range lsnap.Paths() {
		lc, rc := lsnap.ChunksOf(p), rsnap.ChunksOf(p)
		if len(lc) != len(rc) {
			t.Fatalf("%s: %d chunks, want %d", p, len(rc), len(lc))
		}
		for i := range lc {
			if !chunkEqual(lc[i].Chunk, rc[i].Chunk) {
				t.Fatalf("%s chunk %d: %+v, want %+v", p, i, rc[i].Chunk, lc[i].Chunk)
			}
		}
	}
	for _, q := range []string{"alpha", "gamma run", "zeta"} {
		lh, err1 := lsnap.Search(ctx, index.Query{Text: q}, 10)
		rh, err2 := rsnap.Search(ctx, index.Query{Text: q}, 10)
		if err1 != nil || err2 != nil || len(lh) == 0 || len(lh) != len(rh) {
			t.Fatalf("search %q: %d / %d hits, %v %v", q, len(lh), len(rh), err1, err2)
		}
		for i := range lh {
			if lh[i].ID != rh[i].ID || lh[i].Score != rh[i].Score {
				t.Fatalf("search %q hit %d: %+v, want %+v", q, i, rh[i], lh[i])
			}
		}
	}
}

func chunkEqual(a, b chunk.Chunk) bool { return reflect.DeepEqual(a, b) }

// Side files are cut so that an edit changes the blocks around it only.
func TestSplitBlocksIsLocal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 4<<20)
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	edited := bytes.Clone(b[:2<<20])
	edited = append(edited, []byte("an insertion in the middle")...)
	edited = append(edited, b[2<<20:]...)
	x, err := splitBlocks(b)
	if err != nil {
		t.Fatal(err)
	}
	y, err := splitBlocks(edited)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bytes.Join(x, nil), b) || !bytes.Equal(bytes.Join(y, nil), edited) {
		t.Fatal("blocks do not make the file")
	}
	seen := map[Hash]bool{}
	for _, blk := range x {
		if len(blk) < blockMin && &blk[0] != &x[len(x)-1][0] || len(blk) > blockMax {
			t.Fatalf("block of %d bytes", len(blk))
		}
		seen[hashOf(blk)] = true
	}
	var fresh int
	for _, blk := range y {
		if !seen[hashOf(blk)] {
			fresh += len(blk)
		}
	}
	if fresh > 2*blockMax {
		t.Fatalf("an insertion made %d bytes of new blocks", fresh)
	}
}

// A manifest that names a path outside the tree is refused.
func TestManifestPaths(t *testing.T) {
	for _, p := range []string{"../x", "/etc/passwd", "a/../../b", "a//b", "", ".", "a\\b", "./a"} {
		m := Manifest{Format: manifestFormat, Files: []FileEntry{{Path: p}}}
		if _, err := decodeManifest(m.encode()); err == nil {
			t.Errorf("path %q accepted", p)
		}
	}
	for _, n := range []string{"", "/a", ".a", "a//b", "a/", "a b", "a\x00", strings.Repeat("a", 201)} {
		if CheckRepoName(n) == nil {
			t.Errorf("repository name %q accepted", n)
		}
	}
	for _, n := range []string{"a", "org/repo", "Org.Name/re_po-2"} {
		if err := CheckRepoName(n); err != nil {
			t.Errorf("repository name %q refused: %v", n, err)
		}
	}
}

// A standby answers checkouts and refuses publishes; with the primary
// stopped it still answers; the primary back, publishing works again.
func TestStandby(t *testing.T) {
	ctx := context.Background()
	primary := pgtest.Start(t)
	url := primary.NewDatabase(t, "ha")
	s := open(t, url)
	root := tree(t, map[string]string{"a.go": "package a\n\nfunc A() {}\n"})
	publishTree(t, s, "r", root)
	standby := pgtest.StartStandby(t, primary)
	var ro *Store
	deadline := time.Now().Add(30 * time.Second)
	for {
		var err error
		if ro, err = Open(ctx, standby.URL("ha")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	defer ro.Close()
	snap := localSnapshot(t, root)
	if _, err := ro.Publish(ctx, "r2", snap, PublishOptions{}); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("publish on a standby: %v", err)
	}
	primary.Stop()
	co, err := ro.Checkout(ctx, "r", t.TempDir(), nil)
	if err != nil {
		t.Fatalf("checkout from the standby, primary down: %v", err)
	}
	co.Close()
	if _, err := s.Publish(ctx, "r2", snap, PublishOptions{}); err == nil {
		t.Fatal("published with the primary down")
	}
	primary.Start()
	if _, err := s.Publish(ctx, "r2", snap, PublishOptions{}); err != nil {
		t.Fatalf("publish after the primary came back: %v", err)
	}
}

// The stored form of chunks reads back to the same chunks and counts,
// and a damaged one is an error, never chunks.
func TestChunksRoundTrip(t *testing.T) {
	sc := StoredChunks{
		Chunks: []chunk.Chunk{
			{Language: "go", Kind: "function", StartByte: 10, EndByte: 90, StartLine: 3, EndLine: 7, Symbol: "F", QualifiedName: "p.F",
				Signature: "func F()", SigEndLine: 3, Doc: "// F does.", DocStartLine: 2, Defines: []string{"F"}, References: []string{"G", "H"},
				TrackingHash: "00112233445566778899aabbccddeeff", ContentHash: "ffeeddccbbaa99887766554433221100"},
			{Language: "go", Kind: "window", StartByte: 90, EndByte: 91, StartLine: 8, EndLine: 8, Part: 2},
		},
		Encodings: []string{"cl100k_base", "o200k_base"},
		Tokens:    [][]int32{{12, 1}, {11, 1}},
	}
	b := encodeChunks(sc)
	got, err := decodeChunks(b, "a/b.go")
	if err != nil {
		t.Fatal(err)
	}
	for i := range sc.Chunks {
		sc.Chunks[i].Path = "a/b.go"
	}
	if !reflect.DeepEqual(got, sc) {
		t.Fatalf("got %+v\nwant %+v", got, sc)
	}
	for cut := range len(b) - 1 {
		if _, err := decodeChunks(b[:cut], "x"); err == nil {
			t.Fatalf("a blob cut at %d of %d bytes decoded", cut, len(b))
		}
	}
}

// A replica's role may only read: it opens the store, lists and checks
// out repositories, and a publish through it is refused.
func TestReadOnlyRole(t *testing.T) {
	ctx := context.Background()
	srv := pgtest.Start(t)
	url := srv.NewDatabase(t, "ro")
	s := open(t, url)
	root := tree(t, map[string]string{"a.go": "package a\n\nfunc A() {}\n"})
	publishTree(t, s, "r", root)
	if _, err := s.pool.Exec(ctx, "CREATE ROLE reader LOGIN; GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader"); err != nil {
		t.Fatal(err)
	}
	ro := open(t, strings.Replace(url, "ctxls@", "reader@", 1))
	if list, err := ro.Repos(ctx, nil); err != nil || len(list) != 1 {
		t.Fatalf("repos through a read-only role: %v %v", list, err)
	}
	co, err := ro.Checkout(ctx, "r", t.TempDir(), nil)
	if err != nil {
		t.Fatalf("checkout through a read-only role: %v", err)
	}
	co.Close()
	snap := localSnapshot(t, root)
	if _, err := ro.Publish(ctx, "r2", snap, PublishOptions{}); err == nil {
		t.Fatal("published through a read-only role")
	}
}
