package pgstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ctxls/ctxls/internal/pgstore/pgtest"
)

// gcTree writes n Go files of distinct text into dir, file i's text
// drawn from seed[i] (a file keeps its text while its seed does).
func gcTree(t *testing.T, dir string, seeds []uint64) {
	t.Helper()
	words := strings.Fields("ledger account balance entry post audit total branch credit debit invoice refund tax rate line order")
	for i, seed := range seeds {
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		var b strings.Builder
		fmt.Fprintf(&b, "package ledger\n\n")
		for f := range 40 {
			fmt.Fprintf(&b, "// F%d_%d ", i, f)
			for range 12 {
				b.WriteString(words[r.IntN(len(words))] + " ")
			}
			fmt.Fprintf(&b, "\nfunc F%d_%d(x int) int { return x + %d }\n\n", i, f, r.IntN(1000000))
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// storeBytes is the size of the store's tables (with their indexes and
// TOAST).
func storeBytes(t *testing.T, s *Store) int64 {
	t.Helper()
	var n int64
	err := s.pool.QueryRow(context.Background(), `SELECT sum(pg_total_relation_size(c.oid))::bigint FROM pg_class c
		JOIN pg_namespace ns ON ns.oid = c.relnamespace WHERE ns.nspname = 'public' AND c.relkind = 'r' AND c.relname LIKE 'ctxls\_%'`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Republishing a repository again and again, with a collection after
// each publish, keeps the store within 10 % of its size once it holds
// its kept generations: what no kept generation names is deleted, and
// the rest reads as before.
func TestGCBoundsTheStore(t *testing.T) {
	srv := pgtest.Start(t)
	s := open(t, srv.NewDatabase(t, "gc"))
	ctx := context.Background()
	root := t.TempDir()
	seeds := make([]uint64, 60)
	for i := range seeds {
		seeds[i] = uint64(i)
	}
	var steady int64
	for round := 1; round <= 10; round++ {
		if round > 1 {
			for i := range 12 { // a fifth of the files change
				seeds[(round*12+i)%len(seeds)] += 1000
			}
		}
		gcTree(t, root, seeds)
		st := publishTree(t, s, "org/ledger", root)
		if st.Unchanged {
			t.Fatalf("round %d: nothing changed", round)
		}
		gs, err := s.GC(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if round > KeepGenerations && (gs.Deleted == 0 || !gs.Vacuumed) {
			t.Fatalf("round %d: the collection deleted nothing (or did not vacuum): %+v", round, gs)
		}
		size := storeBytes(t, s)
		t.Logf("round %d: %d bytes; %+v", round, size, gs)
		if round == KeepGenerations+1 {
			steady = size
		}
		if steady > 0 && size > steady*11/10 {
			t.Fatalf("round %d: the store holds %d bytes, more than 10 %% over %d", round, size, steady)
		}
		text, err := checkoutText(t, s, "org/ledger", "f000.go")
		if err != nil || !strings.Contains(text, "func F0_0") {
			t.Fatalf("round %d: after a collection the repository reads %q, %v", round, text, err)
		}
	}
}

// A collection waits for the publishes under way; one that runs all the
// same between a publish's writing of its blobs and the commit of its
// generation (the connection holding the publish's lock lost) deletes
// them, nothing naming them yet: the commit sees it, the publish writes
// them again, and the generation it commits is whole. Publishes and
// collections running side by side leave every generation readable.
func TestGCBesidePublish(t *testing.T) {
	srv := pgtest.Start(t)
	url := srv.NewDatabase(t, "gc")
	s, collector := open(t, url), open(t, url)
	var log logLines
	s.SetLogf(log.logf)
	ctx := context.Background()
	root := t.TempDir()
	seeds := []uint64{1, 2, 3, 4}
	gcTree(t, root, seeds)
	publishTree(t, s, "org/ledger", root)

	seeds[0] = 100
	gcTree(t, root, seeds)
	var deleted int
	s.beforeCommit = func() {
		s.beforeCommit = nil
		// The connection holding the publish's lock is lost (a restart
		// of a pooler, an administrator's pg_terminate_backend): the
		// collection runs.
		if _, err := collector.pool.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND granted", gcLock); err != nil {
			t.Error(err)
		}
		gs, err := collector.GC(ctx)
		if err != nil {
			t.Error(err)
		}
		deleted = gs.Deleted
	}
	publishTree(t, s, "org/ledger", root)
	if deleted == 0 {
		t.Fatal("the collection between the blobs and the commit deleted nothing: the test does not test")
	}
	if !strings.Contains(log.String(), "writing them again") {
		t.Errorf("the publish did not say it wrote the collected blobs again:\n%s", log.String())
	}
	co, err := s.Checkout(ctx, "org/ledger", t.TempDir(), nil)
	if err != nil {
		t.Fatalf("the generation committed after a collection: %v", err)
	}
	x := openIndex(t, co)
	if snap, release := x.Snapshot(); len(snap.Paths()) != len(seeds) {
		t.Errorf("the checkout indexes %d files, want %d", len(snap.Paths()), len(seeds))
		release()
	} else {
		release()
	}
	co.Close()

	// Side by side: publishes of changing trees, collections in a loop.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := collector.GC(ctx); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for round := range 8 {
		seeds[round%len(seeds)] += 7
		gcTree(t, root, seeds)
		publishTree(t, s, "org/ledger", root)
		text, err := checkoutText(t, s, "org/ledger", "f001.go")
		if err != nil || !strings.Contains(text, "func F1_0") {
			t.Fatalf("round %d, collections running: the repository reads %q, %v", round, text, err)
		}
	}
	close(stop)
	wg.Wait()
}

// Near-copies of a repository (one file differs) share most of their
// index images' blocks: an image cut in the finer image blocks leaves
// less of the copy's image to write than one cut as side files are.
func TestImageBlocksShareNearCopies(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	seeds := make([]uint64, 40)
	for i := range seeds {
		seeds[i] = uint64(i)
	}
	images := make([]map[string]string, 2)
	for k := range images {
		seeds[7] = uint64(100 + k)
		gcTree(t, root, seeds)
		x, _ := localIndex(t, root)
		files, err := x.ImageFiles(ctx)
		if err != nil {
			t.Fatal(err)
		}
		images[k] = files
	}
	// fresh is the bytes of the copy's image in blocks the first's lacks.
	fresh := func(split func([]byte) ([][]byte, error)) (n, total int) {
		have := map[Hash]bool{}
		for k, img := range images {
			for _, p := range img {
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				blocks, err := split(b)
				if err != nil {
					t.Fatal(err)
				}
				for _, blk := range blocks {
					if k == 0 {
						have[hashOf(blk)] = true
					} else if total += len(blk); !have[hashOf(blk)] {
						n += len(blk)
					}
				}
			}
		}
		return n, total
	}
	image, total := fresh(splitImageBlocks)
	side, _ := fresh(splitBlocks)
	t.Logf("the near-copy's image: %d bytes; new in image blocks %d, in side-file blocks %d", total, image, side)
	if image >= side {
		t.Errorf("the near-copy's image writes %d of %d bytes in image blocks (%d in side-file blocks)", image, total, side)
	}
}
