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
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
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
// Layout of a checkout directory (<cache>/<hash of store and repository>),
// which follows the rules of an index directory (index.PrepareOwnedDir:
// tagged, never a symbolic link, refused when another program's) and in
// which no symbolic link is followed (one in place of an entry below is
// removed as a link and the entry made again):
//
//	CACHEDIR.TAG   the cache directory tag
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
		s.noteFailure(repo, gen, hashOf([]byte(repo)), err)
		return nil, s.unreachable(ctx, err)
	}
	dir := s.checkoutDir(parent, repo)
	if err := index.PrepareOwnedDir(dir, earlierCheckout); err != nil {
		return nil, fmt.Errorf("checkout %s: %w", repo, err)
	}
	c := &Checkout{Repo: repo, Generation: gen, Root: filepath.Join(dir, "tree"), IndexDir: filepath.Join(dir, "index"),
		store: s, dir: dir, chunks: map[Hash][]byte{}}
	c.lock, err = openLock(filepath.Join(dir, "lock"))
	if err != nil {
		return nil, fmt.Errorf("checkout %s: %w", repo, err)
	}
	if err := flock(ctx, c.lock, osfile.Shared); err != nil {
		c.lock.Close()
		return nil, fmt.Errorf("checkout %s: %w", repo, err)
	}
	m, ok := c.readLocal(mh)
	if !ok {
		err := s.knownUnusable(mh)
		if err == nil {
			m, _, err = c.updateLocked(ctx, gen, mh)
			s.noteFailure(repo, gen, mh, err)
		}
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("checkout %s (generation %d): %w", repo, gen, s.unreachable(ctx, err))
		}
	}
	c.setManifest(m, mh, gen)
	return c, nil
}

// checkoutDir is the directory of repo's checkout under parent.
func (s *Store) checkoutDir(parent, repo string) string {
	sum := sha256.Sum256([]byte(s.id + "\x00" + repo))
	return filepath.Join(parent, hex.EncodeToString(sum[:16]))
}

// earlierCheckout reports whether ents, the entries of a checkout
// directory without a tag, are what earlier ctxls versions left in one:
// the lock (the first thing each wrote), the state and manifest files and
// their temporary files, the packs, tree, index and sides directories.
func earlierCheckout(ents []fs.DirEntry) bool {
	lock := false
	for _, e := range ents {
		name, t := e.Name(), e.Type()
		switch {
		case t.IsRegular() && name == "lock":
			lock = true
		case t.IsRegular() && (name == "state.json" || name == "manifest.json" || isTempOf(name, "state.json") || isTempOf(name, "manifest.json") || index.TagTempFile(name)):
		case t.IsDir() && (name == "packs" || name == "tree" || name == "index" || name == "sides"):
		default:
			return false
		}
	}
	return lock
}

