package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/jackc/pgx/v5"
)

// An image is the publisher's index files of one generation
// (index.Index.ImageFiles): a cold replica imports it
// (index.ImportImage) and refreshes only the files that changed since,
// instead of building its lexical store and tables from every file's
// chunks. The files are cut into content-defined blocks like the side
// files. A publish uploads one when the repository has none, or when more
// than ImageStale of its files changed since the image's generation: an
// image is a full upload, amortized over the publishes it serves.

// ImageStale is the share of a repository's files changed since its
// image's generation past which a publish uploads a new image.
const ImageStale = 0.1

// imageManifest is an image's own manifest.
type imageManifest struct {
	Format     int         `json:"format"`
	Generation int64       `json:"generation"`
	Manifest   string      `json:"manifest"` // the generation's manifest blob
	Files      []SideEntry `json:"files"`    // by name (index.ImageFiles's)
}

// maybeImage uploads the image files (name → path) of generation gen
// (manifest m, blob mh) unless the repository's image is fresh enough,
// and returns whether it did, the compressed bytes written and the image
// the repository has now from this publisher (zero: none). An image is
// kept only when it is the one this publisher uploaded (c's record), it
// can be read and its blocks' rows are whole (c checks them, counted in
// st); another writer's image, or a damaged one, is replaced as a stale
// one is.
func (s *Store) maybeImage(ctx context.Context, repo string, gen int64, m *Manifest, mh Hash, files map[string]string, c *rowChecker, st *PublishStats) (bool, int64, Hash, error) {
	if files == nil {
		return false, 0, Hash{}, nil
	}
	if ih, err := s.imageName(ctx, repo); err == nil && ih == c.prev.image && ih != (Hash{}) {
		if im, old, err := s.image(ctx, repo, s.newBudget()); err == nil && old != nil && changedShare(old, m) <= ImageStale {
			hs := []Hash{ih}
			if h, err := parseHash(im.Manifest); err == nil {
				hs = append(hs, h)
			}
			for _, e := range im.Files {
				for _, b := range e.Blocks {
					if h, err := parseHash(b); err == nil {
						hs = append(hs, h)
					}
				}
			}
			missing, damaged, err := c.check(ctx, hs)
			if err != nil {
				return false, 0, Hash{}, err
			}
			st.Checked += len(hs)
			if len(missing) == 0 && len(damaged) == 0 {
				return false, 0, ih, nil
			}
		}
	}
	im := imageManifest{Format: manifestFormat, Generation: gen, Manifest: mh.String()}
	var blobs []blob
	seen := map[Hash]bool{}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		b, err := os.ReadFile(files[name])
		if err != nil {
			return false, 0, Hash{}, fmt.Errorf("image: %w", err)
		}
		blocks, err := splitImageBlocks(b)
		if err != nil {
			return false, 0, Hash{}, fmt.Errorf("image: %w", err)
		}
		e := SideEntry{Name: name, Size: int64(len(b))}
		for _, blk := range blocks {
			h := hashOf(blk)
			e.Blocks = append(e.Blocks, h.String())
			if !seen[h] {
				seen[h] = true
				blobs = append(blobs, blob{hash: h, raw: blk})
			}
		}
		im.Files = append(im.Files, e)
	}
	ib, err := json.Marshal(im)
	if err != nil {
		return false, 0, Hash{}, err
	}
	ih := hashOf(ib)
	blobs = append(blobs, blob{hash: ih, raw: ib})
	hashes := make([]Hash, len(blobs))
	for i, b := range blobs {
		hashes[i] = b.hash
	}
	missing, damaged, err := c.check(ctx, hashes)
	if err != nil {
		return false, 0, Hash{}, err
	}
	st.Checked += len(hashes)
	st.Repaired += len(damaged)
	blobs = slices.DeleteFunc(blobs, func(b blob) bool { return !missing[b.hash] && !damaged[b.hash] })
	n, digests, err := s.putBlobs(ctx, blobs)
	if err != nil {
		return false, n, Hash{}, err
	}
	c.wrote(blobs, digests)
	// Another image of a later generation (a publish that committed after
	// this one) stays; one said to be of a generation the repository has
	// not reached is not a publisher's. Its blobs must be stored still (a
	// collection may have run since they were written or checked).
	named := append(hashes, mh)
	var affected int64
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		if err := checkStored(ctx, tx, named); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `INSERT INTO ctxls_images (repo, generation, image) VALUES ($1, $2, $3)
		ON CONFLICT (repo) DO UPDATE SET generation = EXCLUDED.generation, image = EXCLUDED.image
		WHERE ctxls_images.generation <= EXCLUDED.generation
			OR ctxls_images.generation > (SELECT r.generation FROM ctxls_repos r WHERE r.name = EXCLUDED.repo)`, repo, gen, ih[:])
		affected = tag.RowsAffected()
		return err
	})
	if err != nil {
		return false, n, Hash{}, err
	}
	if affected == 0 {
		return true, n, Hash{}, nil
	}
	return true, n, ih, nil
}

// imageName returns the name of repo's image manifest (zero: none).
func (s *Store) imageName(ctx context.Context, repo string) (Hash, error) {
	var b []byte
	err := s.pool.QueryRow(ctx, "SELECT image FROM ctxls_images WHERE repo = $1", repo).Scan(&b)
	if errors.Is(err, pgx.ErrNoRows) {
		return Hash{}, nil
	}
	if err != nil {
		return Hash{}, err
	}
	return hashFrom(b)
}

