package pgstore

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ctxls/ctxls/internal/cachefile"
	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/index/chunk"
	"github.com/ctxls/ctxls/internal/osfile"
)

// Checkout is one generation of a repository in a replica's cache
// directory: the indexed files' texts under Root, and what a local index
// over Root needs to be built from the stored chunks (Lister, NewChunker,
// ConfigKey) into IndexDir. It holds a shared lock on the checkout until
// Close, so that no other process updates the tree under it.
//
// Layout of a checkout directory (<cache>/<hash of store and repository>):
//
//	lock           flock(2) (LockFileEx on Windows): exclusive while updating, shared while used
//	state.json     the generation checked out and its manifest's hash,
//	               written once its pack is complete
//	manifest.json  that manifest (the next update's base)
//	packs/<hash>   the generation's texts, one after another (packLayout):
//	               the index reads them through Files, not from a file
//	               each (creating 10 000 files took a cold replica seconds)
//	tree/          the index's root: an empty directory
//	index/         the index's cache directory (package index)
//	sides/         side files fetched and not yet installed (InstallSides)
type Checkout struct {
	Repo       string
	Generation int64
	Root       string // the tree
	IndexDir   string // the index's cache directory
	// Written counts the files whose text this checkout changed.
	Written int

	store *Store
	dir   string
	lock  *os.File
	upd   sync.Mutex // one Update at a time

	mu       sync.Mutex
	entries  map[string]*FileEntry // the checked-out manifest's files
	manifest Hash
	pack     *cachefile.Mapped // the generation's texts (packLayout)
	spans    map[string]span   // text hash → its bytes in pack
	chunks   map[Hash][]byte   // chunk blobs fetched ahead
	image    map[string][]byte // the index image fetched (TakeImage)
}

// span is a text's place in a pack.
type span struct{ off, n int64 }

// ConfigKey is the index configuration key of a checkout's index: its
// chunks come from the store, not from a parser of this process.
const ConfigKey = "pgstore-chunks-v1"

// state is state.json.
type state struct {
	Generation int64  `json:"generation"`
	Manifest   string `json:"manifest"`
}

// Checkout brings the current generation of repo into the cache
// directory parent (created if missing) and returns it, locked for
// reading. allow, when not nil, is asked first: a repository it refuses
// is reported exactly as one the store does not have.
func (s *Store) Checkout(ctx context.Context, repo, parent string, allow func(repo string) bool) (*Checkout, error) {
	if err := CheckRepoName(repo); err != nil {
		return nil, err
	}
	if allow != nil && !allow(repo) {
		return nil, fmt.Errorf("%w: %s", ErrNoRepo, repo)
	}
	gen, mh, err := s.current(ctx, repo)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(s.id + "\x00" + repo))
	dir := filepath.Join(parent, hex.EncodeToString(sum[:16]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("checkout %s: %w", repo, err)
	}
	c := &Checkout{Repo: repo, Generation: gen, Root: filepath.Join(dir, "tree"), IndexDir: filepath.Join(dir, "index"),
		store: s, dir: dir, chunks: map[Hash][]byte{}}
	c.lock, err = os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("checkout %s: %w", repo, err)
	}
	if err := flock(ctx, c.lock, osfile.Shared); err != nil {
		c.lock.Close()
		return nil, fmt.Errorf("checkout %s: %w", repo, err)
	}
	m, ok := c.readLocal(mh)
	if !ok {
		if m, _, err = c.updateLocked(ctx, gen, mh); err != nil {
			c.Close()
			return nil, fmt.Errorf("checkout %s (generation %d): %w", repo, gen, err)
		}
	}
	c.setManifest(m, mh, gen)
	return c, nil
}

// setManifest makes m (whose blob is mh, of generation gen) the
// checkout's manifest.
func (c *Checkout) setManifest(m *Manifest, mh Hash, gen int64) {
	entries := make(map[string]*FileEntry, len(m.Files))
	for i := range m.Files {
		entries[m.Files[i].Path] = &m.Files[i]
	}
	c.mu.Lock()
	c.entries, c.manifest, c.Generation = entries, mh, gen
	c.mu.Unlock()
}

// Gen returns the generation checked out (Generation, read safely while
// an Update may run).
func (c *Checkout) Gen() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.Generation
}