// isTempOf reports whether name is a temporary file of cachefile.Write
// for the file base: "." + base + "-" + digits.
func isTempOf(name, base string) bool {
	rest, ok := strings.CutPrefix(name, "."+base+"-")
	if !ok || rest == "" {
		return false
	}
	for _, c := range rest {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// openLock opens (creating it) the lock file at path, never through a
// symbolic link: a link in its place is removed first.
func openLock(path string) (*os.File, error) {
	for range 2 {
		f, err := osfile.OpenNoFollow(path, os.O_CREATE|os.O_RDWR, 0o600)
		if !errors.Is(err, syscall.ELOOP) {
			return f, err
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("%s: a symbolic link in place of the lock file", path)
}

// ownDir makes path a directory of the checkout's own: a missing one is
// made (0700); a symbolic link or a file in its place is removed (the
// link, never what it points to), then the directory made.
func ownDir(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case err == nil && fi.IsDir():
		return nil
	case err == nil:
		if err := os.Remove(path); err != nil {
			return err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if err := os.Mkdir(path, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	if fi, err := os.Lstat(path); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s: not a directory", path)
	}
	return nil
}

// readOwn reads the file name of the checkout directory, never through a
// symbolic link.
func (c *Checkout) readOwn(name string) ([]byte, error) {
	f, err := osfile.OpenNoFollow(filepath.Join(c.dir, name), os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// removeInDir removes the entries of the checkout's subdirectory sub for
// which drop is true: inside the checkout directory only (os.Root), a
// symbolic link removed as a link.
func (c *Checkout) removeInDir(sub string, drop func(name string) bool) {
	r, err := os.OpenRoot(c.dir)
	if err != nil {
		return
	}
	defer r.Close()
	if fi, err := r.Lstat(sub); err != nil || !fi.IsDir() {
		return
	}
	f, err := r.Open(sub)
	if err != nil {
		return
	}
	ents, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return
	}
	for _, e := range ents {
		if drop(e.Name()) {
			_ = r.Remove(sub + "/" + e.Name())
		}
	}
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
		c.store.noteFailure(c.Repo, gen, hashOf([]byte(c.Repo)), err)
		return nil, false, c.store.unreachable(ctx, err)
	}
	c.mu.Lock()
	same := mh == c.manifest
	c.mu.Unlock()
	if same {
		return nil, false, nil
	}
	err = c.store.knownUnusable(mh)
	var m *Manifest
	if err == nil {
		m, changed, err = c.updateLocked(ctx, gen, mh)
		c.store.noteFailure(c.Repo, gen, mh, err)
	}
	if err != nil {
		return nil, false, fmt.Errorf("update %s to generation %d: %w", c.Repo, gen, c.store.unreachable(ctx, err))
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

// Close releases the checkout's lock and lets go of what it holds in
// memory (its pack's mapping, its manifest's entries, chunks fetched
// ahead): its directory stays, for a later Checkout to start from.
func (c *Checkout) Close() error {
	c.mu.Lock()
	c.pack, c.spans, c.chunks, c.image = nil, nil, map[Hash][]byte{}, nil
	c.mu.Unlock()
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
		return gen, Hash{}, unusablef("read %s's generation: a manifest hash of %d bytes", repo, len(mh))
	}
	return gen, Hash(mh), nil
}

// readLocal returns the checked-out manifest when it is mh's, its pack
// mapped.
func (c *Checkout) readLocal(mh Hash) (*Manifest, bool) {
	var st state
	b, err := c.readOwn("state.json")
	if err != nil || json.Unmarshal(b, &st) != nil || st.Manifest != mh.String() {
		return nil, false
	}
	mb, err := c.readOwn("manifest.json")
	if err != nil || hashOf(mb) != mh {
		return nil, false
	}
	m, err := decodeManifest(mb)
	if err != nil {
		return nil, false
	}
	spans, size, ok := packLayout(m, math.MaxInt64)
	if !ok {
		return nil, false
	}
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
// manifest, and needs no index of its own. It fails (false) when the
// texts hold more than limit bytes together (decodeManifest has checked
// each size).
func packLayout(m *Manifest, limit int64) (map[string]span, int64, bool) {
	spans := make(map[string]span, len(m.Files))
	var off int64
	for _, f := range m.Files {
		if _, ok := spans[f.Text]; !ok {
			if f.Size > limit-off {
				return nil, 0, false
			}
			spans[f.Text] = span{off, f.Size}
			off += f.Size
		}
	}
	return spans, off, true
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
// appeared or went. Everything it reads from the store is paid from one
// budget (EnvMaxRepoBytes); when it fails, what it wrote (the new pack,
// side files) is removed.
func (c *Checkout) update(ctx context.Context, mh Hash, gen int64) (_ *Manifest, _ []string, err error) {
	bud := c.store.newBudget()
	blobs, err := c.store.readBlobs(ctx, []Hash{mh}, bud, nil)
	if err != nil {
		return nil, nil, err
	}
	m, err := decodeManifest(blobs[mh])
	if err != nil {
		return nil, nil, err
	}
	spans, size, ok := packLayout(m, bud.left)
	if !ok {
		return nil, nil, unusablef("the generation's texts: more than the %d bytes left of the limit of %d bytes a replica reads for one repository ($%s)", bud.left, bud.limit, EnvMaxRepoBytes)
	}
	// The old generation: its manifest and pack, when both are whole.
	var old *Manifest
	var oldHash Hash
	var oldPack *cachefile.Mapped
	var oldSpans map[string]span
	if ob, err := c.readOwn("manifest.json"); err == nil {
		oldHash = hashOf(ob)
		if old, err = decodeManifest(ob); err == nil {
			var size int64
			var ok bool
			if oldSpans, size, ok = packLayout(old, math.MaxInt64); ok {
				oldPack, err = mapPack(c.packPath(oldHash), size)
			}
			if !ok || err != nil {
				oldPack, oldSpans = nil, nil
			}
		} else {
			old = nil // damaged: everything is fetched again
		}
	}
	for _, sub := range []string{"tree", "packs", "sides"} {
		if err := ownDir(filepath.Join(c.dir, sub)); err != nil {
			return nil, nil, err
		}
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
	// What this update writes goes when it fails: the new pack (unless
	// it is the old one), the side files fetched.
	var wroteSides []string
	defer func() {
		if err == nil {
			return
		}
		if oldHash != mh {
			c.removeInDir("packs", func(name string) bool { return name == mh.String() })
		}
		c.removeInDir("sides", func(name string) bool { return slices.Contains(wroteSides, name) })
	}()
	if err := c.writePack(ctx, mh, m, spans, size, oldPack, oldSpans, bud); err != nil {
		return nil, nil, err
	}
	pack, err := mapPack(c.packPath(mh), size)
	if err != nil {
		return nil, nil, err
	}
	// Chunks for the files the index will chunk: the changed ones; with
	// no index yet, the files changed since the repository's image (which
	// the index starts from), or every file when there is no image or it
	// cannot be used.
	need := write
	if _, err := os.Stat(filepath.Join(c.IndexDir, "CURRENT")); err != nil {
		left := bud.left
		image, im, err := c.store.fetchImage(ctx, c.Repo, bud)
		if errors.Is(err, ErrUnusable) {
			c.store.log("store: repository %s: its index image cannot be used (%v); its index is built from the stored chunks", c.Repo, err)
			image, im, err, bud.left = nil, nil, nil, left
		}
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
	if err := c.prefetchChunks(ctx, need, bud); err != nil {
		return nil, nil, err
	}
	if wroteSides, err = c.fetchSides(ctx, m, old, bud); err != nil {
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
	// Older packs go, and temporary files a crash left (a process still
	// reading a pack keeps its mapping).
	c.removeInDir("packs", func(name string) bool { return name != mh.String() && packName(name) })
	return m, changed, nil
}

// packName reports whether name is a pack's (a manifest's hash in hex)
// or the temporary file of one.
func packName(name string) bool {
	if len(name) > 66 && name[0] == '.' && name[65] == '-' && isTempOf(name, name[1:65]) {
		name = name[1:65]
	}
	_, err := parseHash(name)
	return err == nil && strings.ToLower(name) == name
}

// packBatch is about how many bytes of texts a checkout reads from the
// store at a time while it writes a pack.
const packBatch = 32 << 20

// writePack writes the pack of the generation mh (manifest m, laid out as
// spans, size bytes), taking each text from the old pack or from the
// store, paid from bud: read in batches of about packBatch bytes, each
// text's blob declaring the size its manifest gives.
func (c *Checkout) writePack(ctx context.Context, mh Hash, m *Manifest, spans map[string]span, size int64, oldPack *cachefile.Mapped, oldSpans map[string]span, bud *budget) error {
	if size == 0 {
		return nil
	}
	var order []*FileEntry // each distinct text once, in pack order
	placed := make(map[string]bool, len(spans))
	for i := range m.Files {
		if fe := &m.Files[i]; !placed[fe.Text] {
			placed[fe.Text] = true
			order = append(order, fe)
		}
	}
	sizeOf := func(h Hash, n int64) error {
		if want := spans[h.String()].n; n != want {
			return fmt.Errorf("blob %s declares %d bytes, its manifest says the text has %d", h, n, want)
		}
		return nil
	}
	// The store's errors are returned as they are: they are about the
	// store, not about the pack's path in the cache.
	var storeErr error
	err := cachefile.WriteFunc(c.packPath(mh), func(f io.Writer) error {
		w := bufio.NewWriterSize(f, 1<<20)
		var off int64
		for lo := 0; lo < len(order); {
			hi, n := lo, int64(0)
			var batch []Hash
			for hi < len(order) && (len(batch) == 0 || n < packBatch) {
				fe := order[hi]
				hi++
				if _, ok := oldSpans[fe.Text]; !ok {
					h, _ := parseHash(fe.Text)
					batch = append(batch, h)
					n += fe.Size
				}
			}
			got, err := c.store.readBlobs(ctx, batch, bud, sizeOf)
			if err != nil {
				storeErr = err
				return err
			}
			for _, fe := range order[lo:hi] {
				var b []byte
				if sp, ok := oldSpans[fe.Text]; ok {
					b = oldPack.Data[sp.off : sp.off+sp.n]
				} else {
					h, _ := parseHash(fe.Text)
					b = got[h]
				}
				if sp := spans[fe.Text]; sp.off != off || int64(len(b)) != sp.n {
					storeErr = unusablef("%s: the stored text has %d bytes, the manifest says %d", fe.Path, len(b), sp.n)
					return storeErr
				}
				if _, err := w.Write(b); err != nil {
					return err
				}
				off += int64(len(b))
			}
			lo = hi
		}
		return w.Flush()
	})
	if storeErr != nil {
		return storeErr
	}
	return err
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

// prefetchChunks reads the chunk blobs of files, paid from bud.
func (c *Checkout) prefetchChunks(ctx context.Context, files []*FileEntry, bud *budget) error {
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
	got, err := c.store.readBlobs(ctx, hs, bud, nil)
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
// for InstallSides, paid from bud; it returns their names.
func (c *Checkout) fetchSides(ctx context.Context, m, old *Manifest, bud *budget) ([]string, error) {
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
	files, err := c.store.readBlocked(ctx, fetch, bud)
	if err != nil {
		return nil, err
	}
	var wrote []string
	for _, sd := range fetch {
		if err := cachefile.Write(filepath.Join(c.dir, "sides", sd.Name), files[sd.Name]); err != nil {
			return wrote, err
		}
		wrote = append(wrote, sd.Name)
	}
	return wrote, nil
}

// InstallSides moves the side files fetched by the checkout into the
// index directory dir (which the index created: it owns the directory).
// Only regular files in the checkout's own sides directory move: a
// symbolic link, there or in its place, is not followed.
func (c *Checkout) InstallSides(dir string) error {
	sides := filepath.Join(c.dir, "sides")
	if fi, err := os.Lstat(sides); errors.Is(err, fs.ErrNotExist) || (err == nil && !fi.IsDir()) {
		return nil
	}
	ents, err := os.ReadDir(sides)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !sideName(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		if err := osfile.Rename(filepath.Join(sides, e.Name()), filepath.Join(dir, e.Name())); err != nil {
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
		// Not fetched ahead (a union's index, an index rebuilt after
		// damage): ask now. A store that does not answer leaves the file
		// out for now (index.ErrUnavailable): the index says it is not
		// complete, and the next refresh asks again.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		got, err := sc.c.store.getBlobs(ctx, []Hash{h})
		if err != nil && !errors.Is(err, ErrUnusable) {
			err = fmt.Errorf("%s: %w: %w", p, index.ErrUnavailable, sc.c.store.unreachable(ctx, err))
		}
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
