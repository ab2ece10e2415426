package index

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxls/ctxls/internal/index/chunk"
	"github.com/ctxls/ctxls/internal/index/postings"
	"github.com/ctxls/ctxls/internal/osfile"
)

// ErrNotFound is returned (wrapped) for a path that is not in a snapshot.
var ErrNotFound = errors.New("not in the index")

// ErrStale is returned (wrapped) by Snapshot.File when the file on disk no
// longer has the content the snapshot indexed; the caller should refresh
// the file (Index.Update) and retry on the newer snapshot.
var ErrStale = errors.New("file changed on disk since it was indexed")

// env is what every snapshot of one Index shares; it is immutable apart
// from its caches (texts, shared).
type env struct {
	root      string // absolute workspace root
	encodings []string
	pool      *scorerPool
	texts     *textCache
	files     FileSource // nil: the disk under root
	shared    sync.Map   // Snapshot.Shared's values, by key
}

// stat returns the size and modification time of the file at the
// root-relative path rel (fs.ErrNotExist, wrapped, when there is none, or
// it is not a regular file).
func (e *env) stat(rel string) (int64, time.Time, error) {
	if e.files != nil {
		return e.files.Stat(rel)
	}
	fi, err := os.Stat(filepath.Join(e.root, filepath.FromSlash(rel)))
	if err != nil {
		return 0, time.Time{}, err
	}
	if !fi.Mode().IsRegular() {
		return 0, time.Time{}, fmt.Errorf("%s: not a regular file: %w", rel, fs.ErrNotExist)
	}
	return fi.Size(), fi.ModTime(), nil
}

// readFile returns the content of the file at rel.
func (e *env) readFile(rel string) ([]byte, error) {
	if e.files != nil {
		return e.files.ReadFile(rel)
	}
	return osfile.ReadFile(filepath.Join(e.root, filepath.FromSlash(rel)))
}

// Snapshot is an immutable view of the index at one state: file table,
// chunk table, symbol table and a lexical reader that agree with each
// other. Any number of goroutines may use one snapshot at once; it never
// changes, whatever the writer does meanwhile.
//
// A snapshot obtained from Index.Snapshot must be released by calling the
// release function returned with it; until then it pins the lexical
// segments it reads. Methods called after release return errors or empty results.
// Slices and Chunk values returned share memory with the snapshot and must
// not be modified.
type Snapshot struct {
	env *env

	// base is shared with other snapshots; delta holds the files changed
	// since base was built (nil value: removed). delta is small (see
	// compactAfter), so lookups over it are linear scans.
	base  *tables
	delta map[string]*fileRec
	// names is the name table view covering base and delta.
	names []string
	// deltaNames lists, per name, delta's chunks that define and refer
	// to it, built once per snapshot on first use (retrieval asks
	// NumDefs/NumRefs and Defs/Refs of thousands of names per request;
	// scanning every changed chunk per name was most of a request).
	deltaNames struct {
		once       sync.Once
		defs, refs map[string][]deltaHit
	}
	// memo holds values computed once per snapshot (Memo).
	memo sync.Map

	paths     []string // sorted paths of all files of this snapshot
	nchunks   int
	stats     corpusStats
	rootOnce  sync.Once
	stateRoot string // computed on first use
	// hashes are the files' content hashes in paths' order (Hashes),
	// computed on first use.
	hashesOnce sync.Once
	hashes     []string
	complete   bool
	// unavailable counts the files left out because their source
	// cannot be read now (ErrUnavailable).
	unavailable int
	seq         uint64

	reader *postings.Reader // nil when there are no documents yet
	refs   atomic.Int64

	// parent, for a client's view (Overlay.Snapshot), is the index's
	// snapshot it derives from: it owns reader and is released with the
	// view. mem holds the view's buffers for search.
	parent *Snapshot
	mem    *memCorpus
}

