package pgstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/klauspost/compress/zstd"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/pgstore/pgtest"
)

// What a publisher can write and a replica must survive: rows of any
// size and data, manifests of any content. These helpers write them as a
// publisher holding the publish role could, with plain SQL.

// putRow writes the blob row h as it is given.
func putRow(t *testing.T, s *Store, h Hash, size int64, data []byte) {
	t.Helper()
	_, err := s.pool.Exec(context.Background(), `INSERT INTO ctxls_blobs (hash, size, data) VALUES ($1, $2, $3)
		ON CONFLICT (hash) DO UPDATE SET size = EXCLUDED.size, data = EXCLUDED.data`, h[:], size, data)
	if err != nil {
		t.Fatal(err)
	}
}

// putBlob writes raw as a well-formed blob and returns its name.
func putBlob(t *testing.T, s *Store, raw []byte) Hash {
	t.Helper()
	if err := s.codec.init(); err != nil {
		t.Fatal(err)
	}
	h := hashOf(raw)
	putRow(t, s, h, int64(len(raw)), s.codec.compress(raw))
	return h
}

// publishManifest writes m and makes it repo's next generation, the
// replicas notified, as a publish does; it returns the generation.
func publishManifest(t *testing.T, s *Store, repo string, m *Manifest) int64 {
	t.Helper()
	ctx := context.Background()
	mh := putBlob(t, s, m.encode())
	var gen int64
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO ctxls_repos (name) VALUES ($1) ON CONFLICT (name) DO NOTHING", repo); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, "SELECT generation + 1 FROM ctxls_repos WHERE name = $1 FOR UPDATE", repo).Scan(&gen); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "INSERT INTO ctxls_generations (repo, id, manifest, files, bytes) VALUES ($1, $2, $3, 0, 0)", repo, gen, mh[:]); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE ctxls_repos SET generation = $2 WHERE name = $1", repo, gen); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "SELECT pg_notify($1, $2)", NotifyChannel, repo)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return gen
}

