package index

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxls/ctxls/internal/index/chunk"
)

// ChunkID names one chunk within one snapshot: the chunk's path, '#', and
// its ordinal among the file's chunks in line order ("ranges/stitch.go#3").
// IDs are deterministic for a given file content; after the file changes the
// same ID may name a different chunk, so resolve an ID only against the
// snapshot that produced it.
type ChunkID string

func makeChunkID(path string, ord int) ChunkID {
	return ChunkID(path + "#" + strconv.Itoa(ord))
}

// ChunkIDOf is the ID of the ord-th chunk (0-based, line order) of path.
func ChunkIDOf(path string, ord int) ChunkID { return makeChunkID(path, ord) }

// Split returns the path and ordinal of id; ok is false if id is malformed.
func (id ChunkID) Split() (path string, ord int, ok bool) {
	s := string(id)
	i := strings.LastIndexByte(s, '#')
	if i < 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil || n < 0 {
		return "", 0, false
	}
	return s[:i], n, true
}

// FileInfo is the file table's row for one indexed file.
type FileInfo struct {
	Path     string    `json:"path"` // slash-separated, relative to the root
	Size     int64     `json:"size"`
	ModTime  time.Time `json:"modTime"`
	Hash     string    `json:"hash"` // hex SHA-256 of the indexed content
	Language string    `json:"language"`
	Chunks   int       `json:"chunks"`
	// Overlay is true when the indexed content is an editor buffer (or
	// content given to Update) rather than the file on disk; Size and
	// ModTime then describe the disk file when it was last seen (zero if
	// unknown) and the next refresh re-reads the file once the overlay is
	// cleared.
	Overlay bool `json:"overlay,omitempty"`
}

// sameOnDisk reports whether fi is a disk file (not an overlay) indexed
// with this size and modification time: the rule by which a file is not
// read again (refresh, open, Snapshot.File's kept texts).
func (fi FileInfo) sameOnDisk(size int64, mtime time.Time) bool {
	return !fi.Overlay && fi.Size == size && !mtime.IsZero() && fi.ModTime.Equal(mtime)
}

// fileRec is one file in a snapshot's tables. It is immutable once
// published.
type fileRec struct {
	info   FileInfo
	chunks []chunkRec // in ordinal (line) order
	// tokens holds the token counts of the chunks, chunk-major: chunk i's
	// count in encoding j is tokens[i*len(encodings)+j].
	tokens []int32
	// text is the indexed content of an overlay (an editor buffer,
	// info.Overlay); other files are read from disk (Snapshot.File).
	text string
	// lazy, when set, holds chunks and tokens still encoded (a file read
	// from the tables file): recs and toks decode them on first use, and
	// the chunks and tokens fields stay nil.
	lazy *lazyRecs
	// again holds the chunks of an overlay chunked from an incremental
	// parse until verifyLocked has compared them with a fresh parse's
	// (nil otherwise). Only the writer reads or clears it, under Index.mu.
	again []chunk.Chunk
}

// recs returns the file's chunk records.
func (f *fileRec) recs() []chunkRec {
	if l := f.lazy; l != nil {
		l.load()
		return l.chunks
	}
	return f.chunks
}

// toks returns the file's token counts (see tokens).
func (f *fileRec) toks() []int32 {
	if l := f.lazy; l != nil {
		l.load()
		return l.tokens
	}
	return f.tokens
}

// peek returns the file's chunk records and token counts like recs and
// toks, but decodes a file not decoded yet without keeping the result:
// for passes over every file (writing the tables, building the symbol
// maps) that should not leave the whole tree decoded in memory.
func (f *fileRec) peek() ([]chunkRec, []int32) {
	l := f.lazy
	if l == nil {
		return f.chunks, f.tokens
	}
	if l.loaded.Load() {
		return l.chunks, l.tokens
	}
	return l.dec.decodeChunks(l.body, l.n)
}

// numChunks returns len(f.recs()) without decoding anything.
func (f *fileRec) numChunks() int {
	if l := f.lazy; l != nil {
		return l.n
	}
	return len(f.chunks)
}

// flenTotals returns the sums of the chunks' field lengths.
func (f *fileRec) flenTotals() [numSearchFields]uint64 {
	if l := f.lazy; l != nil {
		return l.flen
	}
	var t [numSearchFields]uint64
	for i := range f.chunks {
		for j, l := range f.chunks[i].flen {
			t[j] += uint64(l)
		}
	}
	return t
}