// newSnapshot assembles a snapshot; reader is owned by it from now on.
func newSnapshot(e *env, base *tables, delta map[string]*fileRec, names []string,
	reader *postings.Reader, complete bool, seq uint64) *Snapshot {
	s := &Snapshot{env: e, base: base, delta: delta, names: names, reader: reader, complete: complete, seq: seq}
	s.refs.Store(1)
	flen := base.flen
	n := len(base.all)
	if len(delta) == 0 {
		s.paths = base.paths
	} else {
		var added []string
		removed := false
		for p, f := range delta {
			if old := base.files[p]; old != nil {
				n -= old.numChunks()
				for j, l := range old.flenTotals() {
					flen[j] -= l
				}
			}
			if f == nil {
				removed = true
				continue
			}
			if base.files[p] == nil {
				added = append(added, p)
			}
			n += f.numChunks()
			for j, l := range f.flenTotals() {
				flen[j] += l
			}
		}
		slices.Sort(added)
		// Merge base's sorted paths, minus removed ones, with the added
		// (or share base's when the delta only changed files).
		if len(added) == 0 && !removed {
			s.paths = base.paths
		} else {
			s.paths = make([]string, 0, len(base.paths)+len(added))
			i := 0
			for _, p := range base.paths {
				for i < len(added) && added[i] < p {
					s.paths = append(s.paths, added[i])
					i++
				}
				if f, changed := delta[p]; !changed || f != nil {
					s.paths = append(s.paths, p)
				}
			}
			s.paths = append(s.paths, added[i:]...)
		}
	}
	s.nchunks = n
	s.stats.docs = uint64(n)
	if n > 0 {
		for j, l := range flen {
			s.stats.avgLen[j] = float64(l) / float64(n)
		}
	}
	return s
}

// acquire adds a reference unless the snapshot is already released.
func (s *Snapshot) acquire() bool {
	for {
		n := s.refs.Load()
		if n <= 0 {
			return false
		}
		if s.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// releaser returns a function that drops one reference, once.
func (s *Snapshot) releaser() func() {
	var once sync.Once
	return func() { once.Do(s.release) }
}

func (s *Snapshot) release() {
	if s.refs.Add(-1) != 0 {
		return
	}
	if s.parent != nil {
		s.parent.release()
	}
}

func (s *Snapshot) file(p string) *fileRec {
	if f, ok := s.delta[p]; ok {
		return f
	}
	return s.base.files[p]
}

// recsInOrder returns the snapshot's files in paths' order (s.paths[i]'s
// is the i-th), found by a pass over the base's files in order rather
// than a lookup by path each: the base's own slice when there is no
// delta.
func (s *Snapshot) recsInOrder() []*fileRec {
	b := s.base
	if len(s.delta) == 0 {
		return b.recs
	}
	recs := make([]*fileRec, len(s.paths))
	j := 0
	for i, p := range s.paths {
		if f, ok := s.delta[p]; ok {
			recs[i] = f
			continue
		}
		for j < len(b.paths) && b.paths[j] < p {
			j++
		}
		recs[i] = b.recs[j] // s.paths holds only base paths and delta's
	}
	return recs
}

// StateRoot is the hex SHA-256 over the sorted (path, content hash) pairs
// of the snapshot's files (see StateRoot the function): equal for equal
// workspace content, whatever the order files were indexed in.
func (s *Snapshot) StateRoot() string {
	s.rootOnce.Do(func() {
		s.stateRoot = s.computeStateRoot()
	})
	return s.stateRoot
}

// Unavailable counts the files this snapshot leaves out because their
// source could not be read (ErrUnavailable): a Refresh tries them again.
func (s *Snapshot) Unavailable() int { return s.unavailable }

// Complete reports whether the snapshot covers the whole workspace: false
// for the partial snapshots published while a background build runs, and
// while a file is left out because its source could not be read
// (Unavailable).
func (s *Snapshot) Complete() bool { return s.complete && s.unavailable == 0 }

// Seq is the snapshot's sequence number within its Index: later snapshots
// have larger numbers.
func (s *Snapshot) Seq() uint64 { return s.seq }

// Encodings returns the encodings TokenCount answers for, sorted.
func (s *Snapshot) Encodings() []string { return s.env.encodings }

// Hashes returns the content hash of each file, in Paths' order: for
// passes over every file that pair it by position rather than look each
// one up (Stat). Computed once per snapshot; it must not be modified.
func (s *Snapshot) Hashes() []string {
	s.hashesOnce.Do(func() {
		recs := s.recsInOrder()
		s.hashes = make([]string, len(recs))
		for i, f := range recs {
			s.hashes[i] = f.info.Hash
		}
	})
	return s.hashes
}

// Paths returns the paths of all files in the snapshot, sorted.
func (s *Snapshot) Paths() []string { return s.paths }

// NumChunks returns the number of chunks in the snapshot.
func (s *Snapshot) NumChunks() int { return s.nchunks }

// Stat returns the file table row of path.
func (s *Snapshot) Stat(path string) (FileInfo, bool) {
	f := s.file(path)
	if f == nil {
		return FileInfo{}, false
	}
	return f.info, true
}

// File is one file of a snapshot with the exact text that was indexed.
type File struct {
	FileInfo
	Text string
}

// File returns path's indexed text: the overlay held in memory, or else
// the file on disk, verified against the indexed content hash. If the
// disk file changed since it was indexed, File returns an error wrapping
// ErrStale rather than text that does not match the snapshot's line
// numbers.
//
// Texts read from disk are kept (up to Options.TextCacheBytes) for later
// calls on any snapshot of the index; a kept text is served when the disk
// file still has the size and modification time the file table recorded,
// which costs a stat instead of a read and a hash.
func (s *Snapshot) File(path string) (File, error) {
	return s.readFile(path, true)
}

// FileOnce is File for a pass that reads every file once (the semantic
// channel's training): the text is not kept in the index's cache of
// texts, where it would only push out what requests read, and hold
// memory the pass needs.
func (s *Snapshot) FileOnce(path string) (File, error) {
	return s.readFile(path, false)
}

func (s *Snapshot) readFile(path string, cache bool) (File, error) {
	f := s.file(path)
	if f == nil {
		return File{}, fmt.Errorf("file %s: %w", path, ErrNotFound)
	}
	if f.info.Overlay {
		return File{f.info, f.text}, nil
	}
	if t, ok := s.env.texts.get(path, f.info.Hash); ok {
		if size, mtime, err := s.env.stat(path); err == nil && f.info.sameOnDisk(size, mtime) {
			return File{f.info, t}, nil
		}
	}
	b, err := s.env.readFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return File{}, fmt.Errorf("file %s: %w (%v)", path, ErrStale, err)
		}
		return File{}, fmt.Errorf("file %s: %w", path, err)
	}
	if contentHash(b) != f.info.Hash {
		return File{}, fmt.Errorf("file %s: %w", path, ErrStale)
	}
	t := string(b)
	if cache {
		s.env.texts.put(path, f.info.Hash, t)
	}
	return File{f.info, t}, nil
}