// currentManifest reads repo's current manifest.
func currentManifest(t *testing.T, s *Store, repo string) *Manifest {
	t.Helper()
	_, mh, err := s.current(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.manifestOf(context.Background(), mh.String(), s.newBudget())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// withFile returns a copy of m with one more file, zz.go, whose text is
// text (stored as its blob h) and whose size the manifest says is size.
func withFile(m *Manifest, h Hash, size int64) *Manifest {
	c := *m
	c.Files = append(append([]FileEntry(nil), m.Files...), FileEntry{Path: "zz.go", Size: size, Text: h.String(), Chunks: m.Files[0].Chunks})
	return &c
}

// allocated returns the bytes fn allocates (on every goroutine).
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// leftovers lists what a checkout left in its directory's packs and
// sides: nothing, after a checkout that failed on a fresh cache.
func leftovers(t *testing.T, s *Store, parent, repo string) []string {
	t.Helper()
	var out []string
	for _, sub := range []string{"packs", "sides"} {
		ents, _ := os.ReadDir(filepath.Join(s.checkoutDir(parent, repo), sub))
		for _, e := range ents {
			out = append(out, sub+"/"+e.Name())
		}
	}
	return out
}

// Rows and manifests with negative, huge or inconsistent sizes, counts
// and offsets, and a compression bomb, are each a clear error for their
// repository (ErrUnusable, naming what is wrong), never a panic or an
// allocation of what they declare; the failed checkout leaves nothing
// behind, and the store's other repositories check out as before.
func TestUnusableStoreContent(t *testing.T) {
	ctx := context.Background()
	s := open(t, pgtest.Start(t).NewDatabase(t, "unusable"))
	good := tree(t, map[string]string{"a.go": "package a\n\n// A is one.\nfunc A() int { return 1 }\n", "b.go": "package a\n\nfunc B() int { return 2 }\n"})
	publishTree(t, s, "good", good)
	base := currentManifest(t, s, "good")
	if err := s.codec.init(); err != nil {
		t.Fatal(err)
	}
	block := bytes.Repeat([]byte("side file block "), 1<<12) // 64 KiB
	bomb := s.codec.compress(make([]byte, 256<<20))
	var sb bytes.Buffer
	enc, err := zstd.NewWriter(&sb)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := enc.Write(make([]byte, 256<<20)); err != nil {
		t.Fatal(err)
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	streamedBomb := sb.Bytes()
	cases := []struct {
		name string
		make func(t *testing.T, text []byte) *Manifest
		want string
	}{
		{"a blob of size -1", func(t *testing.T, text []byte) *Manifest {
			h := hashOf(text)
			putRow(t, s, h, -1, s.codec.compress(text))
			return withFile(base, h, int64(len(text)))
		}, "declares -1 bytes"},
		{"a text blob of 2^45 bytes", func(t *testing.T, text []byte) *Manifest {
			h := hashOf(text)
			putRow(t, s, h, 1<<45, s.codec.compress(text))
			return withFile(base, h, int64(len(text)))
		}, "declares 35184372088832 bytes"},
		{"a chunks blob of 2^45 bytes", func(t *testing.T, text []byte) *Manifest {
			m := withFile(base, putBlob(t, s, text), int64(len(text)))
			ch := hashOf(append([]byte{chunksFormat}, text...))
			putRow(t, s, ch, 1<<45, s.codec.compress(text))
			m.Files[len(m.Files)-1].Chunks = ch.String()
			return m
		}, "limit"},
		{"a blob longer than it declares", func(t *testing.T, text []byte) *Manifest {
			h := hashOf(text)
			putRow(t, s, h, int64(len(text))-3, s.codec.compress(text))
			return withFile(base, h, int64(len(text))-3)
		}, "more than the"},
		{"a blob shorter than it declares", func(t *testing.T, text []byte) *Manifest {
			h := hashOf(text)
			putRow(t, s, h, int64(len(text))+3, s.codec.compress(text))
			return withFile(base, h, int64(len(text))+3)
		}, "declares"},
		{"a compression bomb", func(t *testing.T, text []byte) *Manifest {
			h := hashOf(text)
			putRow(t, s, h, int64(len(text)), bomb)
			return withFile(base, h, int64(len(text)))
		}, "more than the"},
		{"a compression bomb within its compressed bound", func(t *testing.T, text []byte) *Manifest {
			h := hashOf(text)
			putRow(t, s, h, 1<<20, bomb)
			return withFile(base, h, 1<<20)
		}, "decompresses to more than the 1048576 bytes"},
		{"a compression bomb that does not say its size", func(t *testing.T, text []byte) *Manifest {
			h := hashOf(text)
			putRow(t, s, h, 1<<20, streamedBomb)
			return withFile(base, h, 1<<20)
		}, "decompresses to more than the 1048576 bytes"},
		{"compressed bytes past what the size allows", func(t *testing.T, text []byte) *Manifest {
			h := hashOf(text)
			putRow(t, s, h, int64(len(text)), append(s.codec.compress(text), make([]byte, 1<<20)...))
			return withFile(base, h, int64(len(text)))
		}, "compressed"},
		{"a file of size -1", func(t *testing.T, text []byte) *Manifest {
			return withFile(base, putBlob(t, s, text), -1)
		}, "size -1"},
		{"files whose sizes overflow", func(t *testing.T, text []byte) *Manifest {
			m := withFile(base, putBlob(t, s, text), 1<<62)
			m.Files = append(m.Files, FileEntry{Path: "zzz.go", Size: 1 << 62, Text: putBlob(t, s, append(text, '\n')).String(), Chunks: m.Files[0].Chunks})
			return m
		}, "limit"},
		{"a text whose blob is not its size", func(t *testing.T, text []byte) *Manifest {
			return withFile(base, putBlob(t, s, text), int64(len(text))+1)
		}, "declares"},
		{"one text with two sizes", func(t *testing.T, text []byte) *Manifest {
			h := putBlob(t, s, text)
			m := withFile(base, h, int64(len(text)))
			m.Files = append(m.Files, FileEntry{Path: "zzz.go", Size: int64(len(text)) + 1, Text: h.String(), Chunks: m.Files[0].Chunks})
			return m
		}, "two sizes"},
		{"a file's text not a hash", func(t *testing.T, text []byte) *Manifest {
			m := withFile(base, putBlob(t, s, text), int64(len(text)))
			m.Files[len(m.Files)-1].Text = "zz"
			return m
		}, "bad hash"},
		{"a side file of size -1", func(t *testing.T, text []byte) *Manifest {
			m := withFile(base, putBlob(t, s, text), int64(len(text)))
			m.Sides = []SideEntry{{Name: "history.v2", Size: -1, Blocks: []string{putBlob(t, s, block).String()}}}
			return m
		}, "size -1"},
		{"a side file of 2^45 bytes", func(t *testing.T, text []byte) *Manifest {
			m := withFile(base, putBlob(t, s, text), int64(len(text)))
			m.Sides = []SideEntry{{Name: "history.v2", Size: 1 << 45, Blocks: []string{putBlob(t, s, block).String()}}}
			return m
		}, "blocks"},
		{"a side file of one block repeated past the limit", func(t *testing.T, text []byte) *Manifest {
			m := withFile(base, putBlob(t, s, text), int64(len(text)))
			bh := putBlob(t, s, block).String()
			repeat := s.maxRepo/int64(len(block)) + 1
			sd := SideEntry{Name: "history.v2", Size: int64(len(block)) * repeat}
			for range repeat {
				sd.Blocks = append(sd.Blocks, bh)
			}
			m.Sides = []SideEntry{sd}
			return m
		}, "limit"},
		{"a side file whose blocks are not its size", func(t *testing.T, text []byte) *Manifest {
			m := withFile(base, putBlob(t, s, text), int64(len(text)))
			m.Sides = []SideEntry{{Name: "history.v2", Size: int64(len(block)) + 1, Blocks: []string{putBlob(t, s, block).String(), putBlob(t, s, text).String()}}}
			return m
		}, "history.v2"},
		{"a side block larger than a block", func(t *testing.T, text []byte) *Manifest {
			m := withFile(base, putBlob(t, s, text), int64(len(text)))
			big := bytes.Repeat(block, 8)
			m.Sides = []SideEntry{{Name: "history.v2", Size: int64(len(big)), Blocks: []string{putBlob(t, s, big).String()}}}
			return m
		}, "block"},
		{"a side file named twice", func(t *testing.T, text []byte) *Manifest {
			m := withFile(base, putBlob(t, s, text), int64(len(text)))
			bh := putBlob(t, s, block).String()
			m.Sides = []SideEntry{{Name: "history.v2", Size: int64(len(block)), Blocks: []string{bh}}, {Name: "history.v2", Size: int64(len(block)), Blocks: []string{bh}}}
			return m
		}, "twice"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			repo := fmt.Sprintf("bad/%d", i)
			text := fmt.Appendf(nil, "package zz\n\n// Z is case %d.\nfunc Z() int { return %d }\n", i, i)
			publishManifest(t, s, repo, tc.make(t, text))
			cache := t.TempDir()
			var err error
			if n := allocated(func() { _, err = s.Checkout(ctx, repo, cache, nil) }); n > 64<<20 {
				t.Errorf("the checkout allocated %d MiB", n>>20)
			}
			if !errors.Is(err, ErrUnusable) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), repo) {
				t.Fatalf("checkout: %v; want an unusable-content error about %s naming %q", err, repo, tc.want)
			}
			if left := leftovers(t, s, cache, repo); len(left) > 0 {
				t.Errorf("a failed checkout left %v", left)
			}
			co, err := s.Checkout(ctx, "good", cache, nil)
			if err != nil {
				t.Fatalf("the good repository after a bad one: %v", err)
			}
			co.Close()
		})
	}
}

