package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Collection. A publish names its blobs in a generation's manifest, and
// the store keeps KeepGenerations generations per repository and one
// index image: a blob none of them names is garbage. GC deletes it.
//
// A publish writes its blobs before the generation that names them is
// committed, and takes for granted those it found stored: a collection
// between the two would delete blobs the generation is about to name.
// Two advisory locks keep them apart:
//
//   - gcLock: a publish holds it shared, on a connection of its own, from
//     its first check of the stored blobs to its last commit (generation,
//     image); a collection takes it exclusively, so it waits for the
//     publishes under way, and publishes that start meanwhile wait for it;
//   - gcCommitLock: a publish's committing transaction holds it shared and
//     checks there that every blob it names is stored; the collection's
//     deleting transaction holds it exclusively. This one guards the case
//     where the first was lost with its connection: a commit either sees
//     its blobs stored and is seen by the collection's marking, or finds
//     some gone (errBlobsGone) and the publish writes them again.
//
// A generation or image committed is seen by every later collection.

// gcLock and gcCommitLock are the advisory lock keys of the store's
// collection against its publishes.
const (
	gcLock       = 7243152
	gcCommitLock = 7243153
)

// publishAttempts is how many times a publish writes its blobs and tries
// to commit when a collection deleted some of them meanwhile.
const publishAttempts = 4

// errBlobsGone is a commit that found blobs it names missing from the
// store: collected since they were written or checked.
var errBlobsGone = errors.New("blobs the generation names were collected meanwhile")

// GCStats says what a collection did.
type GCStats struct {
	Generations int `json:"generations"` // the generations kept
	Images      int `json:"images"`      // the images kept
	// Kept counts the blobs they name; Deleted the blobs deleted, of
	// DeletedBytes compressed bytes.
	Kept         int   `json:"kept"`
	Deleted      int   `json:"deleted"`
	DeletedBytes int64 `json:"deletedBytes"`
	// Vacuumed says whether the blobs' table was vacuumed after (its
	// space reused by later writes): false when nothing was deleted, or
	// the role may not (VacuumError says why).
	Vacuumed    bool    `json:"vacuumed"`
	VacuumError string  `json:"vacuumError,omitempty"`
	DurationMs  float64 `json:"durationMs"`
}

// GC deletes the blobs that no kept generation and no index image names,
// and vacuums the blobs' table when it deleted any. It is safe beside
// publishes (see above) and replicas: what they read is named by a kept
// generation or image. A kept generation or image whose manifest cannot
// be read or decoded stops the collection (what it names is unknown):
// publishing its repository again repairs it.
func (s *Store) GC(ctx context.Context) (GCStats, error) {
	start := time.Now()
	var st GCStats
	if err := s.codec.init(); err != nil {
		return st, fmt.Errorf("gc: %w", err)
	}
	keep := map[Hash]bool{}
	read := map[Hash]bool{} // manifests (of generations, of images) read
	// Most of the reading happens before the lock, so that publishes
	// wait for the deletion only; what was committed meanwhile is read
	// under the lock.
	if _, err := s.gcMark(ctx, s.pool, keep, read, &st); err != nil {
		return st, fmt.Errorf("gc: %w", s.unreachable(ctx, err))
	}
	st = GCStats{}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1), pg_advisory_xact_lock($2)", gcLock, gcCommitLock); err != nil {
			return err
		}
		if _, err := s.gcMark(ctx, tx, keep, read, &st); err != nil {
			return err
		}
		st.Kept = len(keep)
		if _, err := tx.Exec(ctx, "CREATE TEMP TABLE ctxls_gc_keep (hash bytea PRIMARY KEY) ON COMMIT DROP"); err != nil {
			return err
		}
		rows := make([][]any, 0, len(keep))
		for h := range keep {
			rows = append(rows, []any{h[:]})
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"ctxls_gc_keep"}, []string{"hash"}, pgx.CopyFromRows(rows)); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `WITH gone AS (
			DELETE FROM ctxls_blobs b WHERE NOT EXISTS (SELECT 1 FROM ctxls_gc_keep k WHERE k.hash = b.hash)
			RETURNING octet_length(b.data) AS n)
			SELECT count(*), coalesce(sum(n), 0) FROM gone`).Scan(&st.Deleted, &st.DeletedBytes)
	})
	if err != nil {
		if readOnly(err) {
			return st, fmt.Errorf("gc: %w", err)
		}
		return st, fmt.Errorf("gc: %w", s.unreachable(ctx, err))
	}
	if st.Deleted > 0 {
		if _, err := s.pool.Exec(ctx, "VACUUM ctxls_blobs"); err != nil {
			st.VacuumError = err.Error()
		} else {
			st.Vacuumed = true
		}
	}
	st.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	return st, nil
}

