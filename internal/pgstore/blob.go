package pgstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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
		return Hash{}, fmt.Errorf("a stored hash of %d bytes (damaged)", len(b))
	}
	return Hash(b), nil
}

// parseHash reads a hex hash (a manifest's).
func parseHash(s string) (Hash, error) {
	var h Hash
	if len(s) != 64 {
		return h, fmt.Errorf("bad hash %q", s)
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, fmt.Errorf("bad hash %q", s)
	}
	return h, nil
}

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
			c.dec, c.err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(1<<31))
		}
	})
	return c.err
}

func (c *codec) compress(b []byte) []byte { return c.enc.EncodeAll(b, make([]byte, 0, len(b)/3+64)) }

// decompress returns the bytes of a blob and checks them against its
// name: a damaged row is an error, never content.
func (c *codec) decompress(h Hash, data []byte, size int64) ([]byte, error) {
	out, err := c.dec.DecodeAll(data, make([]byte, 0, size))
	if err != nil {
		return nil, fmt.Errorf("blob %s: %v: %w", h, err, ErrDamaged)
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
		err := s.inTx(ctx, func(tx pgx.Tx) error {
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
		if err != nil {
			return written, nil, fmt.Errorf("write blobs: %w", err)
		}
		written += int64(size)
		lo = hi
	}
	return written, digests, nil
}

// getBlobs reads and checks the named blobs. A blob the store lacks is an
// error: a manifest names only blobs written before it.
func (s *Store) getBlobs(ctx context.Context, hashes []Hash) (map[Hash][]byte, error) {
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
		r.h, err = hashFrom(hb)
		got = append(got, r)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read blobs: %w", err)
	}
	out := make([][]byte, len(got))
	errs := make([]error, len(got))
	parallel(len(got), func(i int) { out[i], errs[i] = s.codec.decompress(got[i].h, got[i].data, got[i].size) })
	m := make(map[Hash][]byte, len(got))
	for i, r := range got {
		if errs[i] != nil {
			return nil, errs[i]
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
