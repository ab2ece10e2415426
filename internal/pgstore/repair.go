package pgstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/ctxls/ctxls/internal/cachefile"
)

// What a publish trusts. Anyone who may write the store may write any
// row: a row under the name of a text another repository will publish
// (an empty file, a licence), a row replaced after it was written, a
// generation of its own naming a repository's texts with other chunks,
// an index image. A publish therefore takes nothing from the store on
// faith:
//
//   - every row the generation names (texts, chunks, side files' blocks,
//     the manifest) and every row of the image it keeps or uploads is
//     checked, whether it was written now or long ago; a row missing or
//     damaged (its content is not what its hash names) is written again;
//   - a file's chunks are reused only from the generation this publisher
//     itself published last (its record), for the same path, text and
//     producer (the chunker's configuration and the token encodings);
//     otherwise they are encoded again;
//   - the repository's image is kept only when it is the one this
//     publisher uploaded.
//
// Checking a row costs one digest the server computes (rowDigest: the
// sha256 of the row's size and compressed bytes, with PostgreSQL's
// builtins): a row whose digest is the one the publisher's record has for
// it holds what the publisher wrote or read back and checked before. Any other row is read back,
// decompressed and hashed, once. The record is a cache in the publisher's
// own directory (its index directory): without one, a publish reads back
// every row it names that the store has.

// recordMagic starts a publish record (cachefile.WriteRecords).
const recordMagic = "ctxls publish record 1\n"

// publishRecord is what a publisher remembers of its last publish of a
// repository into a store.
type publishRecord struct {
	manifest Hash   // the generation's manifest (zero: none)
	chunks   string // the chunks key the generation's chunks were made with
	image    Hash   // the image manifest it uploaded or kept (zero: none)
	// rows maps a blob to its row's rowDigest, as the publish wrote or
	// checked it.
	rows map[Hash]Hash
}

// recordPath is the record of repo in this store under dir ("": none).
func (s *Store) recordPath(dir, repo string) string {
	if dir == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(s.id + "\x00" + repo))
	return filepath.Join(dir, "pgstore-publish-"+hex.EncodeToString(sum[:8]))
}

// readRecord reads the record at path; an empty one when there is none
// or it cannot be read (the publish then checks more).
func readRecord(path string) *publishRecord {
	rec := &publishRecord{rows: map[Hash]Hash{}}
	if path == "" {
		return rec
	}
	body := cachefile.ReadRecords(path, recordMagic)
	if body == nil {
		return rec
	}
	r := &cachefile.Record{B: body}
	m, chunks, im := r.String(), r.String(), r.String()
	n := r.Uvarint()
	if r.Err != nil || len(m) != len(Hash{}) || len(im) != len(Hash{}) || n != uint64(len(r.B))/64 || len(r.B)%64 != 0 {
		return rec
	}
	rec.manifest, rec.chunks, rec.image = Hash([]byte(m)), chunks, Hash([]byte(im))
	for b := r.B; len(b) > 0; b = b[64:] {
		rec.rows[Hash(b[:32])] = Hash(b[32:64])
	}
	return rec
}

// same reports whether rec says what o says.
func (rec *publishRecord) same(o *publishRecord) bool {
	return rec.manifest == o.manifest && rec.chunks == o.chunks && rec.image == o.image && maps.Equal(rec.rows, o.rows)
}

// write writes the record to path (nothing when path is "").
func (rec *publishRecord) write(path string) error {
	if path == "" {
		return nil
	}
	var b []byte
	b = cachefile.AppendString(b, string(rec.manifest[:]))
	b = cachefile.AppendString(b, rec.chunks)
	b = cachefile.AppendString(b, string(rec.image[:]))
	b = binary.AppendUvarint(b, uint64(len(rec.rows)))
	for _, h := range slices.SortedFunc(maps.Keys(rec.rows), func(a, b Hash) int { return bytes.Compare(a[:], b[:]) }) {
		d := rec.rows[h]
		b = append(append(b, h[:]...), d[:]...)
	}
	return cachefile.WriteRecords(path, recordMagic, b)
}

// rowChecker checks the stored rows of the blobs a publish names, and
// collects the digests of the rows it found whole (the next record's).
type rowChecker struct {
	s    *Store
	prev *publishRecord // the publisher's record before this publish
	rows map[Hash]Hash  // blob → its row's digest, as found whole or written now
	// readBack counts the rows read back and hashed (no digest of them
	// in the record, or another).
	readBack int
}