// updateLocked takes the exclusive lock, brings the tree to mh's manifest
// unless another process did meanwhile, and shares the lock again. It
// returns the manifest and the paths whose text changed, appeared or
// went.
func (c *Checkout) updateLocked(ctx context.Context, gen int64, mh Hash) (*Manifest, []string, error) {
	if err := flock(ctx, c.lock, osfile.Exclusive); err != nil {
		return nil, nil, err
	}
	defer flock(context.Background(), c.lock, osfile.Shared) //nolint:errcheck // converting to a shared lock does not wait
	if m, ok := c.readLocal(mh); ok {
		return m, nil, nil
	}
	return c.update(ctx, mh, gen)
}

// Update brings the checkout to the repository's current generation, if
// a newer one was published, and returns the paths that changed (the
// caller refreshes its index: the lister and the chunker answer for the
// new generation from now on) and whether the generation moved.
func (c *Checkout) Update(ctx context.Context) (changed []string, moved bool, err error) {
	c.upd.Lock()
	defer c.upd.Unlock()
	gen, mh, err := c.store.current(ctx, c.Repo)
	if err != nil {
		return nil, false, err
	}
	c.mu.Lock()
	same := mh == c.manifest
	c.mu.Unlock()
	if same {
		return nil, false, nil
	}
	m, changed, err := c.updateLocked(ctx, gen, mh)
	if err != nil {
		return nil, false, fmt.Errorf("update %s to generation %d: %w", c.Repo, gen, err)
	}
	c.setManifest(m, mh, gen)
	return changed, true, nil
}

// Dirs returns the index's root and cache directory.
func (c *Checkout) Dirs() (root, indexDir string) { return c.Root, c.IndexDir }

// TakeImage returns the index image the checkout fetched for an index
// directory that had no index (nil: none), and forgets it: the caller
// imports it (index.ImportImage) before opening the index.
func (c *Checkout) TakeImage() map[string][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	img := c.image
	c.image = nil
	return img
}

// Close releases the checkout's lock.
func (c *Checkout) Close() error {
	if c.lock == nil {
		return nil
	}
	err := c.lock.Close()
	c.lock = nil
	return err
}

// current returns repo's current generation and its manifest's hash.
func (s *Store) current(ctx context.Context, repo string) (int64, Hash, error) {
	var gen int64
	var mh []byte
	err := s.pool.QueryRow(ctx, `SELECT r.generation, g.manifest FROM ctxls_repos r
		JOIN ctxls_generations g ON g.repo = r.name AND g.id = r.generation WHERE r.name = $1`, repo).Scan(&gen, &mh)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, Hash{}, fmt.Errorf("%w: %s", ErrNoRepo, repo)
	}
	if err != nil {
		return 0, Hash{}, fmt.Errorf("read %s's generation: %w", repo, err)
	}
	if len(mh) != len(Hash{}) {
		return 0, Hash{}, fmt.Errorf("read %s's generation: bad manifest hash", repo)
	}
	return gen, Hash(mh), nil
}

// readLocal returns the checked-out manifest when it is mh's, its pack
// mapped.
func (c *Checkout) readLocal(mh Hash) (*Manifest, bool) {
	var st state
	b, err := os.ReadFile(filepath.Join(c.dir, "state.json"))
	if err != nil || json.Unmarshal(b, &st) != nil || st.Manifest != mh.String() {
		return nil, false
	}
	mb, err := os.ReadFile(filepath.Join(c.dir, "manifest.json"))
	if err != nil || hashOf(mb) != mh {
		return nil, false
	}
	m, err := decodeManifest(mb)
	if err != nil {
		return nil, false
	}
	spans, size := packLayout(m)
	pack, err := mapPack(c.packPath(mh), size)
	if err != nil {
		return nil, false
	}
	c.mu.Lock()
	c.pack, c.spans = pack, spans
	c.mu.Unlock()
	return m, true
}

// packPath is where the pack of the generation whose manifest is mh is.
func (c *Checkout) packPath(mh Hash) string {
	return filepath.Join(c.dir, "packs", mh.String())
}

// packLayout places each distinct text of m, in the order of m's files,
// one after another: the pack of a generation is a function of its
// manifest, and needs no index of its own.
func packLayout(m *Manifest) (map[string]span, int64) {
	spans := make(map[string]span, len(m.Files))
	var off int64
	for _, f := range m.Files {
		if _, ok := spans[f.Text]; !ok {
			spans[f.Text] = span{off, f.Size}
			off += f.Size
		}
	}
	return spans, off
}

