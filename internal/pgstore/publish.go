package pgstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
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
	// current generation: no generation was written.
	Unchanged bool  `json:"unchanged"`
	Files     int   `json:"files"`
	Bytes     int64 `json:"bytes"` // the texts' total size
	// NewBlobs and Written count the blobs the store lacked and the
	// compressed bytes of every blob written (new and repaired); Checked
	// counts the stored rows checked (every blob the generation names:
	// texts, chunks, side files' blocks, the manifest; and the blocks of
	// the image kept or uploaded).
	NewBlobs int   `json:"newBlobs"`
	Written  int64 `json:"written"`
	Checked  int   `json:"checked"`
	// ReadBack counts the rows read back to check them (the publisher's
	// record had no digest of them, or another); Repaired, the rows found
	// damaged (their content is not what their name says, or their size
	// not their content's) and written again.
	ReadBack int `json:"readBack"`
	Repaired int `json:"repaired"`
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

// PublishOptions say what a publish carries besides the snapshot.
type PublishOptions struct {
	// Sides are side files of the index directory to publish with it.
	Sides []Side
	// Image is the index's image files (index.Index.ImageFiles): uploaded
	// when the repository's image is missing, stale (ImageStale), damaged
	// or not the one this publisher uploaded. Nil: none.
	Image map[string]string
	// Producer identifies what made the snapshot's chunks
	// (index.Index.ChunkingKey): a file whose content is what the
	// generation this publisher published last (RecordDir's record) had
	// at the same path, made by the same producer with the same token
	// encodings, keeps its chunks without their being encoded again.
	// Empty: every file's chunks are encoded.
	Producer string
	// RecordDir is a directory of the publisher's own (its index
	// directory) where a publish keeps its record of the repository in
	// this store (repair.go): the generation it published and the digests
	// of the rows it checked, so that the next publish checks each row
	// with a digest the server computes. Empty: no record; every file's
	// chunks are encoded and every row the store has is read back.
	RecordDir string
}

