package pgstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/klauspost/compress/zstd"
)

// Hash is a blob's name: the SHA-256 of its uncompressed bytes.
type Hash [32]byte

func hashOf(b []byte) Hash { return sha256.Sum256(b) }

func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// hashFrom reads a hash stored as bytes.
func hashFrom(b []byte) (Hash, error) {
	if len(b) != len(Hash{}) {
		return Hash{}, unusablef("a stored hash of %d bytes (damaged)", len(b))
	}
	return Hash(b), nil
}

// parseHash reads a hex hash (a manifest's).
func parseHash(s string) (Hash, error) {
	var h Hash
	if len(s) != 64 {
		return h, unusablef("bad hash %q", s)
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, unusablef("bad hash %q", s)
	}
	return h, nil
}

// ErrUnusable is returned (wrapped) when what the store holds for a
// repository cannot be used as it is: a blob whose content is not what
// its name or its row says, a size, count or offset out of its bounds or
// inconsistent with another, a generation that reads more than a replica
// reads for one repository (Store's limit). A replica trusts nothing it
// reads from the store beyond these checks: whoever may publish may write
// any row. Reading the same generation again fails the same way.
var ErrUnusable = errors.New("the store's content cannot be used")

// unusableError marks an error as ErrUnusable without changing its text.
type unusableError struct{ err error }

func (e *unusableError) Error() string        { return e.err.Error() }
func (e *unusableError) Unwrap() error        { return e.err }
func (e *unusableError) Is(target error) bool { return target == ErrUnusable }

// unusable marks err (not nil) as ErrUnusable.
func unusable(err error) error {
	if errors.Is(err, ErrUnusable) {
		return err
	}
	return &unusableError{err}
}

// damagedf is fmt.Errorf marked as ErrDamaged (so ErrUnusable too): a
// row that is not what its name and its manifest say — the reader cannot
// tell a damaged row from a planted one, and a publish rewrites either.
func damagedf(format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, ErrDamaged)...)
}

// unusablef is fmt.Errorf marked as ErrUnusable.
func unusablef(format string, args ...any) error {
	return &unusableError{fmt.Errorf(format, args...)}
}

// budget is what one checkout or update of a repository may still read
// from the store, in uncompressed bytes: each blob is paid for when its
// row is read, before it is decompressed, and each file assembled from
// blocks when it is put together. Not safe for concurrent use.
type budget struct{ left, limit int64 }

// newBudget is the budget of one checkout or update.
func (s *Store) newBudget() *budget { return &budget{left: s.maxRepo, limit: s.maxRepo} }

// take pays n bytes for what, or refuses them when they pass the limit.
func (b *budget) take(n int64, what string) error {
	if n < 0 || n > b.left {
		return unusablef("%s: reading its %d bytes passes the limit of %d bytes a replica reads for one repository ($%s)", what, n, b.limit, EnvMaxRepoBytes)
	}
	b.left -= n
	return nil
}

// compressedBound is the most bytes a blob of size bytes compresses to
// (incompressible data is stored in raw blocks: a few bytes each, and a
// frame's header and checksum); more is not a blob this store wrote.
func compressedBound(size int64) int64 { return size + size>>10 + 1024 }

// codec compresses and decompresses blobs; one per Store, safe for
// concurrent use.
type codec struct {
	once sync.Once
	enc  *zstd.Encoder
	dec  *zstd.Decoder
	err  error
}

func (c *codec) init() error {
	c.once.Do(func() {
		c.enc, c.err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
		if c.err == nil {
			// DecodeAll writes no more than its destination's capacity,
			// which is the blob's declared size.
			c.dec, c.err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(1<<31), zstd.WithDecodeAllCapLimit(true))
		}
	})
	return c.err
}

func (c *codec) compress(b []byte) []byte { return c.enc.EncodeAll(b, make([]byte, 0, len(b)/3+64)) }

// decompress returns the bytes of a blob, which declares size bytes
// (0 or more: see readBlobs), and checks them against its name: a
// damaged row is an error, never content. It never decodes more than
// size bytes.
func (c *codec) decompress(h Hash, data []byte, size int64) ([]byte, error) {
	out, err := c.dec.DecodeAll(data, make([]byte, 0, size))
	if errors.Is(err, zstd.ErrDecoderSizeExceeded) {
		return nil, damagedf("blob %s decompresses to more than the %d bytes it declares", h, size)
	}
	if err != nil {
		return nil, fmt.Errorf("blob %s: %v: %w", h, err, ErrDamaged)
	}
	if int64(len(out)) != size {
		return nil, damagedf("blob %s decompresses to %d bytes, it declares %d", h, len(out), size)
	}
	if hashOf(out) != h {
		return nil, fmt.Errorf("blob %s: content does not match its hash: %w", h, ErrDamaged)
	}
	return out, nil
}

// blob is one blob to write.
type blob struct {
	hash Hash
	raw  []byte // uncompressed
}