// Text is File's text, and whether the file could be served (indexed, and
// unchanged on disk since): the form the assembler reads files in
// (assemble.Files).
func (s *Snapshot) Text(path string) (string, bool) {
	f, err := s.File(path)
	return f.Text, err == nil
}

// chunkRef resolves id.
func (s *Snapshot) chunkRec(id ChunkID) (*fileRec, int, bool) {
	p, ord, ok := id.Split()
	if !ok {
		return nil, 0, false
	}
	f := s.file(p)
	if f == nil || ord >= f.numChunks() {
		return nil, 0, false
	}
	return f, ord, true
}

// Chunk returns the chunk id names. The returned value's strings are
// shared with the snapshot; its slices are the caller's.
func (s *Snapshot) Chunk(id ChunkID) (chunk.Chunk, bool) {
	f, ord, ok := s.chunkRec(id)
	if !ok {
		return chunk.Chunk{}, false
	}
	return f.recs()[ord].toChunk(f.info.Path, s.names), true
}

// IndexedChunk is a chunk with its ID.
type IndexedChunk struct {
	ID ChunkID
	chunk.Chunk
}

// ChunksOf returns the chunks of path in line order (nil if the path is
// not indexed).
func (s *Snapshot) ChunksOf(path string) []IndexedChunk {
	f := s.file(path)
	if f == nil {
		return nil
	}
	recs := f.recs()
	rv := make([]IndexedChunk, len(recs))
	for i := range recs {
		rv[i] = IndexedChunk{makeChunkID(path, i), recs[i].toChunk(path, s.names)}
	}
	return rv
}