// Publish writes snap's files, their chunks and the side files into the
// store as the next generation of repo, and makes it current. Every row
// the generation names is checked, and those the store lacks or holds
// damaged are written (repair.go); nothing the store holds is reused
// unchecked. A file whose disk content no longer matches snap fails the
// publish (index again, then publish).
func (s *Store) Publish(ctx context.Context, repo string, snap *index.Snapshot, po PublishOptions) (PublishStats, error) {
	start := time.Now()
	st := PublishStats{Repo: repo}
	if err := CheckRepoName(repo); err != nil {
		return st, err
	}
	if err := s.codec.init(); err != nil {
		return st, fmt.Errorf("publish %s: %w", repo, err)
	}
	recPath := s.recordPath(po.RecordDir, repo)
	c := &rowChecker{s: s, prev: readRecord(recPath), rows: map[Hash]Hash{}}
	m := &Manifest{Format: manifestFormat, Repo: repo, StateRoot: snap.StateRoot(), Producer: po.Producer}
	key := chunksKey(po.Producer, snap.Encodings())
	prev := s.previous(ctx, c.prev, key)
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
			m.Files[i].Chunks = old.Chunks // this publisher's, checked below
			return
		}
		chunkBlobs[i] = encodeFileChunks(snap, p)
		m.Files[i].Chunks = hashOf(chunkBlobs[i]).String()
	})
	// Every blob the generation names, the manifest last.
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
		th, err := parseHash(f.Text)
		if err != nil {
			return st, fmt.Errorf("publish %s: %s: %w", repo, f.Path, err)
		}
		ch, err := parseHash(f.Chunks)
		if err != nil {
			return st, fmt.Errorf("publish %s: %s: its chunks: %w", repo, f.Path, err)
		}
		add(want{h: th, text: f.Path, file: -1})
		add(want{h: ch, file: i, raw: chunkBlobs[i]})
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
			add(want{h: h, file: -1, raw: blk})
		}
		m.Sides = append(m.Sides, e)
	}
	st.Files = len(m.Files)
	mb := m.encode()
	mh := hashOf(mb)
	add(want{h: mh, file: -1, raw: mb})

	hashes := make([]Hash, len(wants))
	for i, w := range wants {
		hashes[i] = w.h
	}
	// Blobs written (or found stored), then the generation committed, the
	// collection held off meanwhile (gc.go); one that deleted some in
	// between all the same makes the commit fail with errBlobsGone, and
	// the blobs are checked and written again.
	unlock, err := s.lockShared(ctx, "publish "+repo)
	if err != nil {
		return st, fmt.Errorf("publish %s: %w", repo, s.unreachable(ctx, err))
	}
	defer unlock()
	for attempt := 1; ; attempt++ {
		err := s.writeAndCommit(ctx, repo, snap, paths, m, wants, hashes, c, &st)
		if errors.Is(err, errBlobsGone) && attempt < publishAttempts {
			s.log("store %s: publish %s: %v; writing them again", s.id, repo, err)
			continue
		}
		if err != nil {
			return st, err
		}
		break
	}
	mh = hashOf(m.encode())
	s.forgetUnusable(repo)
	var ih Hash
	for attempt := 1; attempt <= publishAttempts; attempt++ {
		err = s.retry(ctx, "publish "+repo+": index image", func() (err error) {
			st.Image, st.ImageWritten, ih, err = s.maybeImage(ctx, repo, st.Generation, m, mh, po.Image, c, &st)
			return err
		})
		if !errors.Is(err, errBlobsGone) {
			break
		}
		s.log("store %s: publish %s: index image: %v; writing them again", s.id, repo, err)
	}
	if err != nil {
		return st, fmt.Errorf("publish %s: index image: %w", repo, s.unreachable(ctx, err))
	}
	st.ReadBack = c.readBack
	// The record is a cache: one that cannot be written costs the next
	// publish reading back the rows it names, nothing else.
	if rec := (&publishRecord{manifest: mh, chunks: key, image: ih, rows: c.rows}); !rec.same(c.prev) {
		_ = rec.write(recPath)
	}
	st.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	return st, nil
}

// publishTx makes the generation whose manifest is mh current for repo,
// in one transaction, and notifies the replicas; st gets its number (and
// Unchanged when it is current already). Every blob named (the manifest's
// and those it names) must be stored: errBlobsGone when a collection
// deleted one since it was written or checked.
func (s *Store) publishTx(ctx context.Context, repo string, mh Hash, named []Hash, st *PublishStats) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		if err := checkStored(ctx, tx, named); err != nil {
			return err
		}
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
			if st.Repaired == 0 {
				return nil
			}
			// The same generation, its damaged rows written again:
			// replicas that found it unusable read it again now.
			_, err := tx.Exec(ctx, "SELECT pg_notify($1, $2)", NotifyChannel, repo)
			return err
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
}

// encodeFileChunks is the stored form of the chunks of snap's file p,
// with their token counts.
func encodeFileChunks(snap *index.Snapshot, p string) []byte {
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
	return encodeChunks(sc)
}

// chunksKey is what a file's stored chunks are a function of besides its
// path and content: the producer (the chunker's configuration) and the
// token encodings counted. "": chunks are not reused.
func chunksKey(producer string, encodings []string) string {
	if producer == "" {
		return ""
	}
	return producer + "\x00" + strings.Join(encodings, ",")
}

// NotifyChannel is the PostgreSQL channel a publish notifies, with the
// repository's name as payload.
const NotifyChannel = "ctxls_generations"