// eachBlobRow runs query, whose $1 is a list of blob hashes, over hashes
// in batches of batch, and calls fn on each row.
func (s *Store) eachBlobRow(ctx context.Context, query string, hashes []Hash, batch int, fn func(pgx.Rows) error) error {
	for lo := 0; lo < len(hashes); lo += batch {
		args := make([][]byte, 0, batch)
		for _, h := range hashes[lo:min(lo+batch, len(hashes))] {
			args = append(args, h[:])
		}
		rows, err := s.pool.Query(ctx, query, args)
		if err != nil {
			return err
		}
		for rows.Next() {
			if err := fn(rows); err != nil {
				rows.Close()
				return err
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// putBlobs compresses and writes blobs, in transactions of about 32 MB of
// compressed data. A row the store has already under one of their names
// is replaced: a publish writes the blobs whose rows it found missing or
// damaged, and another writer may have put a row there meanwhile (rows
// go in hash order, so that two publishes writing the same blobs do not
// deadlock). It returns the compressed bytes written and, per blob, the
// rowDigest of its row (what the row holds now).
func (s *Store) putBlobs(ctx context.Context, blobs []blob) (int64, []Hash, error) {
	if err := s.codec.init(); err != nil {
		return 0, nil, err
	}
	comp := make([][]byte, len(blobs))
	digests := make([]Hash, len(blobs))
	parallel(len(blobs), func(i int) {
		comp[i] = s.codec.compress(blobs[i].raw)
		digests[i] = rowDigest(int64(len(blobs[i].raw)), comp[i])
	})
	var written int64
	for lo := 0; lo < len(blobs); {
		hi, size := lo, 0
		for hi < len(blobs) && (hi == lo || size < 32<<20) {
			size += len(comp[hi])
			hi++
		}
		err := s.retry(ctx, "write blobs", func() error {
			return s.inTx(ctx, func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, "CREATE TEMP TABLE ctxls_blobs_in (LIKE ctxls_blobs) ON COMMIT DROP"); err != nil {
					return err
				}
				rows := make([][]any, 0, hi-lo)
				for i := lo; i < hi; i++ {
					rows = append(rows, []any{blobs[i].hash[:], int64(len(blobs[i].raw)), comp[i]})
				}
				if _, err := tx.CopyFrom(ctx, pgx.Identifier{"ctxls_blobs_in"}, []string{"hash", "size", "data"}, pgx.CopyFromRows(rows)); err != nil {
					return err
				}
				_, err := tx.Exec(ctx, `INSERT INTO ctxls_blobs SELECT DISTINCT ON (hash) * FROM ctxls_blobs_in ORDER BY hash
				ON CONFLICT (hash) DO UPDATE SET size = EXCLUDED.size, data = EXCLUDED.data`)
				return err
			})
		})
		if err != nil {
			return written, nil, fmt.Errorf("write blobs: %w", err)
		}
		written += int64(size)
		lo = hi
	}
	return written, digests, nil
}

// getBlobs reads and checks the named blobs, within a budget of their
// own (readBlobs).
func (s *Store) getBlobs(ctx context.Context, hashes []Hash) (map[Hash][]byte, error) {
	return s.readBlobs(ctx, hashes, s.newBudget(), nil)
}

// readBlobs reads and checks the named blobs, paid for from bud. A row is
// judged before its blob is decompressed: its declared size must be 0 or
// more, approved by check when check is not nil (a text's size is the
// one its manifest gives), within what bud has left, and its compressed
// bytes no more than that size allows; a blob then decompresses to
// exactly its declared size and its name's content, else it is an error.
// A blob the store lacks is an error: a manifest names only blobs
// written before it. Every such error is ErrUnusable.
func (s *Store) readBlobs(ctx context.Context, hashes []Hash, bud *budget, check func(h Hash, size int64) error) (map[Hash][]byte, error) {
	if err := s.codec.init(); err != nil {
		return nil, err
	}
	type row struct {
		h    Hash
		data []byte
		size int64
	}
	var got []row
	err := s.eachBlobRow(ctx, "SELECT hash, size, data FROM ctxls_blobs WHERE hash = ANY($1)", hashes, 2000, func(rows pgx.Rows) error {
		var r row
		var hb []byte
		if err := rows.Scan(&hb, &r.size, &r.data); err != nil {
			return err
		}
		var err error
		if r.h, err = hashFrom(hb); err != nil {
			return err
		}
		if r.size < 0 {
			return damagedf("blob %s declares %d bytes", r.h, r.size)
		}
		if check != nil {
			if err := check(r.h, r.size); err != nil {
				return fmt.Errorf("%w: %w", err, ErrDamaged)
			}
		}
		if int64(len(r.data)) > compressedBound(r.size) {
			return damagedf("blob %s: %d compressed bytes, more than the %d bytes it declares compress to", r.h, len(r.data), r.size)
		}
		if err := bud.take(r.size, "blob "+r.h.String()); err != nil {
			return err
		}
		got = append(got, r)
		return nil
	})
	if errors.Is(err, ErrUnusable) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("read blobs: %w", err)
	}
	out := make([][]byte, len(got))
	errs := make([]error, len(got))
	parallel(len(got), func(i int) { out[i], errs[i] = s.codec.decompress(got[i].h, got[i].data, got[i].size) })
	m := make(map[Hash][]byte, len(got))
	for i, r := range got {
		if errs[i] != nil {
			return nil, unusable(errs[i])
		}
		m[r.h] = out[i]
	}
	for _, h := range hashes {
		if _, ok := m[h]; !ok {
			return nil, fmt.Errorf("blob %s is missing from the store: %w", h, ErrDamaged)
		}
	}
	return m, nil
}

// parallel runs fn(i) for i in [0, n) on every core.
func parallel(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	var wg sync.WaitGroup
	var next sync.Mutex
	i := 0
	for range workers {
		wg.Go(func() {
			for {
				next.Lock()
				j := i
				i++
				next.Unlock()
				if j >= n {
					return
				}
				fn(j)
			}
		})
	}
	wg.Wait()
}