// chunkRec is the compact form of one chunk.Chunk, about half its size:
// the path and token counts live in the fileRec, positions are int32, and
// Defines and References are ids into the Index's name table. toChunk
// turns it back into a chunk.Chunk.
type chunkRec struct {
	kind                                  chunk.Kind
	language                              string
	symbol, qualifiedName, signature, doc string
	// hashes holds TrackingHash and ContentHash decoded from hex when both
	// are 32 hex digits (the chunk package's form); otherwise oddHashes
	// keeps them as given.
	hashes    [32]byte
	oddHashes *[2]string
	// names holds the chunk's Defines followed by its References, each
	// list in the chunker's (sorted) order.
	names []uint32
	ndefs int32

	startByte, endByte, startLine, endLine int32
	sigEndLine, docStartLine, part         int32
	// flen is the analyzed length (number of terms) of each field of
	// the chunk's lexical document: the BM25 statistics.
	flen [numSearchFields]uint32
}

func (r *chunkRec) defines() []uint32    { return r.names[:r.ndefs] }
func (r *chunkRec) references() []uint32 { return r.names[r.ndefs:] }

// newChunkRec makes the compact form of c, interning its names in nt.
func newChunkRec(c *chunk.Chunk, nt *nameTable) chunkRec {
	r := chunkRec{
		kind:          chunk.Kind(nt.canonical(string(c.Kind))),
		language:      nt.canonical(c.Language),
		symbol:        c.Symbol,
		qualifiedName: c.QualifiedName,
		signature:     c.Signature,
		doc:           c.Doc,
		ndefs:         int32(len(c.Defines)),
		startByte:     int32(c.StartByte),
		endByte:       int32(c.EndByte),
		startLine:     int32(c.StartLine),
		endLine:       int32(c.EndLine),
		sigEndLine:    int32(c.SigEndLine),
		docStartLine:  int32(c.DocStartLine),
		part:          int32(c.Part),
	}
	r.setHashes(c.TrackingHash, c.ContentHash)
	if n := len(c.Defines) + len(c.References); n > 0 {
		r.names = make([]uint32, 0, n)
		for _, d := range c.Defines {
			r.names = append(r.names, nt.intern(d))
		}
		for _, d := range c.References {
			r.names = append(r.names, nt.intern(d))
		}
	}
	return r
}

// toChunk expands r into a chunk.Chunk of the file at path; names is the
// name table (a view that includes every id of r).
func (r *chunkRec) toChunk(path string, names []string) chunk.Chunk {
	c := chunk.Chunk{
		Path:          path,
		Language:      r.language,
		Kind:          r.kind,
		StartByte:     int(r.startByte),
		EndByte:       int(r.endByte),
		StartLine:     int(r.startLine),
		EndLine:       int(r.endLine),
		Symbol:        r.symbol,
		QualifiedName: r.qualifiedName,
		Signature:     r.signature,
		SigEndLine:    int(r.sigEndLine),
		Doc:           r.doc,
		DocStartLine:  int(r.docStartLine),
		Part:          int(r.part),
	}
	c.TrackingHash, c.ContentHash = r.hashStrings()
	c.Defines = nameStrings(r.defines(), names)
	c.References = nameStrings(r.references(), names)
	return c
}

// setHashes stores the chunk's tracking and content hashes.
func (r *chunkRec) setHashes(tracking, content string) {
	if len(tracking) == 32 && len(content) == 32 {
		_, err1 := hex.Decode(r.hashes[:16], []byte(tracking))
		_, err2 := hex.Decode(r.hashes[16:], []byte(content))
		if err1 == nil && err2 == nil && hex.EncodeToString(r.hashes[:16]) == tracking &&
			hex.EncodeToString(r.hashes[16:]) == content {
			return
		}
	}
	r.hashes = [32]byte{}
	r.oddHashes = &[2]string{tracking, content}
}

// hashStrings returns the tracking and content hashes as given.
func (r *chunkRec) hashStrings() (tracking, content string) {
	if r.oddHashes != nil {
		return r.oddHashes[0], r.oddHashes[1]
	}
	return hex.EncodeToString(r.hashes[:16]), hex.EncodeToString(r.hashes[16:])
}

func nameStrings(ids []uint32, names []string) []string {
	if len(ids) == 0 {
		return nil
	}
	rv := make([]string, len(ids))
	for i, id := range ids {
		rv[i] = names[id]
	}
	return rv
}

// nameTable interns the identifiers of chunk records. It is append-only:
// readers index names through the view they were given, whose elements
// never change. intern and canonical are called with mu held (the writer
// holds it per file, a client's buffers per buffer: see Overlay); view and
// compact take it themselves.
type nameTable struct {
	mu sync.Mutex
	// idx finds a name's id; built when first needed (nil: not yet). Its
	// names are the table's (names is idx.names while it is there).
	idx   *nameIndex
	names []string
	// hint, while idx is nil, finds the first hintN names without
	// building idx: the symbol maps' name index read in place from the
	// tables file, whose first names are the name table's (useHint). The
	// few names interned after those are looked for one by one.
	hint  *nameIndex
	hintN int
	// hintHold keeps what hint's arrays are read from (the symbol maps,
	// which hold the mapped tables file) for as long as hint is used.
	hintHold *symIndex
}