// previous returns the files of the generation this publisher published
// last (rec's), by path, when its chunks were made with key (not empty):
// their chunks can be reused. The manifest is read by its name from the
// record, so that its content is the publisher's own; another generation
// made current since (by another writer) lends nothing.
func (s *Store) previous(ctx context.Context, rec *publishRecord, key string) map[string]FileEntry {
	if key == "" || rec.chunks != key || rec.manifest == (Hash{}) {
		return nil
	}
	blobs, err := s.getBlobs(ctx, []Hash{rec.manifest})
	if err != nil {
		return nil // damaged or gone: every file's chunks are encoded
	}
	m, err := decodeManifest(blobs[rec.manifest])
	if err != nil {
		return nil
	}
	out := make(map[string]FileEntry, len(m.Files))
	for _, f := range m.Files {
		out[f.Path] = f
	}
	return out
}

// want is a blob a generation names.
type want struct {
	h    Hash
	text string // the path whose text it is ("": not a text)
	file int    // the file whose chunks it is (-1: none)
	raw  []byte // nil: a text, or chunks reused
}

// writeAndCommit checks the stored rows of the blobs wants names (hashes),
// writes those missing or damaged, and makes the generation m current
// (errBlobsGone when a collection deleted some meanwhile).
func (s *Store) writeAndCommit(ctx context.Context, repo string, snap *index.Snapshot, paths []string, m *Manifest, wants []want, hashes []Hash, c *rowChecker, st *PublishStats) error {
	mb := m.encode()
	mh := hashOf(mb)
	var missing, damaged map[Hash]bool
	err := s.retry(ctx, "publish "+repo+": check the stored blobs", func() (err error) {
		missing, damaged, err = c.check(ctx, hashes)
		return err
	})
	if err != nil {
		return fmt.Errorf("publish %s: check the stored blobs: %w", repo, s.unreachable(ctx, err))
	}
	var news []blob
	renamed := map[string]string{} // reused chunks encoded again under another name
	for _, w := range wants {
		if !missing[w.h] && !damaged[w.h] {
			continue
		}
		raw := w.raw
		switch {
		case w.text != "":
			f, err := snap.FileOnce(w.text)
			if err != nil {
				return fmt.Errorf("publish %s: %w (index the root again, then publish)", repo, err)
			}
			raw = []byte(f.Text)
		case raw == nil:
			// Chunks reused from the last generation whose row is gone or
			// damaged: encoded again (the same bytes, unless the producer
			// key did not capture a change of the chunker).
			raw = encodeFileChunks(snap, paths[w.file])
			if h := hashOf(raw); h != w.h {
				renamed[w.h.String()] = h.String()
				news = append(news, blob{hash: h, raw: raw})
				st.NewBlobs++
				continue
			}
		}
		news = append(news, blob{hash: w.h, raw: raw})
		if damaged[w.h] {
			st.Repaired++
		} else {
			st.NewBlobs++
		}
	}
	if len(renamed) > 0 {
		for i := range m.Files {
			if h, ok := renamed[m.Files[i].Chunks]; ok {
				m.Files[i].Chunks = h
			}
		}
		mb = m.encode()
		mh = hashOf(mb)
		news = append(news, blob{hash: mh, raw: mb})
		st.NewBlobs++
	}
	st.Checked = len(wants)
	written, digests, err := s.putBlobs(ctx, news)
	if err != nil {
		return fmt.Errorf("publish %s: %w", repo, s.unreachable(ctx, err))
	}
	st.Written += written
	c.wrote(news, digests)
	named := make([]Hash, 0, len(hashes)+1)
	for _, h := range hashes {
		if r, ok := renamed[h.String()]; ok {
			h, _ = parseHash(r)
		}
		named = append(named, h)
	}
	named = append(named, mh)
	if s.beforeCommit != nil {
		s.beforeCommit()
	}
	err = s.retry(ctx, "publish "+repo+": make the generation current", func() error { return s.publishTx(ctx, repo, mh, named, st) })
	if err != nil {
		return fmt.Errorf("publish %s: %w", repo, s.unreachable(ctx, err))
	}
	return nil
}