// readBackBatch is how many rows a check reads back at once.
const readBackBatch = 500

// digestConns is how many queries a check runs at once: the server
// hashes rows on as many cores.
const digestConns = 4

// rowDigest is the digest of a stored row of size uncompressed bytes
// whose compressed bytes are data: the SHA-256 of size (8 bytes, big
// endian) and data, which the server computes as
// sha256(int8send(size) || data).
func rowDigest(size int64, data []byte) Hash {
	h := sha256.New()
	h.Write(binary.BigEndian.AppendUint64(nil, uint64(size)))
	h.Write(data)
	return Hash(h.Sum(nil))
}

// digests returns the rowDigest of each row the store has of hashes,
// computed by the server.
func (s *Store) digests(ctx context.Context, hashes []Hash) (map[Hash]Hash, error) {
	batch := max(100, min(2500, (len(hashes)+digestConns-1)/digestConns))
	parts := (len(hashes) + batch - 1) / batch
	found := make([]map[Hash]Hash, parts)
	errs := make([]error, parts)
	sem := make(chan struct{}, digestConns)
	var wg sync.WaitGroup
	for i := range parts {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			part := hashes[i*batch : min((i+1)*batch, len(hashes))]
			found[i] = make(map[Hash]Hash, len(part))
			errs[i] = s.eachBlobRow(ctx, "SELECT hash, sha256(int8send(size) || data) FROM ctxls_blobs WHERE hash = ANY($1)", part, batch, func(rows pgx.Rows) error {
				var hb, db []byte
				if err := rows.Scan(&hb, &db); err != nil {
					return err
				}
				h, err := hashFrom(hb)
				if err != nil {
					return err
				}
				d, err := hashFrom(db)
				found[i][h] = d
				return err
			})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	out := make(map[Hash]Hash, len(hashes))
	for _, f := range found {
		maps.Copy(out, f)
	}
	return out, nil
}

// check returns which of hashes the store lacks and which it holds
// damaged: a row whose content is not what its name says, or whose size
// is not its content's.
func (c *rowChecker) check(ctx context.Context, hashes []Hash) (missing, damaged map[Hash]bool, err error) {
	digests, err := c.s.digests(ctx, hashes)
	if err != nil {
		return nil, nil, err
	}
	missing, damaged = map[Hash]bool{}, map[Hash]bool{}
	var again []Hash
	for _, h := range hashes {
		d, ok := digests[h]
		switch {
		case !ok:
			missing[h] = true
		case c.prev.rows[h] == d && d != Hash{}:
			c.rows[h] = d
		default:
			again = append(again, h)
		}
	}
	for lo := 0; lo < len(again); lo += readBackBatch {
		batch := again[lo:min(lo+readBackBatch, len(again))]
		type row struct {
			h    Hash
			size int64
			data []byte
		}
		var got []row
		err := c.s.eachBlobRow(ctx, "SELECT hash, size, data FROM ctxls_blobs WHERE hash = ANY($1)", batch, len(batch), func(rows pgx.Rows) error {
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
			return nil, nil, err
		}
		whole := make([]bool, len(got))
		parallel(len(got), func(i int) {
			// The row's size is only a hint of the buffer to decompress
			// into (a damaged row may claim any), then checked.
			out, err := c.s.codec.decompress(got[i].h, got[i].data, min(max(got[i].size, 0), int64(len(got[i].data))*8+4096))
			whole[i] = err == nil && int64(len(out)) == got[i].size
		})
		seen := make(map[Hash]bool, len(got))
		for i, r := range got {
			seen[r.h] = true
			if whole[i] {
				c.rows[r.h] = rowDigest(r.size, r.data)
			} else {
				damaged[r.h] = true
			}
		}
		for _, h := range batch {
			if !seen[h] {
				missing[h] = true // gone since the digests were read
			}
		}
		c.readBack += len(got)
	}
	return missing, damaged, nil
}

// wrote notes the rows put as blobs, with the digests putBlobs returned.
func (c *rowChecker) wrote(blobs []blob, digests []Hash) {
	for i, b := range blobs {
		c.rows[b.hash] = digests[i]
	}
}
