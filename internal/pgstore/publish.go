package pgstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/index/chunk"
)

// PublishStats says what a publish wrote.
type PublishStats struct {
	Repo       string `json:"repo"`
	Generation int64  `json:"generation"`
	// Unchanged is true when the tree and its side files are those of the
	// current generation: nothing was written.
	Unchanged bool  `json:"unchanged"`
	Files     int   `json:"files"`
	Bytes     int64 `json:"bytes"` // the texts' total size
	// NewBlobs and Written count the blobs the store lacked and their
	// compressed bytes; Checked counts the blobs looked for (those of
	// the files that changed since the current generation, the side
	// files' blocks and the manifest).
	NewBlobs int   `json:"newBlobs"`
	Written  int64 `json:"written"`
	Checked  int   `json:"checked"`
	// Image is true when the publish uploaded a new index image, of
	// ImageWritten compressed bytes (not in Written).
	Image        bool    `json:"image"`
	ImageWritten int64   `json:"imageWritten"`
	DurationMs   float64 `json:"durationMs"`
}

// Side is a side file of an index directory to publish with it.
type Side struct {
	Name string // "semantic.v2", "history.v2"
	Path string // where it is; a missing file is left out
}

// KeepGenerations is how many generations of a repository the store
// keeps: the current one and those before it that replicas may still be
// checking out.
const KeepGenerations = 3

// Publish writes snap's files, their chunks and the side files into the
// store as the next generation of repo, and makes it current. Blobs the
// store has already are not written again. A file whose disk content no
// longer matches snap fails the publish (index again, then publish).
// PublishOptions say what a publish carries besides the snapshot.
type PublishOptions struct {
	// Sides are side files of the index directory to publish with it.
	Sides []Side
	// Image is the index's image files (index.Index.ImageFiles): uploaded
	// when the repository's image is missing or stale (ImageStale). Nil:
	// none.
	Image map[string]string
	// Producer identifies what made the snapshot's chunks
	// (index.Index.ChunkingKey): a file whose content is what the current
	// generation, published by the same producer, had at the same path
	// keeps its stored chunks without their being encoded again. Empty:
	// every file's chunks are encoded.
	Producer string
}