// A generation whose row names no manifest hash (3 bytes), or a manifest
// the store lacks, is unusable content too.
func TestUnusableGenerationRow(t *testing.T) {
	ctx := context.Background()
	s := open(t, pgtest.Start(t).NewDatabase(t, "genrow"))
	publishTree(t, s, "r", tree(t, map[string]string{"a.go": "package a\n"}))
	for _, tc := range []struct {
		manifest []byte
		want     string
	}{{[]byte{1, 2, 3}, "a manifest hash of 3 bytes"}, {bytes.Repeat([]byte{7}, 32), "missing from the store"}} {
		if _, err := s.pool.Exec(ctx, `INSERT INTO ctxls_generations (repo, id, manifest, files, bytes)
			SELECT name, generation + 1, $1, 0, 0 FROM ctxls_repos WHERE name = 'r'`, tc.manifest); err != nil {
			t.Fatal(err)
		}
		if _, err := s.pool.Exec(ctx, "UPDATE ctxls_repos SET generation = generation + 1 WHERE name = 'r'"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Checkout(ctx, "r", t.TempDir(), nil); !errors.Is(err, ErrUnusable) || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("checkout: %v, want an unusable-content error saying %q", err, tc.want)
		}
	}
}

// A repository whose generation reads more than the per-repository limit
// is refused before the bytes are read or decompressed, even when every
// blob is what its name says (a text of zeros compresses a thousandfold),
// and the failed checkout removes what it wrote.
func TestRepoReadLimit(t *testing.T) {
	ctx := context.Background()
	s := open(t, pgtest.Start(t).NewDatabase(t, "limit"))
	publishTree(t, s, "good", tree(t, map[string]string{"a.go": "package a\n\nfunc A() int { return 1 }\n"}))
	base := currentManifest(t, s, "good")
	zeros := make([]byte, 48<<20)
	publishManifest(t, s, "huge", withFile(base, putBlob(t, s, zeros), int64(len(zeros))))
	s.maxRepo = 32 << 20
	cache := t.TempDir()
	var err error
	if n := allocated(func() { _, err = s.Checkout(ctx, "huge", cache, nil) }); n > 16<<20 {
		t.Errorf("the checkout allocated %d MiB", n>>20)
	}
	if !errors.Is(err, ErrUnusable) || !strings.Contains(err.Error(), "limit of 33554432 bytes") {
		t.Fatalf("checkout over the limit: %v", err)
	}
	if left := leftovers(t, s, cache, "huge"); len(left) > 0 {
		t.Errorf("a failed checkout left %v", left)
	}
	// A pack written, then the side file over the limit: the pack goes.
	m := withFile(base, putBlob(t, s, zeros[:20<<20]), 20<<20)
	m.Sides = []SideEntry{{Name: "history.v2", Size: 20 << 20}}
	blk := putBlob(t, s, zeros[:blockMax]).String()
	for range (20 << 20) / blockMax {
		m.Sides[0].Blocks = append(m.Sides[0].Blocks, blk)
	}
	publishManifest(t, s, "half", m)
	if _, err := s.Checkout(ctx, "half", cache, nil); !errors.Is(err, ErrUnusable) || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("checkout over the limit by its side file: %v", err)
	}
	if left := leftovers(t, s, cache, "half"); len(left) > 0 {
		t.Errorf("a failed checkout left %v", left)
	}
	if co, err := s.Checkout(ctx, "good", cache, nil); err != nil {
		t.Fatalf("the good repository: %v", err)
	} else {
		co.Close()
	}
}