// TokenCount returns the number of tokens, in encoding, of the chunk's
// full lines (StartLine through EndLine, including the last line's
// newline), as computed at index time. ok is false for an unknown chunk or
// an encoding the index was not built with.
func (s *Snapshot) TokenCount(id ChunkID, encoding string) (n int, ok bool) {
	j := slices.Index(s.env.encodings, encoding)
	if j < 0 {
		return 0, false
	}
	f, ord, ok := s.chunkRec(id)
	k := ord*len(s.env.encodings) + j
	if !ok || k >= len(f.toks()) {
		return 0, false
	}
	return int(f.toks()[k]), true
}

// Search runs q and returns up to k chunks by descending BM25 score, ties
// broken by path, then start line. It is safe to call concurrently.
func (s *Snapshot) Search(ctx context.Context, q Query, k int) ([]Hit, error) {
	if s.refs.Load() <= 0 {
		return nil, errors.New("search: snapshot released")
	}
	if s.reader == nil && s.mem == nil {
		return nil, nil
	}
	return search(ctx, s.reader, s.mem, s.env.pool, s.stats, q, k, func(id ChunkID) (int, int, bool) {
		f, ord, ok := s.chunkRec(id)
		if !ok {
			return 0, 0, false
		}
		r := &f.recs()[ord]
		return int(r.startLine), int(r.endLine), true
	})
}

// Defs returns the chunks that define name — as their symbol, their
// qualified name ("ranges.Stitch", "Server.handle") or one of their
// Defines — sorted by path, then line.
func (s *Snapshot) Defs(name string) []ChunkID {
	ids, _ := s.DefsAtMost(name, 0)
	return ids
}

// DefsAtMost is Defs, except that it returns nil, false without building
// the list when name has more than limit definitions (limit > 0): the
// cheap way to skip ambiguous names ("String", "Close").
func (s *Snapshot) DefsAtMost(name string, limit int) ([]ChunkID, bool) {
	return s.lookup(name, true, s.base.symbols().defsOf(name), limit)
}

// Refs returns the chunks whose References include the identifier name,
// sorted by path, then line.
func (s *Snapshot) Refs(name string) []ChunkID {
	ids, _ := s.RefsAtMost(name, 0)
	return ids
}

// RefsAtMost is Refs, except that it returns nil, false without building
// the list when more than limit chunks refer to name (limit > 0).
func (s *Snapshot) RefsAtMost(name string, limit int) ([]ChunkID, bool) {
	return s.lookup(name, false, s.base.symbols().refsOf(name), limit)
}

// Memo returns the value stored under key, computing it with compute on
// first use: work that depends only on the snapshot (a ranking over every
// chunk, say) is done once, however many requests read the snapshot.
// compute must be deterministic and must not depend on a request; callers
// use keys of their own unexported types.
func (s *Snapshot) Memo(key any, compute func() any) any {
	e, _ := s.memo.LoadOrStore(key, &memoEntry{})
	m := e.(*memoEntry)
	m.once.Do(func() { m.v = compute() })
	return m.v
}

// memoEntry is one Memo value.
// Shared is Memo for a value every snapshot of the index shares: a cache
// of work whose entries say themselves which content they hold (a type
// checker's packages by the hash of their files, say), so that a request
// on the next snapshot reuses what one on this snapshot computed. The
// value must be safe for concurrent use; callers use keys of their own
// unexported types.
func (s *Snapshot) Shared(key any, compute func() any) any {
	e, _ := s.env.shared.LoadOrStore(key, &memoEntry{})
	m := e.(*memoEntry)
	m.once.Do(func() { m.v = compute() })
	return m.v
}

type memoEntry struct {
	once sync.Once
	v    any
}

// NumDefs is len(Defs(name)), without building the list.
func (s *Snapshot) NumDefs(name string) int {
	if name == "" {
		return 0
	}
	return s.count(s.base.symbols().defsOf(name), s.deltaCount(name, true))
}

// NumRefs is len(Refs(name)), without building the list.
func (s *Snapshot) NumRefs(name string) int {
	return s.count(s.base.symbols().refsOf(name), s.deltaCount(name, false))
}

// deltaHit is a delta chunk that defines or refers to a name.
type deltaHit struct {
	path      string
	line, ord int
}