// mapPack maps the pack at path, which must hold size bytes.
func mapPack(path string, size int64) (*cachefile.Mapped, error) {
	if size == 0 {
		return &cachefile.Mapped{}, nil
	}
	m, err := cachefile.Map(path)
	if err != nil {
		return nil, err
	}
	if int64(len(m.Data)) != size {
		return nil, fmt.Errorf("%s: %d bytes, want %d", path, len(m.Data), size)
	}
	return m, nil
}

// update brings the checkout from the checked-out manifest (if any) to
// mh's: a new pack, with the texts the old one had copied from it and the
// others fetched. It returns the manifest and the paths whose text changed,
// appeared or went.
func (c *Checkout) update(ctx context.Context, mh Hash, gen int64) (*Manifest, []string, error) {
	blobs, err := c.store.getBlobs(ctx, []Hash{mh})
	if err != nil {
		return nil, nil, err
	}
	m, err := decodeManifest(blobs[mh])
	if err != nil {
		return nil, nil, err
	}
	// The old generation: its manifest and pack, when both are whole.
	var old *Manifest
	var oldPack *cachefile.Mapped
	var oldSpans map[string]span
	if ob, err := os.ReadFile(filepath.Join(c.dir, "manifest.json")); err == nil {
		if old, err = decodeManifest(ob); err == nil {
			var size int64
			oldSpans, size = packLayout(old)
			if oldPack, err = mapPack(c.packPath(hashOf(ob)), size); err != nil {
				oldPack, oldSpans = nil, nil
			}
		} else {
			old = nil // damaged: everything is fetched again
		}
	}
	if err := os.MkdirAll(c.Root, 0o700); err != nil {
		return nil, nil, err
	}
	// Invalidate first: a crash from here on leaves no state.json, and
	// the next checkout does this again.
	if err := os.Remove(filepath.Join(c.dir, "state.json")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, err
	}
	had := map[string]*FileEntry{}
	if old != nil {
		for i := range old.Files {
			had[old.Files[i].Path] = &old.Files[i]
		}
	}
	var changed []string
	var write []*FileEntry
	for i := range m.Files {
		f := &m.Files[i]
		o := had[f.Path]
		delete(had, f.Path)
		if o == nil || o.Text != f.Text || o.MTime != f.MTime || o.Size != f.Size {
			write = append(write, f)
			changed = append(changed, f.Path)
		}
	}
	for p := range had {
		changed = append(changed, p)
	}
	slices.Sort(changed)
	c.Written = len(write)
	// The texts the old pack lacks.
	spans, size := packLayout(m)
	var fetch []Hash
	seen := map[string]bool{}
	for _, f := range m.Files {
		if _, ok := oldSpans[f.Text]; ok || seen[f.Text] {
			continue
		}
		seen[f.Text] = true
		h, err := parseHash(f.Text)
		if err != nil {
			return nil, nil, err
		}
		fetch = append(fetch, h)
	}
	got, err := c.store.getBlobs(ctx, fetch)
	if err != nil {
		return nil, nil, err
	}
	if err := c.writePack(mh, m, spans, size, got, oldPack, oldSpans); err != nil {
		return nil, nil, err
	}
	pack, err := mapPack(c.packPath(mh), size)
	if err != nil {
		return nil, nil, err
	}
	// Chunks for the files the index will chunk: the changed ones; with
	// no index yet, the files changed since the repository's image (which
	// the index starts from), or every file when there is no image.
	need := write
	if _, err := os.Stat(filepath.Join(c.IndexDir, "CURRENT")); err != nil {
		image, im, err := c.store.fetchImage(ctx, c.Repo)
		if err != nil {
			return nil, nil, err
		}
		c.image = image
		had := map[string]string{}
		if im != nil {
			for _, f := range im.Files {
				had[f.Path] = f.Text
			}
		}
		need = nil
		for i := range m.Files {
			if had[m.Files[i].Path] != m.Files[i].Text {
				need = append(need, &m.Files[i])
			}
		}
	}
	if err := c.prefetchChunks(ctx, need); err != nil {
		return nil, nil, err
	}
	if err := c.fetchSides(ctx, m, old); err != nil {
		return nil, nil, err
	}
	if err := cachefile.Write(filepath.Join(c.dir, "manifest.json"), blobs[mh]); err != nil {
		return nil, nil, err
	}
	sb, _ := json.Marshal(state{Generation: gen, Manifest: mh.String()})
	if err := cachefile.Write(filepath.Join(c.dir, "state.json"), sb); err != nil {
		return nil, nil, err
	}
	c.mu.Lock()
	c.pack, c.spans = pack, spans
	c.mu.Unlock()
	// Older packs go (a process still reading one keeps its mapping).
	if ents, err := os.ReadDir(filepath.Join(c.dir, "packs")); err == nil {
		for _, e := range ents {
			if e.Name() != mh.String() {
				os.Remove(filepath.Join(c.dir, "packs", e.Name()))
			}
		}
	}
	return m, changed, nil
}