// A running checkout that meets an unusable generation keeps the one it
// has (its files still read), says what is wrong once in the log however
// often it is asked again, and moves on when a good generation comes.
func TestUnusableUpdateKeepsGeneration(t *testing.T) {
	ctx := context.Background()
	s := open(t, pgtest.Start(t).NewDatabase(t, "update"))
	var logs []string
	s.SetLogf(func(format string, args ...any) { logs = append(logs, fmt.Sprintf(format, args...)) })
	root := tree(t, map[string]string{"a.go": "package a\n\nfunc A() int { return 1 }\n"})
	publishTree(t, s, "r", root)
	base := currentManifest(t, s, "r")
	co, err := s.Checkout(ctx, "r", t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer co.Close()
	text := []byte("package zz\n")
	h := hashOf(text)
	putRow(t, s, h, -1, s.codec.compress(text))
	gen := publishManifest(t, s, "r", withFile(base, h, int64(len(text))))
	for range 3 {
		if _, _, err := co.Update(ctx); !errors.Is(err, ErrUnusable) || !strings.Contains(err.Error(), fmt.Sprint("generation ", gen)) {
			t.Fatalf("update to an unusable generation: %v", err)
		}
	}
	if b, err := co.Files().ReadFile("a.go"); err != nil || !bytes.Contains(b, []byte("func A")) || co.Gen() != gen-1 {
		t.Fatalf("the generation checked out before: %q %v (generation %d)", b, err, co.Gen())
	}
	if n := strings.Count(strings.Join(logs, "\n"), "declares -1 bytes"); n != 1 {
		t.Fatalf("the unusable generation was logged %d times: %q", n, logs)
	}
	// Within RecheckUnusable the generation is not read again: its row
	// repaired, the answer holds until then.
	putRow(t, s, h, int64(len(text)), s.codec.compress(text))
	if _, _, err := co.Update(ctx); !errors.Is(err, ErrUnusable) {
		t.Fatalf("update within a minute of finding the generation unusable: %v", err)
	}
	if err := os.WriteFile(filepath.Join(root, "b.go"), []byte("package a\n\nfunc B() int { return 2 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	publishTree(t, s, "r", root)
	if _, moved, err := co.Update(ctx); err != nil || !moved {
		t.Fatalf("update to a good generation: %v %v", moved, err)
	}
}

// An index image that cannot be used (sizes out of bounds, a file
// missing its blocks) is left out: the checkout builds its index from
// the stored chunks, as with no image, and says why in the log.
func TestUnusableImageFallsBack(t *testing.T) {
	ctx := context.Background()
	s := open(t, pgtest.Start(t).NewDatabase(t, "image"))
	var logs []string
	s.SetLogf(func(format string, args ...any) { logs = append(logs, fmt.Sprintf(format, args...)) })
	root := tree(t, map[string]string{"a.go": "package a\n\n// Alpha adds.\nfunc Alpha(x int) int { return x + 1 }\n"})
	x, err := index.Open(ctx, root, index.Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	files, err := x.ImageFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	snap, release := x.Snapshot()
	defer release()
	if _, err := s.Publish(ctx, "r", snap, PublishOptions{Image: files}); err != nil {
		t.Fatal(err)
	}
	var ih []byte
	if err := s.pool.QueryRow(ctx, "SELECT image FROM ctxls_images WHERE repo = 'r'").Scan(&ih); err != nil {
		t.Fatal(err)
	}
	good, err := s.readImageManifest(ctx, Hash(ih), s.newBudget())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(im *imageManifest)
		want string
	}{
		{"size -1", func(im *imageManifest) { im.Files[0].Size = -1 }, "size -1"},
		{"size 2^45", func(im *imageManifest) { im.Files[0].Size = 1 << 45 }, "blocks"},
		{"no blocks", func(im *imageManifest) { im.Files[0].Blocks = nil }, "bytes"},
		{"its manifest not a hash", func(im *imageManifest) { im.Manifest = "zz" }, "bad hash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			im := *good
			im.Files = append([]SideEntry(nil), good.Files...)
			tc.edit(&im)
			b, _ := json.Marshal(im)
			nh := putBlob(t, s, b)
			if _, err := s.pool.Exec(ctx, "UPDATE ctxls_images SET image = $1 WHERE repo = 'r'", nh[:]); err != nil {
				t.Fatal(err)
			}
			logs = nil
			co, err := s.Checkout(ctx, "r", t.TempDir(), nil)
			if err != nil {
				t.Fatalf("checkout with an unusable image: %v", err)
			}
			defer co.Close()
			if co.TakeImage() != nil {
				t.Fatal("an unusable image was taken")
			}
			if len(logs) != 1 || !strings.Contains(logs[0], "index image") || !strings.Contains(logs[0], tc.want) {
				t.Fatalf("log: %q", logs)
			}
			rsnap, rel := openIndex(t, co).Snapshot()
			defer rel()
			if rsnap.StateRoot() != snap.StateRoot() || len(rsnap.ChunksOf("a.go")) == 0 {
				t.Fatal("the index built from the chunks is not the publisher's")
			}
		})
	}
}

// The checkout cache follows the rules of an index directory: a checkout
// directory is ctxls's (tagged) or refused, never a symbolic link, and a
// link planted inside it (packs, sides, tree, lock) is never followed:
// the files behind it stay as they were.
func TestCheckoutCacheDir(t *testing.T) {
	ctx := context.Background()
	s := open(t, pgtest.Start(t).NewDatabase(t, "cachedir"))
	root := tree(t, map[string]string{"a.go": "package a\n\nfunc A() int { return 1 }\n"})
	hist := filepath.Join(t.TempDir(), "history.v2")
	if err := os.WriteFile(hist, bytes.Repeat([]byte("history "), 1000), 0o600); err != nil {
		t.Fatal(err)
	}
	publish := func() {
		t.Helper()
		if _, err := s.Publish(ctx, "r", localSnapshot(t, root), PublishOptions{Sides: []Side{{Name: "history.v2", Path: hist}}}); err != nil {
			t.Fatal(err)
		}
	}
	publish()
	victim := func(t *testing.T) (string, []string) {
		t.Helper()
		dir := t.TempDir()
		names := []string{"keep.txt", strings.Repeat("ab", 32), "history.v2"}
		for _, n := range names {
			if err := os.WriteFile(filepath.Join(dir, n), []byte("the user's "+n), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return dir, names
	}
	intact := func(t *testing.T, dir string, names []string) {
		t.Helper()
		ents, _ := os.ReadDir(dir)
		if len(ents) != len(names) {
			t.Fatalf("the directory behind the link has %d entries, want %d", len(ents), len(names))
		}
		for _, n := range names {
			if b, err := os.ReadFile(filepath.Join(dir, n)); err != nil || string(b) != "the user's "+n {
				t.Fatalf("%s behind the link: %q %v", n, b, err)
			}
		}
	}
	t.Run("a checkout directory that is a link", func(t *testing.T) {
		cache := t.TempDir()
		v, names := victim(t)
		if err := os.Symlink(v, s.checkoutDir(cache, "r")); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Checkout(ctx, "r", cache, nil); !errors.Is(err, index.ErrNotCacheDir) {
			t.Fatalf("checkout into a link: %v", err)
		}
		intact(t, v, names)
	})
	t.Run("a directory of another program", func(t *testing.T) {
		cache := t.TempDir()
		dir := s.checkoutDir(cache, "r")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("the user's keep.txt"), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Checkout(ctx, "r", cache, nil); !errors.Is(err, index.ErrNotCacheDir) {
			t.Fatalf("checkout into a foreign directory: %v", err)
		}
		intact(t, dir, []string{"keep.txt"})
	})
	t.Run("links planted inside", func(t *testing.T) {
		cache := t.TempDir()
		co, err := s.Checkout(ctx, "r", cache, nil)
		if err != nil {
			t.Fatal(err)
		}
		co.Close()
		dir := s.checkoutDir(cache, "r")
		if _, err := os.Stat(filepath.Join(dir, "CACHEDIR.TAG")); err != nil {
			t.Fatalf("the checkout directory has no tag: %v", err)
		}
		victims := map[string][]string{}
		for _, sub := range []string{"packs", "sides", "tree"} {
			v, names := victim(t)
			victims[v] = names
			if err := os.RemoveAll(filepath.Join(dir, sub)); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(v, filepath.Join(dir, sub)); err != nil {
				t.Fatal(err)
			}
		}
		lockTarget := filepath.Join(t.TempDir(), "lock-target")
		os.Remove(filepath.Join(dir, "lock"))
		if err := os.Symlink(lockTarget, filepath.Join(dir, "lock")); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(hist, bytes.Repeat([]byte("history again "), 1000), 0o600); err != nil {
			t.Fatal(err)
		}
		publish()
		co, err = s.Checkout(ctx, "r", cache, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer co.Close()
		if b, err := co.Files().ReadFile("a.go"); err != nil || !bytes.Contains(b, []byte("func A")) {
			t.Fatalf("read after the update: %q %v", b, err)
		}
		for v, names := range victims {
			intact(t, v, names)
		}
		if _, err := os.Lstat(lockTarget); err == nil {
			t.Fatal("the lock followed a link")
		}
		for _, sub := range []string{"packs", "sides", "tree"} {
			if fi, err := os.Lstat(filepath.Join(dir, sub)); err != nil || !fi.IsDir() {
				t.Fatalf("%s is not a directory after the update: %v", sub, err)
			}
		}
	})
	t.Run("a checkout of an earlier version", func(t *testing.T) {
		cache := t.TempDir()
		co, err := s.Checkout(ctx, "r", cache, nil)
		if err != nil {
			t.Fatal(err)
		}
		co.Close()
		dir := s.checkoutDir(cache, "r")
		if err := os.Remove(filepath.Join(dir, "CACHEDIR.TAG")); err != nil {
			t.Fatal(err)
		}
		co, err = s.Checkout(ctx, "r", cache, nil)
		if err != nil {
			t.Fatalf("an earlier version's checkout directory: %v", err)
		}
		co.Close()
		if _, err := os.Stat(filepath.Join(dir, "CACHEDIR.TAG")); err != nil {
			t.Fatal("an earlier version's checkout directory was not tagged")
		}
	})
}

// $CTXLS_STORE_MAX_BYTES takes a number of bytes or one with KiB, MiB or
// GiB; anything else fails Open, before any connection, naming the
// variable.
func TestMaxRepoBytesFromEnv(t *testing.T) {
	for v, want := range map[string]int64{"": DefaultMaxRepoBytes, "1048576": 1 << 20, "500MiB": 500 << 20, "8GiB": 8 << 30, "64KiB": 64 << 10} {
		t.Setenv(EnvMaxRepoBytes, v)
		if got, err := maxRepoFromEnv(); err != nil || got != want {
			t.Errorf("%q: %d %v, want %d", v, got, err, want)
		}
	}
	for _, v := range []string{"0", "-1", "4GB", "GiB", "1.5GiB", "99999999999GiB", " 1"} {
		t.Setenv(EnvMaxRepoBytes, v)
		if _, err := Open(context.Background(), "postgres://ctxls@127.0.0.1:1/none"); err == nil || !strings.Contains(err.Error(), EnvMaxRepoBytes) {
			t.Errorf("%q: %v", v, err)
		}
	}
}

// TestUnionCacheDir: a union's directory (its index, an empty tree) is one
// ctxls deletes in when it discards the union, under the rules of a
// checkout's: tagged, a link or another program's directory in its place
// refused, a link planted for its tree replaced, never followed — and an
// earlier version's untagged one adopted.
func TestUnionCacheDir(t *testing.T) {
	ctx := context.Background()
	s := open(t, pgtest.Start(t).NewDatabase(t, "uniondir"))
	for _, r := range []string{"a", "b"} {
		root := tree(t, map[string]string{r + ".go": "package " + r + "\n\nfunc F() int { return 1 }\n"})
		if _, err := s.Publish(ctx, r, localSnapshot(t, root), PublishOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	union := func(t *testing.T, cache string) (*Union, error) {
		t.Helper()
		return s.CheckoutUnion(ctx, []string{"a", "b"}, cache, nil)
	}
	dirOf := func(t *testing.T, cache string) string {
		t.Helper()
		u, err := union(t, cache)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Dir(u.Root)
		u.Close()
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	victim := func(t *testing.T) string {
		t.Helper()
		v := t.TempDir()
		if err := os.WriteFile(filepath.Join(v, "keep.txt"), []byte("the user's"), 0o600); err != nil {
			t.Fatal(err)
		}
		return v
	}
	intact := func(t *testing.T, v string) {
		t.Helper()
		if b, err := os.ReadFile(filepath.Join(v, "keep.txt")); err != nil || string(b) != "the user's" {
			t.Fatalf("the directory behind the link lost keep.txt: %q %v", b, err)
		}
	}
	t.Run("tagged", func(t *testing.T) {
		cache := t.TempDir()
		u, err := union(t, cache)
		if err != nil {
			t.Fatal(err)
		}
		defer u.Close()
		if _, err := os.Lstat(filepath.Join(filepath.Dir(u.Root), "CACHEDIR.TAG")); err != nil {
			t.Fatalf("the union's directory has no tag: %v", err)
		}
	})
	t.Run("a link in its place", func(t *testing.T) {
		cache := t.TempDir()
		dir, v := dirOf(t, cache), victim(t)
		if err := os.Symlink(v, dir); err != nil {
			t.Fatal(err)
		}
		if _, err := union(t, cache); !errors.Is(err, index.ErrNotCacheDir) {
			t.Fatalf("a union into a link: %v", err)
		}
		intact(t, v)
	})
	t.Run("another program's directory", func(t *testing.T) {
		cache := t.TempDir()
		dir := dirOf(t, cache)
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("the user's"), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := union(t, cache); !errors.Is(err, index.ErrNotCacheDir) {
			t.Fatalf("a union into a foreign directory: %v", err)
		}
		intact(t, dir)
	})
	t.Run("a link planted for its tree", func(t *testing.T) {
		cache := t.TempDir()
		u, err := union(t, cache)
		if err != nil {
			t.Fatal(err)
		}
		u.Close()
		v := victim(t)
		if err := os.RemoveAll(u.Root); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(v, u.Root); err != nil {
			t.Fatal(err)
		}
		u, err = union(t, cache)
		if err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(u.Root); err != nil || !fi.IsDir() {
			t.Fatalf("the tree is not a directory of its own: %v", err)
		}
		if err := u.Discard(); err != nil {
			t.Fatal(err)
		}
		u.Close()
		intact(t, v)
	})
	t.Run("an earlier version's", func(t *testing.T) {
		cache := t.TempDir()
		dir := dirOf(t, cache)
		for _, sub := range []string{"tree", "index"} {
			if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
				t.Fatal(err)
			}
		}
		u, err := union(t, cache)
		if err != nil {
			t.Fatalf("an earlier version's union directory: %v", err)
		}
		defer u.Close()
		if _, err := os.Lstat(filepath.Join(dir, "CACHEDIR.TAG")); err != nil {
			t.Fatalf("not tagged when adopted: %v", err)
		}
	})
}