// querier is a pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// gcMark adds to keep the blobs the store's kept generations and images
// name, reading the manifests not in read (and adding them to it); st
// counts the generations and images. It returns how many manifests it
// read.
func (s *Store) gcMark(ctx context.Context, q querier, keep, read map[Hash]bool, st *GCStats) (int, error) {
	var gens, imgs []Hash
	scan := func(query string, into *[]Hash) error {
		rows, err := q.Query(ctx, query)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var b []byte
			if err := rows.Scan(&b); err != nil {
				return err
			}
			h, err := hashFrom(b)
			if err != nil {
				return damagedf("a manifest's name %x: %v", b, err)
			}
			*into = append(*into, h)
		}
		return rows.Err()
	}
	if err := scan("SELECT manifest FROM ctxls_generations ORDER BY repo, id", &gens); err != nil {
		return 0, fmt.Errorf("list the generations: %w", err)
	}
	if err := scan("SELECT image FROM ctxls_images ORDER BY repo", &imgs); err != nil {
		return 0, fmt.Errorf("list the images: %w", err)
	}
	st.Generations, st.Images = len(gens), len(imgs)
	n := 0
	for _, ih := range imgs {
		keep[ih] = true
		if read[ih] {
			continue
		}
		im, err := s.readImageManifest(ctx, ih, s.newBudget())
		if err != nil {
			return n, fmt.Errorf("image %s: %w (publish its repository again)", ih, err)
		}
		read[ih], n = true, n+1
		mh, _ := parseHash(im.Manifest) // checked by decodeImageManifest
		keep[mh] = true                 // what a replica importing it compares with
		for _, e := range im.Files {
			if err := keepBlocks(keep, e); err != nil {
				return n, fmt.Errorf("image %s: %w", ih, err)
			}
		}
	}
	for _, mh := range gens {
		keep[mh] = true
		if read[mh] {
			continue
		}
		got, err := s.readBlobs(ctx, []Hash{mh}, s.newBudget(), nil)
		if err != nil {
			return n, fmt.Errorf("manifest %s: %w (publish its repository again)", mh, err)
		}
		m, err := decodeManifest(got[mh])
		if err != nil {
			return n, fmt.Errorf("manifest %s: %w (publish its repository again)", mh, err)
		}
		read[mh], n = true, n+1
		for _, f := range m.Files {
			for _, x := range []string{f.Text, f.Chunks} {
				h, err := parseHash(x)
				if err != nil {
					return n, fmt.Errorf("manifest %s: %s: %w", mh, f.Path, err)
				}
				keep[h] = true
			}
		}
		for _, e := range m.Sides {
			if err := keepBlocks(keep, e); err != nil {
				return n, fmt.Errorf("manifest %s: %w", mh, err)
			}
		}
	}
	return n, nil
}

// keepBlocks adds e's blocks to keep.
func keepBlocks(keep map[Hash]bool, e SideEntry) error {
	for _, b := range e.Blocks {
		h, err := parseHash(b)
		if err != nil {
			return fmt.Errorf("%s: %w", e.Name, err)
		}
		keep[h] = true
	}
	return nil
}

// lockShared takes gcLock shared on a connection of its own for a
// publish (what names it), until unlock. A server that cannot be reached
// is tried again as a publish's steps are.
func (s *Store) lockShared(ctx context.Context, what string) (unlock func(), err error) {
	var conn *pgxpool.Conn
	err = s.retry(ctx, what+": take the collection's lock", func() error {
		c, err := s.pool.Acquire(ctx)
		if err != nil {
			return err
		}
		if _, err := c.Exec(ctx, "SELECT pg_advisory_lock_shared($1)", gcLock); err != nil {
			c.Release()
			return err
		}
		conn = c
		return nil
	})
	if err != nil {
		return nil, err
	}
	return func() {
		if _, err := conn.Exec(context.Background(), "SELECT pg_advisory_unlock_shared($1)", gcLock); err != nil {
			// The session ends, and its lock with it.
			conn.Conn().Close(context.Background()) //nolint:errcheck // discarded
		}
		conn.Release()
	}, nil
}

// checkStored is the check a publish's committing transaction makes:
// gcCommitLock taken shared, then every blob of hashes stored
// (errBlobsGone when one is not).
func checkStored(ctx context.Context, tx pgx.Tx, hashes []Hash) error {
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock_shared($1)", gcCommitLock); err != nil {
		return err
	}
	arg := make([][]byte, len(hashes))
	for i := range hashes {
		arg[i] = hashes[i][:]
	}
	var n int
	if err := tx.QueryRow(ctx, "SELECT count(*) FROM ctxls_blobs WHERE hash = ANY($1)", arg).Scan(&n); err != nil {
		return err
	}
	if n < len(uniqueHashes(hashes)) {
		return errBlobsGone
	}
	return nil
}

// uniqueHashes returns hs without repeats.
func uniqueHashes(hs []Hash) map[Hash]bool {
	out := make(map[Hash]bool, len(hs))
	for _, h := range hs {
		out[h] = true
	}
	return out
}