// deltaHits returns delta's chunks that define (defs) or refer to name.
func (s *Snapshot) deltaHits(name string, defs bool) []deltaHit {
	if len(s.delta) == 0 || name == "" {
		return nil
	}
	dn := &s.deltaNames
	dn.once.Do(func() {
		dn.defs, dn.refs = map[string][]deltaHit{}, map[string][]deltaHit{}
		seen := map[string]bool{}
		for p, f := range s.delta {
			if f == nil {
				continue
			}
			recs := f.recs()
			for i := range recs {
				r := &recs[i]
				h := deltaHit{p, int(r.startLine), i}
				forEachDefName(r, s.names, func(n string) { dn.defs[n] = append(dn.defs[n], h) })
				clear(seen)
				for _, id := range r.references() {
					seen[s.names[id]] = true
				}
				for n := range seen {
					dn.refs[n] = append(dn.refs[n], h)
				}
			}
		}
	})
	if defs {
		return dn.defs[name]
	}
	return dn.refs[name]
}

// deltaCount is the number of delta chunks that define (defs) or refer to
// name.
func (s *Snapshot) deltaCount(name string, defs bool) int {
	return len(s.deltaHits(name, defs))
}

// count is the number of entries lookup would return: the base's, less
// those of changed files, plus the changed files' chunks that match
// (inDelta).
func (s *Snapshot) count(base []int32, inDelta int) int {
	n := inDelta
	for _, i := range base {
		if _, changed := s.delta[s.base.all[i].file.info.Path]; !changed {
			n++
		}
	}
	return n
}

func (s *Snapshot) lookup(name string, defs bool, base []int32, limit int) ([]ChunkID, bool) {
	// Count before building anything: ambiguous names ("String",
	// "Close") have hundreds of entries that the caller would drop.
	if limit > 0 && s.count(base, s.deltaCount(name, defs)) > limit {
		return nil, false
	}
	var hits []deltaHit
	for _, i := range base {
		r := s.base.all[i]
		p := r.file.info.Path
		if _, changed := s.delta[p]; changed {
			continue
		}
		hits = append(hits, deltaHit{p, int(r.rec().startLine), int(r.ord)})
	}
	hits = append(hits, s.deltaHits(name, defs)...)
	if len(s.delta) > 0 {
		slices.SortFunc(hits, func(a, b deltaHit) int {
			return cmp.Or(cmp.Compare(a.path, b.path), cmp.Compare(a.line, b.line), cmp.Compare(a.ord, b.ord))
		})
	}
	rv := make([]ChunkID, len(hits))
	for i, h := range hits {
		rv[i] = makeChunkID(h.path, h.ord)
	}
	return rv, true
}

// Uses returns the definitions of the identifiers chunk id references —
// the outgoing edges of the reference graph — skipping names with more
// than maxDefs definitions (ambiguous names such as "String" or "Close";
// maxDefs <= 0 means no limit) and the chunk itself. Sorted by path, then
// line.
func (s *Snapshot) Uses(id ChunkID, maxDefs int) []ChunkID {
	c, ok := s.Chunk(id)
	if !ok {
		return nil
	}
	seen := map[ChunkID]bool{id: true}
	var rv []ChunkID
	for _, name := range c.References {
		defs, ok := s.DefsAtMost(name, maxDefs)
		if !ok {
			continue
		}
		for _, d := range defs {
			if !seen[d] {
				seen[d] = true
				rv = append(rv, d)
			}
		}
	}
	s.sortIDs(rv)
	return rv
}

// UsedBy returns the chunks that reference a name chunk id defines — the
// incoming edges of the reference graph — excluding the chunk itself,
// sorted by path, then line.
func (s *Snapshot) UsedBy(id ChunkID) []ChunkID {
	f, ord, ok := s.chunkRec(id)
	if !ok {
		return nil
	}
	seen := map[ChunkID]bool{id: true}
	var rv []ChunkID
	forEachDefName(&f.recs()[ord], s.names, func(name string) {
		for _, r := range s.Refs(name) {
			if !seen[r] {
				seen[r] = true
				rv = append(rv, r)
			}
		}
	})
	s.sortIDs(rv)
	return rv
}

func (s *Snapshot) sortIDs(ids []ChunkID) {
	slices.SortFunc(ids, func(a, b ChunkID) int {
		pa, oa, _ := a.Split()
		pb, ob, _ := b.Split()
		if c := cmp.Compare(pa, pb); c != 0 {
			return c
		}
		return cmp.Compare(oa, ob)
	})
}