func (s *Store) Publish(ctx context.Context, repo string, snap *index.Snapshot, po PublishOptions) (PublishStats, error) {
	start := time.Now()
	st := PublishStats{Repo: repo}
	if err := CheckRepoName(repo); err != nil {
		return st, err
	}
	m := &Manifest{Format: manifestFormat, Repo: repo, StateRoot: snap.StateRoot(), Producer: po.Producer}
	prev := s.previous(ctx, repo, po.Producer)
	paths := snap.Paths()
	m.Files = make([]FileEntry, len(paths))
	chunkBlobs := make([][]byte, len(paths))
	parallel(len(paths), func(i int) {
		p := paths[i]
		fi, _ := snap.Stat(p)
		m.Files[i] = FileEntry{Path: p, Size: fi.Size, MTime: fi.ModTime.UnixNano(), Text: fi.Hash}
		if fi.ModTime.IsZero() {
			m.Files[i].MTime = 0
		}
		if old, ok := prev[p]; ok && old.Text == fi.Hash {
			m.Files[i].Chunks = old.Chunks // stored already
			return
		}
		ics := snap.ChunksOf(p)
		sc := StoredChunks{Chunks: make([]chunk.Chunk, 0, len(ics)), Encodings: snap.Encodings()}
		sc.Tokens = make([][]int32, len(sc.Encodings))
		for _, c := range ics {
			sc.Chunks = append(sc.Chunks, c.Chunk)
			for k, e := range sc.Encodings {
				n, _ := snap.TokenCount(c.ID, e)
				sc.Tokens[k] = append(sc.Tokens[k], int32(n))
			}
		}
		chunkBlobs[i] = encodeChunks(sc)
		m.Files[i].Chunks = hashOf(chunkBlobs[i]).String()
	})
	// Every blob the generation names, then those the store lacks.
	type want struct {
		h    Hash
		text string // the path whose text it is ("": not a text)
		raw  []byte
	}
	var wants []want
	seen := map[Hash]bool{}
	add := func(w want) {
		if !seen[w.h] {
			seen[w.h] = true
			wants = append(wants, w)
		}
	}
	for i, f := range m.Files {
		st.Bytes += f.Size
		if chunkBlobs[i] == nil {
			continue // as in the current generation: its blobs are stored
		}
		h, err := parseHash(f.Text)
		if err != nil {
			return st, fmt.Errorf("publish %s: %s: %w", repo, f.Path, err)
		}
		add(want{h: h, text: f.Path})
		add(want{h: hashOf(chunkBlobs[i]), raw: chunkBlobs[i]})
	}
	for _, sd := range po.Sides {
		b, err := os.ReadFile(sd.Path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return st, fmt.Errorf("publish %s: %w", repo, err)
		}
		blocks, err := splitBlocks(b)
		if err != nil {
			return st, fmt.Errorf("publish %s: %s: %w", repo, sd.Name, err)
		}
		e := SideEntry{Name: sd.Name, Size: int64(len(b))}
		for _, blk := range blocks {
			h := hashOf(blk)
			e.Blocks = append(e.Blocks, h.String())
			add(want{h: h, raw: blk})
		}
		m.Sides = append(m.Sides, e)
	}
	mb := m.encode()
	mh := hashOf(mb)
	add(want{h: mh, raw: mb})
	st.Files = len(m.Files)

	hashes := make([]Hash, len(wants))
	for i, w := range wants {
		hashes[i] = w.h
	}
	miss, err := s.missing(ctx, hashes)
	if err != nil {
		return st, fmt.Errorf("publish %s: %w", repo, err)
	}
	var news []blob
	for _, w := range wants {
		if !miss[w.h] {
			continue
		}
		raw := w.raw
		if w.text != "" {
			f, err := snap.FileOnce(w.text)
			if err != nil {
				return st, fmt.Errorf("publish %s: %w (index the root again, then publish)", repo, err)
			}
			raw = []byte(f.Text)
		}
		news = append(news, blob{hash: w.h, raw: raw})
	}
	st.NewBlobs, st.Checked = len(news), len(wants)
	if st.Written, err = s.putBlobs(ctx, news); err != nil {
		return st, fmt.Errorf("publish %s: %w", repo, err)
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO ctxls_repos (name) VALUES ($1) ON CONFLICT (name) DO NOTHING", repo); err != nil {
			return err
		}
		var cur int64
		if err := tx.QueryRow(ctx, "SELECT generation FROM ctxls_repos WHERE name = $1 FOR UPDATE", repo).Scan(&cur); err != nil {
			return err
		}
		var curManifest []byte
		err := tx.QueryRow(ctx, "SELECT manifest FROM ctxls_generations WHERE repo = $1 AND id = $2", repo, cur).Scan(&curManifest)
		if err == nil && bytes.Equal(curManifest, mh[:]) {
			st.Generation, st.Unchanged = cur, true
			return nil
		}
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		st.Generation = cur + 1
		if _, err := tx.Exec(ctx, "INSERT INTO ctxls_generations (repo, id, manifest, files, bytes) VALUES ($1, $2, $3, $4, $5)",
			repo, st.Generation, mh[:], st.Files, st.Bytes); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE ctxls_repos SET generation = $2, updated = now() WHERE name = $1", repo, st.Generation); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "DELETE FROM ctxls_generations WHERE repo = $1 AND id <= $2", repo, st.Generation-KeepGenerations); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "SELECT pg_notify($1, $2)", NotifyChannel, repo)
		return err
	})
	if err != nil {
		return st, fmt.Errorf("publish %s: %w", repo, err)
	}
	if st.Image, st.ImageWritten, err = s.maybeImage(ctx, repo, st.Generation, m, mh, po.Image); err != nil {
		return st, fmt.Errorf("publish %s: index image: %w", repo, err)
	}
	st.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	return st, nil
}

// NotifyChannel is the PostgreSQL channel a publish notifies, with the
// repository's name as payload.
const NotifyChannel = "ctxls_generations"

// previous returns the files of repo's current generation by path, when
// producer (not empty) made it: their chunks can be reused.
func (s *Store) previous(ctx context.Context, repo, producer string) map[string]FileEntry {
	if producer == "" {
		return nil
	}
	_, mh, err := s.current(ctx, repo)
	if err != nil {
		return nil
	}
	blobs, err := s.getBlobs(ctx, []Hash{mh})
	if err != nil {
		return nil
	}
	m, err := decodeManifest(blobs[mh])
	if err != nil || m.Producer != producer {
		return nil
	}
	out := make(map[string]FileEntry, len(m.Files))
	for _, f := range m.Files {
		out[f.Path] = f
	}
	return out
}