// hintedAtMost is how many names intern adds after the hinted ones, each
// looked for one by one, before it builds the whole index after all.
const hintedAtMost = 64

// useHint lets intern find the table's names through idx, a name index
// whose first names are the table's, as the symbol maps of a tables file
// read in place have them (buildSymIndex): opening a kept index with a
// delta then interns the delta's names without indexing the whole table.
// It checks the names are the same; it does nothing when they are not.
func (t *nameTable) useHint(si *symIndex) {
	if si == nil || si.idx == nil || len(si.idx.names) < len(t.names) || t.idx != nil {
		return
	}
	idx := si.idx
	for i, n := range t.names {
		if idx.names[i] != n {
			return
		}
	}
	t.hint, t.hintN, t.hintHold = idx, len(t.names), si
}

func newNameTable() *nameTable { return &nameTable{} }

// intern returns s's id, adding s if it is new. The first call after
// the table was filled whole (read from a tables file, or compacted)
// indexes every name: by open addressing (nameIndex), a hash per name
// into one flat array, where a Go map cost several times that to build
// for the ≈ 10⁵ names of a large tree (the first new name of an edit).
func (t *nameTable) intern(s string) uint32 {
	if t.idx == nil && t.hint != nil {
		if id, ok := t.hint.find(s); ok && int(id) < t.hintN {
			return uint32(id)
		}
		for i := t.hintN; i < len(t.names); i++ {
			if t.names[i] == s {
				return uint32(i)
			}
		}
		if len(t.names)-t.hintN < hintedAtMost {
			t.names = append(t.names, s)
			return uint32(len(t.names) - 1)
		}
		t.hint, t.hintHold = nil, nil
	}
	if t.idx == nil {
		t.idx = newNameIndex(t.names, 0)
	}
	id := t.idx.add(s)
	t.names = t.idx.names
	return uint32(id)
}

// compact drops the lookup index, which intern rebuilds when next needed:
// after a full build it is a large part of the tables' memory, and
// single file changes come seldom.
func (t *nameTable) compact() {
	t.mu.Lock()
	t.idx = nil
	t.mu.Unlock()
}

// canonical returns the interned copy of s.
func (t *nameTable) canonical(s string) string { return t.names[t.intern(s)] }

// view returns the names interned so far, for readers.
func (t *nameTable) view() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.names[:len(t.names):len(t.names)]
}

// sortChunks puts chunks in ordinal order: by start line, start byte, then
// the enclosing (longer) chunk first.
func sortChunks(cs []chunk.Chunk) {
	slices.SortStableFunc(cs, func(a, b chunk.Chunk) int {
		return cmp.Or(
			cmp.Compare(a.StartLine, b.StartLine),
			cmp.Compare(a.StartByte, b.StartByte),
			cmp.Compare(b.EndByte, a.EndByte),
			cmp.Compare(a.Kind, b.Kind),
		)
	})
}

// chunkRef addresses one chunk of a tables value.
type chunkRef struct {
	file *fileRec
	ord  int32
}

func (r chunkRef) rec() *chunkRec { return &r.file.recs()[r.ord] }

// tables is the immutable base of a snapshot: every file with its chunks,
// and the symbol maps over them. Snapshots share one tables value and add
// a small delta of changed files on top (see Snapshot).
type tables struct {
	encodings []string
	names     []string // name table view covering every chunk of files
	files     map[string]*fileRec
	paths     []string   // sorted keys of files
	recs      []*fileRec // files' values in paths' order
	all       []chunkRef
	// flen is the sum of chunkRec.flen over all chunks.
	flen [numSearchFields]uint64

	// The symbol maps are built on first use (a build never needs them,
	// and they are a fifth of the tables' memory).
	symOnce sync.Once
	sym     *symIndex

	// byWord maps each PathWords word to the paths that have it (indexes
	// into paths); built on first use, like the symbol maps.
	pathOnce sync.Once
	byWord   map[string][]int32

	// dirs groups paths by directory for the state root (stateroot.go).
	dirs dirState
}

// newTables indexes files (which it takes ownership of); names must cover
// their chunks' name ids.
func newTables(encodings, names []string, files map[string]*fileRec) *tables {
	return newTablesOrdered(encodings, names, files, nil)
}