// changedShare is the share of b's files whose text is not a's at the
// same path.
func changedShare(a, b *Manifest) float64 {
	if len(b.Files) == 0 {
		return 0
	}
	had := make(map[string]string, len(a.Files))
	for _, f := range a.Files {
		had[f.Path] = f.Text
	}
	n := 0
	for _, f := range b.Files {
		if had[f.Path] != f.Text {
			n++
		}
	}
	return float64(n) / float64(len(b.Files))
}

// readImageManifest reads the image manifest blob ih, paid from bud.
func (s *Store) readImageManifest(ctx context.Context, ih Hash, bud *budget) (*imageManifest, error) {
	got, err := s.readBlobs(ctx, []Hash{ih}, bud, nil)
	if err != nil {
		return nil, err
	}
	im, err := decodeImageManifest(got[ih])
	if err != nil {
		return nil, fmt.Errorf("image manifest %s: %w", ih, err)
	}
	return im, nil
}

// decodeImageManifest reads an image manifest and checks what a checkout
// relies on: its generation's manifest named by a hash, its files named
// once, each of a size its blocks can hold. Any other is ErrUnusable.
func decodeImageManifest(b []byte) (*imageManifest, error) {
	var im imageManifest
	if err := json.Unmarshal(b, &im); err != nil {
		return nil, unusablef("not readable: %w", err)
	}
	if im.Format != manifestFormat {
		return nil, unusablef("format %d, this ctxls reads %d", im.Format, manifestFormat)
	}
	if _, err := parseHash(im.Manifest); err != nil {
		return nil, unusablef("its generation's manifest: %w", err)
	}
	for i, e := range im.Files {
		if e.Name == "" || slices.ContainsFunc(im.Files[:i], func(o SideEntry) bool { return o.Name == e.Name }) {
			return nil, unusablef("file %q empty or named twice", e.Name)
		}
		if err := checkBlocked(e); err != nil {
			return nil, unusable(err)
		}
	}
	return &im, nil
}

// manifestOf reads and decodes the manifest blob named by hex, paid from
// bud.
func (s *Store) manifestOf(ctx context.Context, hex string, bud *budget) (*Manifest, error) {
	h, err := parseHash(hex)
	if err != nil {
		return nil, err
	}
	got, err := s.readBlobs(ctx, []Hash{h}, bud, nil)
	if err != nil {
		return nil, err
	}
	return decodeManifest(got[h])
}

// image returns repo's image manifest and the manifest of its
// generation (nil, nil: the repository has no image), paid from bud.
func (s *Store) image(ctx context.Context, repo string, bud *budget) (*imageManifest, *Manifest, error) {
	var imh []byte
	err := s.pool.QueryRow(ctx, "SELECT image FROM ctxls_images WHERE repo = $1", repo).Scan(&imh)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	ih, err := hashFrom(imh)
	if err != nil {
		return nil, nil, err
	}
	im, err := s.readImageManifest(ctx, ih, bud)
	if err != nil {
		return nil, nil, err
	}
	m, err := s.manifestOf(ctx, im.Manifest, bud)
	if err != nil {
		return nil, nil, fmt.Errorf("the image's generation: %w", err)
	}
	return im, m, nil
}

// fetchImage returns repo's image (its files by name) and the manifest of
// its generation, or nil when the repository has none, paid from bud.
func (s *Store) fetchImage(ctx context.Context, repo string, bud *budget) (map[string][]byte, *Manifest, error) {
	im, m, err := s.image(ctx, repo, bud)
	if im == nil || err != nil {
		return nil, nil, err
	}
	files, err := s.readBlocked(ctx, im.Files, bud)
	if err != nil {
		return nil, nil, err
	}
	return files, m, nil
}

// readBlocked reads files stored as content-defined blocks (side files,
// an image's files; checkBlocked approved their entries), by name, paid
// from bud: each distinct block as it is read (none may declare more than
// a block holds), and each file as it is put together, after its blocks
// are known to make its size.
func (s *Store) readBlocked(ctx context.Context, entries []SideEntry, bud *budget) (map[string][]byte, error) {
	var hs []Hash
	seen := map[Hash]bool{}
	for _, e := range entries {
		for _, b := range e.Blocks {
			h, err := parseHash(b)
			if err != nil {
				return nil, err
			}
			if !seen[h] {
				seen[h] = true
				hs = append(hs, h)
			}
		}
	}
	got, err := s.readBlobs(ctx, hs, bud, func(h Hash, size int64) error {
		if size > blockMax {
			return fmt.Errorf("blob %s declares %d bytes, more than a block of a stored file holds (%d)", h, size, blockMax)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	files := make(map[string][]byte, len(entries))
	for _, e := range entries {
		var n int64
		for _, b := range e.Blocks {
			h, _ := parseHash(b)
			n += int64(len(got[h]))
		}
		if n != e.Size {
			return nil, unusablef("stored file %s: its blocks hold %d bytes, want %d", e.Name, n, e.Size)
		}
		if err := bud.take(n, "stored file "+e.Name); err != nil {
			return nil, err
		}
		out := make([]byte, 0, n)
		for _, b := range e.Blocks {
			h, _ := parseHash(b)
			out = append(out, got[h]...)
		}
		files[e.Name] = out
	}
	return files, nil
}
