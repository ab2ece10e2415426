package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/pgstore/pgtest"
)

// The tests below play a writer of the store who is not the repository's
// publisher (another repository's indexer holds the same credential): it
// writes rows under names other publishers will use, replaces rows, and
// writes generations of its own. One honest publish repairs what it did.

// localIndex indexes root on disk and returns the index and its snapshot,
// closed and released when the test ends.
func localIndex(t *testing.T, root string) (*index.Index, *index.Snapshot) {
	t.Helper()
	x, err := index.Open(context.Background(), root, index.Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	snap, release := x.Snapshot()
	t.Cleanup(release)
	return x, snap
}

// plant writes the row of blob h holding content, whatever h names:
// inserted when the store has none, replaced when it has one.
func plant(t *testing.T, s *Store, h Hash, content []byte) {
	t.Helper()
	if err := s.codec.init(); err != nil {
		t.Fatal(err)
	}
	_, err := s.pool.Exec(context.Background(), `INSERT INTO ctxls_blobs (hash, size, data) VALUES ($1, $2, $3)
		ON CONFLICT (hash) DO UPDATE SET size = EXCLUDED.size, data = EXCLUDED.data`, h[:], int64(len(content)), s.codec.compress(content))
	if err != nil {
		t.Fatal(err)
	}
}

// makeCurrent writes m as repo's next generation, as a publish would,
// and returns its manifest's hash.
func makeCurrent(t *testing.T, s *Store, repo string, m *Manifest) Hash {
	t.Helper()
	mb, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	mh := hashOf(mb)
	plant(t, s, mh, mb)
	_, err = s.pool.Exec(context.Background(), `WITH g AS (UPDATE ctxls_repos SET generation = generation + 1 WHERE name = $1 RETURNING generation)
		INSERT INTO ctxls_generations (repo, id, manifest, files, bytes) SELECT $1, generation, $2, 0, 0 FROM g`, repo, mh[:])
	if err != nil {
		t.Fatal(err)
	}
	return mh
}

// checkoutText checks repo out and returns the text of path in it.
func checkoutText(t *testing.T, s *Store, repo, path string) (string, error) {
	t.Helper()
	co, err := s.Checkout(context.Background(), repo, t.TempDir(), nil)
	if err != nil {
		return "", err
	}
	defer co.Close()
	b, err := co.Files().ReadFile(path)
	return string(b), err
}

// assertChunksLocal checks that the index a checkout of repo builds from
// the stored chunks has the chunks of the local snapshot.
func assertChunksLocal(t *testing.T, s *Store, repo string, local *index.Snapshot) {
	t.Helper()
	co, err := s.Checkout(context.Background(), repo, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer co.Close()
	rsnap, release := openIndex(t, co).Snapshot()
	defer release()
	for _, p := range local.Paths() {
		lc, rc := local.ChunksOf(p), rsnap.ChunksOf(p)
		if len(lc) != len(rc) {
			t.Fatalf("%s: %d chunks from the store, %d local", p, len(rc), len(lc))
		}
		for i := range lc {
			if !reflect.DeepEqual(lc[i].Chunk, rc[i].Chunk) {
				t.Fatalf("%s chunk %d from the store: %+v, local: %+v", p, i, rc[i].Chunk, lc[i].Chunk)
			}
		}
	}
}

const (
	totalText = "package a\n\n// Total adds the numbers.\nfunc Total(xs []int) int {\n\tn := 0\n\tfor _, x := range xs {\n\t\tn += x\n\t}\n\treturn n\n}\n"
	otherText = "package a\n\n// Other does nothing.\nfunc Other() {}\n"
)

// A row written under the name of a file's text before the repository is
// published, holding other content, is rewritten by the publish: a
// checkout reads the file's text.
func TestPublishRepairsPlantedBlob(t *testing.T) {
	s := open(t, pgtest.Start(t).NewDatabase(t, "planted"))
	plant(t, s, hashOf([]byte(totalText)), []byte("package a\n\nfunc Total() { exfiltrate() }\n"))
	plant(t, s, hashOf([]byte(otherText)), []byte(otherText)) // whole: kept
	st := publishTree(t, s, "r", tree(t, map[string]string{"a.go": totalText, "b.go": otherText}))
	if st.Repaired != 1 || st.ReadBack != 2 {
		t.Errorf("publish: %d rows repaired, %d read back; want 1 and 2", st.Repaired, st.ReadBack)
	}
	got, err := checkoutText(t, s, "r", "a.go")
	if err != nil || got != totalText {
		t.Fatalf("a.go after the publish: %q, %v", got, err)
	}
}

// A row replaced after the publish (a text's, a chunks blob's) is a
// damage a checkout reports as such (ErrDamaged); publishing the
// unchanged tree again rewrites it. With the publisher's record, a
// publish checks each row by the digest the server computes, and reads
// back only the rows that changed since.
func TestPublishRepairsDamagedRows(t *testing.T) {
	ctx := context.Background()
	s := open(t, pgtest.Start(t).NewDatabase(t, "damaged"))
	root := tree(t, map[string]string{"a.go": totalText, "b.go": otherText})
	_, snap := localIndex(t, root)
	po := PublishOptions{Producer: "p", RecordDir: t.TempDir()}
	if st, err := s.Publish(ctx, "r", snap, po); err != nil || st.ReadBack != 0 || st.NewBlobs != st.Checked {
		t.Fatalf("first publish: %+v, %v", st, err)
	}
	if st, err := s.Publish(ctx, "r", snap, po); err != nil || !st.Unchanged || st.ReadBack != 0 || st.Checked != 5 {
		t.Fatalf("the same again: %+v, %v (want 5 rows checked by their digests, none read back)", st, err)
	}
	m := currentManifest(t, s, "r")
	th, _ := parseHash(m.Files[0].Text)
	ch, _ := parseHash(m.Files[1].Chunks)
	plant(t, s, th, []byte("package a\n\nfunc Total() { exfiltrate() }\n"))
	plant(t, s, ch, []byte("not chunks"))
	if _, err := checkoutText(t, s, "r", "a.go"); !errors.Is(err, ErrDamaged) {
		t.Fatalf("checkout of damaged rows: %v", err)
	}
	st, err := s.Publish(ctx, "r", snap, po)
	if err != nil || st.Repaired != 2 || st.ReadBack != 2 {
		t.Fatalf("publish over damaged rows: %+v, %v (want 2 read back and repaired)", st, err)
	}
	if got, err := checkoutText(t, s, "r", "a.go"); err != nil || got != totalText {
		t.Fatalf("a.go after the publish: %q, %v", got, err)
	}
	assertChunksLocal(t, s, "r", snap)
	// A row whose size is not its content's is damaged too.
	if _, err := s.pool.Exec(ctx, "UPDATE ctxls_blobs SET size = 1 << 40 WHERE hash = $1", th[:]); err != nil {
		t.Fatal(err)
	}
	if st, err := s.Publish(ctx, "r", snap, po); err != nil || st.Repaired != 1 || st.ReadBack != 1 {
		t.Fatalf("publish over a row of the wrong size: %+v, %v", st, err)
	}
	var size int64
	if err := s.pool.QueryRow(ctx, "SELECT size FROM ctxls_blobs WHERE hash = $1", th[:]).Scan(&size); err != nil || size != int64(len(totalText)) {
		t.Fatalf("the row's size after the publish: %d, %v", size, err)
	}
	// A publisher without the record (another machine) reads back every
	// row, and finds them whole.
	if st, err := s.Publish(ctx, "r", snap, PublishOptions{Producer: "p"}); err != nil || st.ReadBack != 5 || st.Repaired != 0 {
		t.Fatalf("publish without a record: %+v, %v", st, err)
	}
}

// A generation written by another than the publisher, naming the
// publisher's producer and texts but chunks of its own for a file, does
// not lend those chunks to the next publish: its generation has the
// file's own chunks.
func TestPublishDoesNotReuseForeignChunks(t *testing.T) {
	ctx := context.Background()
	s := open(t, pgtest.Start(t).NewDatabase(t, "poison"))
	root := tree(t, map[string]string{"a.go": totalText, "b.go": otherText})
	_, snap := localIndex(t, root)
	po := PublishOptions{Producer: "p", RecordDir: t.TempDir()}
	if _, err := s.Publish(ctx, "r", snap, po); err != nil {
		t.Fatal(err)
	}
	// The other writer's chunks: those of its own a.go, published as
	// another repository.
	evil := tree(t, map[string]string{"a.go": "package a\n\n// Backdoor sends the keys away.\nfunc Backdoor() {}\n"})
	_, esnap := localIndex(t, evil)
	if _, err := s.Publish(ctx, "evil", esnap, PublishOptions{Producer: "p"}); err != nil {
		t.Fatal(err)
	}
	m := currentManifest(t, s, "r")
	m.Files[0].Chunks = currentManifest(t, s, "evil").Files[0].Chunks
	makeCurrent(t, s, "r", m)
	if _, err := s.Publish(ctx, "r", snap, po); err != nil {
		t.Fatal(err)
	}
	assertChunksLocal(t, s, "r", snap)
	// A publisher with no record of its own (a fresh machine) encodes
	// every file's chunks.
	makeCurrent(t, s, "r", m)
	if _, err := s.Publish(ctx, "r", snap, PublishOptions{Producer: "p", RecordDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	assertChunksLocal(t, s, "r", snap)
}

// The index image a repository has is kept by a publish only when it is
// one the publisher uploaded and its rows are whole: another writer's
// image, or one with a damaged block, is replaced by the publisher's own.
func TestPublishReplacesForeignOrDamagedImage(t *testing.T) {
	ctx := context.Background()
	s := open(t, pgtest.Start(t).NewDatabase(t, "image"))
	root := tree(t, map[string]string{"a.go": totalText, "b.go": otherText})
	x, snap := localIndex(t, root)
	files, err := x.ImageFiles(ctx)
	if err != nil || files == nil {
		t.Fatalf("image files: %v %v", files, err)
	}
	po := PublishOptions{Producer: x.ChunkingKey(), Image: files, RecordDir: t.TempDir()}
	if st, err := s.Publish(ctx, "r", snap, po); err != nil || !st.Image {
		t.Fatalf("first publish: %+v %v", st, err)
	}
	want := map[string][]byte{}
	for name, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		want[name] = b
	}
	assertImage := func(when string) {
		t.Helper()
		got, _, err := s.fetchImage(ctx, "r", s.newBudget())
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: the image is not the publisher's (%d files, %v)", when, len(got), err)
		}
	}
	assertImage("published")
	if st, err := s.Publish(ctx, "r", snap, po); err != nil || st.Image {
		t.Fatalf("a publish of the same tree uploaded the image again: %+v %v", st, err)
	}

	// Another writer's image, said to be of the current generation.
	evil := tree(t, map[string]string{"a.go": "package a\n\n// Backdoor sends the keys away.\nfunc Backdoor() {}\n"})
	ex, esnap := localIndex(t, evil)
	efiles, err := ex.ImageFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Publish(ctx, "evil", esnap, PublishOptions{Producer: ex.ChunkingKey(), Image: efiles}); err != nil {
		t.Fatal(err)
	}
	var eih []byte
	if err := s.pool.QueryRow(ctx, "SELECT image FROM ctxls_images WHERE repo = 'evil'").Scan(&eih); err != nil {
		t.Fatal(err)
	}
	eim, err := s.readImageManifest(ctx, Hash(eih), s.newBudget())
	if err != nil {
		t.Fatal(err)
	}
	gen, mh, err := s.current(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	eim.Generation, eim.Manifest = gen, mh.String()
	ib, _ := json.Marshal(eim)
	ih := hashOf(ib)
	plant(t, s, ih, ib)
	if _, err := s.pool.Exec(ctx, "UPDATE ctxls_images SET image = $2 WHERE repo = $1", "r", ih[:]); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Publish(ctx, "r", snap, po); err != nil {
		t.Fatal(err)
	}
	assertImage("after another writer's image")

	// A block of the image damaged.
	var ownIH []byte
	if err := s.pool.QueryRow(ctx, "SELECT image FROM ctxls_images WHERE repo = 'r'").Scan(&ownIH); err != nil {
		t.Fatal(err)
	}
	im, err := s.readImageManifest(ctx, Hash(ownIH), s.newBudget())
	if err != nil {
		t.Fatal(err)
	}
	bh, _ := parseHash(im.Files[0].Blocks[0])
	plant(t, s, bh, []byte("not an index file"))
	if st, err := s.Publish(ctx, "r", snap, po); err != nil || st.Repaired != 1 {
		t.Fatalf("publish over a damaged block: %+v %v", st, err)
	}
	assertImage("after a damaged block")
}

// Chunks reused from the publisher's last generation whose row is gone
// are encoded again; when they do not come out under the name that
// generation gave them, the new generation names what they came out as.
func TestPublishReencodesLostReusedChunks(t *testing.T) {
	ctx := context.Background()
	s := open(t, pgtest.Start(t).NewDatabase(t, "lost"))
	root := tree(t, map[string]string{"a.go": totalText, "b.go": otherText})
	_, snap := localIndex(t, root)
	dir := t.TempDir()
	po := PublishOptions{Producer: "p", RecordDir: dir}
	if _, err := s.Publish(ctx, "r", snap, po); err != nil {
		t.Fatal(err)
	}
	// The record names a generation whose a.go has chunks the store
	// does not have, under a name its encoding does not give.
	m := currentManifest(t, s, "r")
	m.Files[0].Chunks = hashOf([]byte("lost")).String()
	mh := makeCurrent(t, s, "r", m)
	rec := readRecord(s.recordPath(dir, "r"))
	rec.manifest = mh
	if err := rec.write(s.recordPath(dir, "r")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Publish(ctx, "r", snap, po); err != nil {
		t.Fatal(err)
	}
	assertChunksLocal(t, s, "r", snap)
}