// newTablesOrdered is newTables given files' values in path order when
// they are known (a tables file keeps them so): they are then checked,
// not sorted, and not looked up by path. Otherwise (or when they do not
// match files) it sorts.
func newTablesOrdered(encodings, names []string, files map[string]*fileRec, order []*fileRec) *tables {
	t := &tables{encodings: encodings, names: names, files: files}
	if inPathOrder(order, len(files)) {
		t.recs = slices.Clone(order)
		t.paths = make([]string, len(order))
		for i, f := range order {
			t.paths[i] = f.info.Path
		}
	} else {
		t.paths = make([]string, 0, len(files))
		for p := range files {
			t.paths = append(t.paths, p)
		}
		slices.Sort(t.paths)
		t.recs = make([]*fileRec, len(t.paths))
		for i, p := range t.paths {
			t.recs[i] = files[p]
		}
	}
	n := 0
	for _, f := range t.recs {
		n += f.numChunks()
	}
	t.all = make([]chunkRef, 0, n)
	for _, f := range t.recs {
		for i := range f.numChunks() {
			t.all = append(t.all, chunkRef{f, int32(i)})
		}
		for j, l := range f.flenTotals() {
			t.flen[j] += l
		}
	}
	return t
}

// inPathOrder reports whether recs are n distinct files, strictly sorted
// by path: the files of a tables map of n entries, when every one of
// them is a value of that map (tablesFile.decode's, which are).
func inPathOrder(recs []*fileRec, n int) bool {
	if len(recs) != n || n == 0 {
		return false
	}
	for i, f := range recs {
		if f == nil || (i > 0 && recs[i-1].info.Path >= f.info.Path) {
			return false
		}
	}
	return true
}

// symbols returns the symbol maps, building them on the first call. Safe
// for concurrent use.
func (t *tables) symbols() *symIndex {
	t.symOnce.Do(func() { t.sym = buildSymIndex(t) })
	return t.sym
}

// forEachDefName calls fn once for each distinct name chunk r defines:
// its symbol, its qualified name and its Defines.
func forEachDefName(r *chunkRec, names []string, fn func(string)) {
	if r.symbol != "" {
		fn(r.symbol)
	}
	if r.qualifiedName != "" && r.qualifiedName != r.symbol {
		fn(r.qualifiedName)
	}
	for _, id := range r.defines() {
		if d := names[id]; d != r.symbol && d != r.qualifiedName {
			fn(d)
		}
	}
}

// contentHash is the file table's content hash: hex SHA-256.
func contentHash(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// lineStarts returns the byte offset of the start of each line of src
// (line 1 at index 0).
func lineStarts(src []byte) []int {
	starts := make([]int, 1, bytes.Count(src, []byte{'\n'})+1)
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			return starts
		}
		i += j + 1
		starts = append(starts, i)
	}
}

// lineSpan returns the byte range of lines [from, to] (1-based, inclusive)
// including the last line's newline, clamped to a file of n bytes with the
// given line starts.
func lineSpan(starts []int, n, from, to int) (int, int) {
	if from < 1 {
		from = 1
	}
	if from > len(starts) {
		return n, n
	}
	start := starts[from-1]
	end := n
	if to < len(starts) {
		end = starts[to]
	}
	if end < start {
		end = start
	}
	return start, end
}

// checkChunk validates the ranges of c against a file of n bytes.
func checkChunk(c *chunk.Chunk, n int) error {
	if c.StartByte < 0 || c.EndByte < c.StartByte || c.EndByte > n {
		return fmt.Errorf("chunk %s %q: byte range [%d,%d) outside file of %d bytes",
			c.Kind, c.Symbol, c.StartByte, c.EndByte, n)
	}
	if c.StartLine < 1 || c.EndLine < c.StartLine {
		return fmt.Errorf("chunk %s %q: bad line range %d-%d", c.Kind, c.Symbol, c.StartLine, c.EndLine)
	}
	return nil
}

// lazyRecs is a file's chunk records as the tables file holds them,
// decoded on first use (see tablesFile.decode): opening a large index
// then costs a pass over the file headers, not over every chunk.
type lazyRecs struct {
	n      int                     // number of chunks
	flen   [numSearchFields]uint64 // sums of the chunks' field lengths
	body   []byte                  // the encoded chunks
	dec    *recDecoder             // what decoding needs, shared
	once   sync.Once
	loaded atomic.Bool // set once chunks and tokens are
	chunks []chunkRec
	tokens []int32
}

func (l *lazyRecs) load() {
	l.once.Do(func() {
		l.chunks, l.tokens = l.dec.decodeChunks(l.body, l.n)
		l.loaded.Store(true)
	})
}