// writePack writes the pack of the generation mh (manifest m, laid out as
// spans, size bytes), taking each text from the old pack or from fetched.
func (c *Checkout) writePack(mh Hash, m *Manifest, spans map[string]span, size int64, fetched map[Hash][]byte, oldPack *cachefile.Mapped, oldSpans map[string]span) error {
	if size == 0 {
		return nil
	}
	return cachefile.WriteFunc(c.packPath(mh), func(f io.Writer) error {
		w := bufio.NewWriterSize(f, 1<<20)
		placed := make(map[string]bool, len(spans))
		var off int64
		for _, fe := range m.Files {
			if placed[fe.Text] {
				continue
			}
			placed[fe.Text] = true
			var b []byte
			if sp, ok := oldSpans[fe.Text]; ok {
				b = oldPack.Data[sp.off : sp.off+sp.n]
			} else {
				h, _ := parseHash(fe.Text)
				b = fetched[h]
			}
			if sp := spans[fe.Text]; sp.off != off || int64(len(b)) != sp.n {
				return fmt.Errorf("%s: the stored text has %d bytes, the manifest says %d", fe.Path, len(b), sp.n)
			}
			if _, err := w.Write(b); err != nil {
				return err
			}
			off += int64(len(b))
		}
		return w.Flush()
	})
}

// Files is the checkout's texts as the index's FileSource: the manifest's
// sizes and times, the pack's bytes.
func (c *Checkout) Files() index.FileSource { return packFiles{c} }

type packFiles struct{ c *Checkout }

func (pf packFiles) Stat(rel string) (int64, time.Time, error) {
	pf.c.mu.Lock()
	f := pf.c.entries[rel]
	pf.c.mu.Unlock()
	if f == nil {
		return 0, time.Time{}, fmt.Errorf("%s: %w", rel, fs.ErrNotExist)
	}
	var t time.Time
	if f.MTime != 0 {
		t = time.Unix(0, f.MTime)
	}
	return f.Size, t, nil
}

func (pf packFiles) ReadFile(rel string) ([]byte, error) {
	pf.c.mu.Lock()
	f := pf.c.entries[rel]
	pack, spans := pf.c.pack, pf.c.spans
	pf.c.mu.Unlock()
	if f == nil {
		return nil, fmt.Errorf("%s: %w", rel, fs.ErrNotExist)
	}
	sp, ok := spans[f.Text]
	if !ok || pack == nil {
		return nil, fmt.Errorf("%s: not in the checkout's pack", rel)
	}
	return bytes.Clone(pack.Data[sp.off : sp.off+sp.n]), nil
}

// prefetchChunks reads the chunk blobs of files.
func (c *Checkout) prefetchChunks(ctx context.Context, files []*FileEntry) error {
	var hs []Hash
	seen := map[Hash]bool{}
	for _, f := range files {
		h, err := parseHash(f.Chunks)
		if err != nil {
			return err
		}
		if !seen[h] {
			seen[h] = true
			hs = append(hs, h)
		}
	}
	got, err := c.store.getBlobs(ctx, hs)
	if err != nil {
		return err
	}
	c.mu.Lock()
	for h, b := range got {
		c.chunks[h] = b
	}
	c.mu.Unlock()
	return nil
}

// fetchSides writes the side files that changed since old into sides/,
// for InstallSides.
func (c *Checkout) fetchSides(ctx context.Context, m, old *Manifest) error {
	prev := map[string]string{}
	if old != nil {
		for _, sd := range old.Sides {
			b, _ := json.Marshal(sd.Blocks)
			prev[sd.Name] = string(b)
		}
	}
	var fetch []SideEntry
	for _, sd := range m.Sides {
		if b, _ := json.Marshal(sd.Blocks); prev[sd.Name] == string(b) {
			if _, err := os.Stat(filepath.Join(c.IndexDir, sd.Name)); err == nil {
				continue // installed and unchanged
			}
		}
		fetch = append(fetch, sd)
	}
	files, err := c.store.readBlocked(ctx, fetch)
	if err != nil {
		return err
	}
	for _, sd := range fetch {
		if err := cachefile.Write(filepath.Join(c.dir, "sides", sd.Name), files[sd.Name]); err != nil {
			return err
		}
	}
	return nil
}

// InstallSides moves the side files fetched by the checkout into the
// index directory dir (which the index created: it owns the directory).
func (c *Checkout) InstallSides(dir string) error {
	ents, err := os.ReadDir(filepath.Join(c.dir, "sides"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !sideName(e.Name()) {
			continue
		}
		if err := osfile.Rename(filepath.Join(c.dir, "sides", e.Name()), filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("install %s: %w", e.Name(), err)
		}
	}
	return nil
}

// Lister lists the manifest's files, with its sizes and times: the
// checkout's index never walks the tree.
func (c *Checkout) Lister() index.Lister { return manifestLister{c} }

type manifestLister struct{ c *Checkout }

func (l manifestLister) List(context.Context, string) ([]index.Entry, []index.Skipped, error) {
	l.c.mu.Lock()
	entries := l.c.entries
	l.c.mu.Unlock()
	out := make([]index.Entry, 0, len(entries))
	for _, f := range entries {
		e := index.Entry{Path: f.Path, Size: f.Size}
		if f.MTime != 0 {
			e.ModTime = time.Unix(0, f.MTime)
		}
		out = append(out, e)
	}
	return out, nil, nil
}

// NewChunker returns chunkers that answer with the stored chunks and
// their token counts.
func (c *Checkout) NewChunker() (index.Chunker, error) { return &storeChunker{c: c}, nil }

// storeChunker is one index worker's chunker of a checkout.
type storeChunker struct {
	c        *Checkout
	last     StoredChunks // what Chunk returned last, for Counts
	lastPath string
	parser   *chunk.Chunker // for content the store does not have
}

func (sc *storeChunker) Close() {
	if sc.parser != nil {
		sc.parser.Close()
	}
}

// Counts returns the stored token counts, per encoding (nil: not
// stored), of the chunks the last Chunk call returned for p
// (index.CountingChunker).
func (sc *storeChunker) Counts(p string, encodings []string) [][]int32 {
	if sc.lastPath != p {
		return nil
	}
	out := make([][]int32, len(encodings))
	for i, e := range encodings {
		if k := slices.Index(sc.last.Encodings, e); k >= 0 {
			out[i] = sc.last.Tokens[k]
		}
	}
	return out
}

func (sc *storeChunker) Chunk(p string, src []byte) ([]chunk.Chunk, error) {
	sc.c.mu.Lock()
	f := sc.c.entries[p]
	sc.c.mu.Unlock()
	if sum := sha256.Sum256(src); f == nil || hex.EncodeToString(sum[:]) != f.Text {
		// Content the store does not have (a pull request's file laid
		// over the checkout): parsed here, as the publisher would.
		sc.lastPath = ""
		if sc.parser == nil {
			sc.parser = chunk.NewChunker(chunk.Options{})
		}
		return sc.parser.Chunk(p, src)
	}
	h, err := parseHash(f.Chunks)
	if err != nil {
		return nil, err
	}
	// A prefetched blob serves once: the index keeps what it makes of it.
	sc.c.mu.Lock()
	b, ok := sc.c.chunks[h]
	delete(sc.c.chunks, h)
	sc.c.mu.Unlock()
	if !ok {
		// Not fetched ahead (an index rebuilt after damage): ask now.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		got, err := sc.c.store.getBlobs(ctx, []Hash{h})
		if err != nil {
			return nil, err
		}
		b = got[h]
	}
	stored, err := decodeChunks(b, p)
	if err != nil {
		return nil, err
	}
	sc.last, sc.lastPath = stored, p
	return stored.Chunks, nil
}

// flock takes (or converts to) the lock how on f, waiting under ctx.
func flock(ctx context.Context, f *os.File, how osfile.Lock) error {
	for {
		ok, err := osfile.TryLock(f, how)
		if ok {
			return nil
		}
		if err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}
