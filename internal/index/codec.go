package index

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sync"
	"time"
	"unsafe"

	"github.com/ctxls/ctxls/internal/cachefile"
	"github.com/ctxls/ctxls/internal/index/chunk"
	"github.com/ctxls/ctxls/internal/osfile"
)

// The tables file is a compact binary encoding of the file and chunk
// tables and the symbol maps, laid out so that opening it costs little
// more than reading it: the file headers are decoded at once, each file's
// chunks on first use (lazyRecs), and the string table and symbol maps
// are used in place.
//
//	magic "CTXLSTB8"
//	stat: uvarint n, n × (uvarint len, bytes path, varint size, varint
//	       mtime (Unix ns, 0 unknown), uvarint flags (1: overlay)) — what a
//	       refresh compares with the disk, decoded first so that the walk
//	       can start while the rest is
//	strings (padded to start at a multiple of 4 bytes): u32 n, u32 blob
//	       length, n+1 × u32 offsets into the blob, the blob; every other
//	       string below is an id (sid) into this table
//	encodings: uvarint n, n × uvarint sid
//	names: uvarint n, n × uvarint sid (the name table; chunks refer to it
//	       by id)
//	files: uvarint n, n × file
//	file: uvarint path sid, varint size, varint mtime, uvarint hash sid,
//	      uvarint language sid, uvarint flags (1: overlay), uvarint chunks,
//	      numSearchFields × uvarint sum of the chunks' field lengths,
//	      uvarint length + that many bytes: chunks × chunk
//	chunk: uvarint sids of language, kind; uvarint startByte endByte
//	       startLine endLine; sids of symbol, qualifiedName, signature;
//	       uvarint sigEndLine; sid of doc; uvarint docStartLine; uvarint d,
//	       uvarint r, d × uvarint define id, r × uvarint reference id,
//	       hashes, uvarint part, encodings × uvarint tokens,
//	       numSearchFields × uvarint field length
//	hashes: byte 0 + 16 bytes tracking hash + 16 bytes content hash (the
//	       chunk package's hex form, decoded), or byte 1 + sids of the
//	       tracking and content hashes (any other form)
//	symbols (absent when the trailer's offset is 0; padded to start at a
//	       multiple of 4 bytes): 32-bit little-endian words n, log2 slots,
//	       defs, refs, blob length; n+1 name offsets into the blob; the
//	       blob (padded to 4); the slots (name positions, -1 empty); n+1
//	       def list starts; n+1 ref list starts; the def lists; the ref
//	       lists (chunk positions in path order). Read in place, not
//	       decoded. The slots are nameIndex's, whose hash is fixed:
//	       changing hashName needs a new tablesMagic.
//	trailer: 8 bytes little-endian offset of the symbols section, 8 bytes
//	       little-endian number of strings, 4 bytes little-endian CRC-32C
//	       of everything before
//
// u32 is 4 bytes little-endian. Strings are substrings of one copy of the
// file: no allocation per string. The checksum detects a damaged file (a
// CRC, at memory speed, where SHA-256 cost a tenth of a CLI run's
// start-up); a chunk that fails to decode later is a bug, not damage.
const tablesMagic = "CTXLSTB8"

var errCorrupt = errors.New("tables file corrupt")

type tablesWriter struct {
	w   *bufio.Writer
	n   int64 // bytes written
	buf [binary.MaxVarintLen64]byte
	err error
}

func (w *tablesWriter) bytes(b []byte) {
	if w.err == nil {
		_, w.err = w.w.Write(b)
		w.n += int64(len(b))
	}
}

// raw writes s as it is.
func (w *tablesWriter) raw(s string) {
	if w.err == nil {
		_, w.err = w.w.WriteString(s)
		w.n += int64(len(s))
	}
}

// u32 writes v as 4 bytes, little-endian.
func (w *tablesWriter) u32(v uint32) {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], v)
	w.bytes(b[:])
}

// align4 pads with zeros to a multiple of 4 bytes from the file's start.
func (w *tablesWriter) align4() { w.bytes(make([]byte, (4-w.n%4)%4)) }

// strTable numbers strings in the order they are first met.
type strTable struct {
	ids  map[string]uint32
	list []string
}

func (t *strTable) id(s string) uint32 {
	if id, ok := t.ids[s]; ok {
		return id
	}
	id := uint32(len(t.list))
	t.ids[s] = id
	t.list = append(t.list, s)
	return id
}

// plain writes s without interning: uvarint len, bytes.
func (w *tablesWriter) plain(s string) {
	w.uvarint(uint64(len(s)))
	w.raw(s)
}

// offsetsAndBlob writes a string list in place-readable form: the n+1
// offsets of its strings (u32) in their concatenation, then the
// concatenation.
func (w *tablesWriter) offsetsAndBlob(list []string) {
	off := 0
	for _, x := range list {
		w.u32(uint32(off))
		off += len(x)
	}
	w.u32(uint32(off))
	for _, x := range list {
		w.raw(x)
	}
}

func (w *tablesWriter) uvarint(x uint64) { w.bytes(w.buf[:binary.PutUvarint(w.buf[:], x)]) }
func (w *tablesWriter) varint(x int64)   { w.bytes(w.buf[:binary.PutVarint(w.buf[:], x)]) }

// writeTables writes the tables of files (in the given order) to path
// atomically: a temporary file (0600), fsync, rename. names resolves the
// chunks' name ids.
func writeTables(path string, encodings, names []string, files []*fileRec, sym *symIndex) error {
	_, err := writeTablesSum(path, encodings, names, nil, files, sym)
	return err
}

// writeTablesSum is writeTables, returning the file's checksum (its
// trailer: tablesFile.sum). With remap (nil: none) the chunks' name id i
// is written as remap[i], an index into names: a file of a few rows then
// carries the names they use, not the whole name table.
func writeTablesSum(path string, encodings, names []string, remap map[uint32]uint32, files []*fileRec, sym *symIndex) (sum uint32, err error) {
	tmp := path + ".tmp"
	f, err := createPrivate(tmp)
	if err != nil {
		return 0, fmt.Errorf("write tables: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	h := crc32.New(crc32.MakeTable(crc32.Castagnoli))
	w := &tablesWriter{w: bufio.NewWriterSize(io.MultiWriter(f, h), 1<<16)}
	w.bytes([]byte(tablesMagic))
	w.uvarint(uint64(len(files)))
	for _, fr := range files {
		w.plain(fr.info.Path)
		w.varint(fr.info.Size)
		w.varint(unixNano(fr.info.ModTime))
		var flags uint64
		if fr.info.Overlay {
			flags |= 1
		}
		w.uvarint(flags)
	}
	// Everything after the stat section refers to strings by id: encode
	// the files first (assigning ids), then write the string table, then
	// the files.
	st := &strTable{ids: make(map[string]uint32)}
	encIDs := make([]uint32, len(encodings))
	for k, e := range encodings {
		encIDs[k] = st.id(e)
	}
	nameIDs := make([]uint32, len(names))
	for k, n := range names {
		nameIDs[k] = st.id(n)
	}
	nenc := len(encodings)
	var body, chunks []byte
	// Files that share their chunk records (the same content at two
	// paths, sameContent) share their encoded chunks: the later ones say
	// which earlier file's block they have.
	type blockKey struct {
		rec  *chunkRec
		tok  *int32
		lazy *byte
		n    int
	}
	type firstBlock struct {
		file int
		flen [numSearchFields]uint64
	}
	firsts := map[blockKey]firstBlock{}
	for fileIdx, fr := range files {
		fi := &fr.info
		var key blockKey
		if l := fr.lazy; l != nil && !l.loaded.Load() && len(l.body) > 0 {
			key = blockKey{lazy: &l.body[0], n: l.n}
		} else if len(fr.chunks) > 0 {
			key = blockKey{rec: &fr.chunks[0], n: len(fr.chunks)}
			if len(fr.tokens) > 0 {
				key.tok = &fr.tokens[0]
			}
		}
		if first, ok := firsts[key]; ok && key.n > 0 {
			writeFileHeader(&body, st, fi, key.n, first.flen)
			body = binary.AppendUvarint(body, 0) // no block of its own:
			body = binary.AppendUvarint(body, uint64(first.file))
			continue
		}
		recs, toks := fr.peek()
		chunks = chunks[:0]
		var flen [numSearchFields]uint64
		for i := range recs {
			c := &recs[i]
			chunks = binary.AppendUvarint(chunks, uint64(st.id(c.language)))
			chunks = binary.AppendUvarint(chunks, uint64(st.id(string(c.kind))))
			for _, v := range []int32{c.startByte, c.endByte, c.startLine, c.endLine} {
				chunks = binary.AppendUvarint(chunks, uint64(max(v, 0)))
			}
			chunks = binary.AppendUvarint(chunks, uint64(st.id(c.symbol)))
			chunks = binary.AppendUvarint(chunks, uint64(st.id(c.qualifiedName)))
			chunks = binary.AppendUvarint(chunks, uint64(st.id(c.signature)))
			chunks = binary.AppendUvarint(chunks, uint64(max(c.sigEndLine, 0)))
			chunks = binary.AppendUvarint(chunks, uint64(st.id(c.doc)))
			chunks = binary.AppendUvarint(chunks, uint64(max(c.docStartLine, 0)))
			chunks = binary.AppendUvarint(chunks, uint64(len(c.defines())))
			chunks = binary.AppendUvarint(chunks, uint64(len(c.references())))
			for _, id := range c.names {
				if remap != nil {
					id = remap[id]
				}
				chunks = binary.AppendUvarint(chunks, uint64(id))
			}
			if c.oddHashes == nil {
				chunks = append(chunks, 0)
				chunks = append(chunks, c.hashes[:]...)
			} else {
				chunks = append(chunks, 1)
				chunks = binary.AppendUvarint(chunks, uint64(st.id(c.oddHashes[0])))
				chunks = binary.AppendUvarint(chunks, uint64(st.id(c.oddHashes[1])))
			}
			chunks = binary.AppendUvarint(chunks, uint64(max(c.part, 0)))
			for j := range nenc {
				var n int32
				if k := i*nenc + j; k < len(toks) {
					n = toks[k]
				}
				chunks = binary.AppendUvarint(chunks, uint64(max(n, 0)))
			}
			for j, l := range c.flen {
				chunks = binary.AppendUvarint(chunks, uint64(l))
				flen[j] += uint64(l)
			}
		}
		writeFileHeader(&body, st, fi, len(recs), flen)
		body = binary.AppendUvarint(body, uint64(len(chunks)))
		body = append(body, chunks...)
		if key.n > 0 {
			firsts[key] = firstBlock{fileIdx, flen}
		}
	}
	w.align4()
	blob := 0
	for _, x := range st.list {
		blob += len(x)
	}
	w.u32(uint32(len(st.list)))
	w.u32(uint32(blob))
	w.offsetsAndBlob(st.list)
	w.uvarint(uint64(len(encIDs)))
	for _, id := range encIDs {
		w.uvarint(uint64(id))
	}
	w.uvarint(uint64(len(nameIDs)))
	for _, id := range nameIDs {
		w.uvarint(uint64(id))
	}
	w.uvarint(uint64(len(files)))
	w.bytes(body)
	var symOff int64
	if sym != nil {
		w.align4()
		symOff = w.n
		writeSymIndex(w, sym)
	}
	// The trailer: where the symbols are, and how many distinct strings
	// there are (so that the reader sizes its string table once).
	var t [16]byte
	binary.LittleEndian.PutUint64(t[:8], uint64(symOff))
	binary.LittleEndian.PutUint64(t[8:], uint64(len(st.list)))
	w.bytes(t[:])
	if w.err == nil {
		w.err = w.w.Flush()
	}
	if w.err != nil {
		return 0, fmt.Errorf("write tables: %w", w.err)
	}
	sum = h.Sum32()
	if _, err := f.Write(binary.LittleEndian.AppendUint32(nil, sum)); err != nil {
		return 0, fmt.Errorf("write tables: %w", err)
	}
	if err := f.Sync(); err != nil {
		return 0, fmt.Errorf("write tables: %w", err)
	}
	if err := f.Close(); err != nil {
		return 0, fmt.Errorf("write tables: %w", err)
	}
	if err := osfile.Rename(tmp, path); err != nil {
		return 0, fmt.Errorf("write tables: %w", err)
	}
	return sum, nil
}

type tablesReader struct {
	b   []byte
	all string // the same bytes as the whole of b at the start
	err error
}

// raw reads n bytes.
func (r *tablesReader) raw(n int) []byte {
	if n > len(r.b) {
		r.fail()
		return nil
	}
	b := r.b[:n]
	r.b = r.b[n:]
	return b
}

func (r *tablesReader) fail() {
	if r.err == nil {
		r.err = errCorrupt
	}
	r.b = nil
}

func (r *tablesReader) uvarint() uint64 {
	x, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return x
}

func (r *tablesReader) varint() int64 {
	x, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return x
}

func (r *tablesReader) int() int {
	x := r.uvarint()
	if x > 1<<40 {
		r.fail()
		return 0
	}
	return int(x)
}

func (r *tablesReader) int32() int32 {
	x := r.uvarint()
	if x > 1<<31-1 {
		r.fail()
		return 0
	}
	return int32(x)
}

func (r *tablesReader) count(minSize int) int {
	n := r.int()
	if n*max(minSize, 1) > len(r.b) {
		r.fail()
		return 0
	}
	return n
}

// writeFileHeader appends a file's record header: its info, its number
// of chunks and their field lengths' sums. The chunks' block follows: its
// length and bytes, or a zero length and the index of the earlier file
// whose block it shares.
func writeFileHeader(body *[]byte, st *strTable, fi *FileInfo, n int, flen [numSearchFields]uint64) {
	b := *body
	b = binary.AppendUvarint(b, uint64(st.id(fi.Path)))
	b = binary.AppendVarint(b, fi.Size)
	b = binary.AppendVarint(b, unixNano(fi.ModTime))
	b = binary.AppendUvarint(b, uint64(st.id(fi.Hash)))
	b = binary.AppendUvarint(b, uint64(st.id(fi.Language)))
	var flags uint64
	if fi.Overlay {
		flags |= 1
	}
	b = binary.AppendUvarint(b, flags)
	b = binary.AppendUvarint(b, uint64(n))
	for _, l := range flen {
		b = binary.AppendUvarint(b, l)
	}
	*body = b
}

// readTables reads a tables file written by writeTables. Any truncation,
// bit flip or format change is reported as an error wrapping errCorrupt.
func readTables(path string, nt *nameTable) (encodings []string, files map[string]*fileRec, sym *symIndex, err error) {
	tf, err := openTables(path)
	if err != nil {
		return nil, nil, nil, err
	}
	return tf.decode(nt)
}

// fileStat is a file's row in the stat section: what a refresh compares
// with the disk before the rest of the tables is decoded.
type fileStat struct {
	size    int64
	modTime int64 // Unix ns; 0: unknown
	overlay bool
}

// tablesFile is a tables file read and checked, its stat section decoded.
//
// The file is mapped in memory (cachefile.Map), not read: a large tree's
// tables are tens of MB, and reading them cost a copy and a fault per
// page of a fresh buffer, the largest part of opening a kept index. What
// is read in place — the files' chunk blocks, the string table's offsets,
// the symbol maps' arrays — is held by values that keep a pointer to the
// mapping (recDecoder, symIndex), so that it stays mapped as long as they
// are reachable. Strings are never views of the mapping (nothing could
// keep it alive for them): the stat section, the string table's blob and
// the symbol names are copied once into memory of their own.
type tablesFile struct {
	path   string
	hold   *cachefile.Mapped // the mapping data is in (nil: data given)
	data   []byte            // the whole file
	body   []byte            // without the trailer
	rest   int               // offset of what follows the stat section
	symOff uint64
	nstrs  uint64
	stats  map[string]fileStat
	// order is the stat section's paths in file order (sorted, as
	// written; newTables checks), statList their rows.
	order    []string
	statList []fileStat
	// recs are the files decode read, in file order.
	recs []*fileRec
	// sumElsewhere says that the checksum is checked by the caller before
	// anything decoded is used (an open's verifyGeneration, on another
	// core, or not at all when it is recorded as passed): decode skips it.
	sumElsewhere bool
	// statsOnce decodes the stat section's rows (loadStats) into stats,
	// order and statList; statsErr is its error.
	statsOnce sync.Once
	statsErr  error
}

// verifyTablesSum checks the checksum of the tables file (or delta) at
// path, reading it through buf: its last 4 bytes are the CRC-32C of the
// bytes before (verifyGeneration).
func verifyTablesSum(path string, buf []byte) error {
	got, want, n, err := footerSum(path, buf, crc32.New(crc32.MakeTable(crc32.Castagnoli)), binary.LittleEndian)
	switch {
	case err != nil:
		return fmt.Errorf("read tables %s: %w", path, err)
	case n < int64(len(tablesMagic)+tablesTrailer):
		return fmt.Errorf("read tables %s: %w", path, errCorrupt)
	case got != want:
		return fmt.Errorf("read tables %s: checksum mismatch: %w", path, errCorrupt)
	}
	return nil
}

func (tf *tablesFile) corrupt(why string) error {
	if why != "" {
		return fmt.Errorf("read tables %s: %s: %w", tf.path, why, errCorrupt)
	}
	return fmt.Errorf("read tables %s: %w", tf.path, errCorrupt)
}

// tablesTrailer is the size of the trailer: symbols offset, number of
// strings, checksum.
const tablesTrailer = 16 + 4

// openTables maps path and decodes its stat section; finish (called by
// decode) checks the format and checksum. The stat section is checked
// against the file records by decode, so nothing it said is used before
// that check passes.
func openTables(path string) (*tablesFile, error) {
	tf := &tablesFile{path: path}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read tables: %w", err)
	}
	if fi.Size() < int64(len(tablesMagic)+tablesTrailer) {
		return nil, tf.corrupt("")
	}
	m, err := cachefile.Map(path)
	if err != nil {
		return nil, fmt.Errorf("read tables: %w", err)
	}
	if len(m.Data) < len(tablesMagic)+tablesTrailer {
		return nil, tf.corrupt("") // replaced meanwhile
	}
	tf.hold, tf.data = m, m.Data
	if err := tf.parseStats(); err != nil {
		return nil, err
	}
	return tf, nil
}

// tablesFromBytes is openTables for a file already in memory (tests).
func tablesFromBytes(name string, data []byte) (*tablesFile, error) {
	tf := &tablesFile{path: name, data: data}
	if len(data) < len(tablesMagic)+tablesTrailer {
		return nil, tf.corrupt("")
	}
	if err := tf.parseStats(); err != nil {
		return nil, err
	}
	return tf, nil
}

// parseStats checks the magic and finds where the stat section ends
// (what the decoding of the rest needs); the rows are decoded by
// loadStats, on first use, so that the walk that needs them and the
// decoding of the rest start at once, on two cores.
func (tf *tablesFile) parseStats() error {
	data := tf.data
	if !bytes.HasPrefix(data, []byte(tablesMagic)) {
		if bytes.HasPrefix(data, []byte(tablesMagic[:len(tablesMagic)-1])) {
			return tf.corrupt(fmt.Sprintf("written in format %q, this ctxls reads %q", data[:len(tablesMagic)], tablesMagic))
		}
		return tf.corrupt("")
	}
	n, ok := statsLen(data[len(tablesMagic) : len(data)-tablesTrailer])
	if !ok {
		return tf.corrupt("stat section")
	}
	tf.rest = len(tablesMagic) + n
	return nil
}

// loadStats decodes the stat section's rows (once; callers may race).
// Its paths are substrings of a copy of the section, not of the file's
// bytes.
func (tf *tablesFile) loadStats() error {
	tf.statsOnce.Do(func() { tf.statsErr = tf.decodeStats() })
	return tf.statsErr
}

func (tf *tablesFile) decodeStats() error {
	b := tf.data[len(tablesMagic):tf.rest]
	// The copy is never written to: its strings are immutable as Go
	// requires, and stay alive as long as any of them.
	own := bytes.Clone(b)
	r := &tablesReader{b: own, all: unsafe.String(unsafe.SliceData(own), len(own))}
	cnt := r.count(3)
	tf.stats = make(map[string]fileStat, cnt)
	tf.order = make([]string, 0, cnt)
	tf.statList = make([]fileStat, 0, cnt)
	for range cnt {
		l := r.uvarint()
		if l > uint64(len(r.b)) {
			r.fail()
			break
		}
		off := len(r.all) - len(r.b)
		p := r.all[off : off+int(l)]
		r.b = r.b[l:]
		st := fileStat{size: r.varint(), modTime: r.varint(), overlay: r.uvarint()&1 != 0}
		tf.stats[p] = st
		tf.order = append(tf.order, p)
		tf.statList = append(tf.statList, st)
	}
	if r.err != nil || len(r.b) != 0 {
		return tf.corrupt("stat section")
	}
	return nil
}

// statsLen returns the length of the stat section at the start of b: its
// count, then per file a path, a size, a time and flags (parseStats); ok
// is false when b ends within it. It only skips over them.
func statsLen(b []byte) (n int, ok bool) {
	all := len(b)
	cnt, k := binary.Uvarint(b)
	if k <= 0 {
		return 0, false
	}
	b = b[k:]
	for range cnt {
		l, k := binary.Uvarint(b)
		if k <= 0 || l > uint64(len(b)-k) {
			return 0, false
		}
		b = b[k+int(l):]
		for range 3 {
			_, k := binary.Uvarint(b)
			if k <= 0 {
				return 0, false
			}
			b = b[k:]
		}
	}
	return all - len(b), true
}

// finish checks the checksum (unless sumElsewhere) and the trailer.
func (tf *tablesFile) finish() error {
	data := tf.data
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if !tf.sumElsewhere && crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)) != sum {
		return tf.corrupt("checksum mismatch")
	}
	tf.symOff = binary.LittleEndian.Uint64(body[len(body)-16:])
	tf.nstrs = binary.LittleEndian.Uint64(body[len(body)-8:])
	body = body[:len(body)-16]
	if tf.rest > len(body) || tf.nstrs > uint64(len(body)) || (tf.symOff != 0 && (tf.symOff < uint64(len(tablesMagic)) || tf.symOff > uint64(len(body)))) {
		return tf.corrupt("")
	}
	tf.body = body
	return nil
}

// sum is the file's checksum (its last 4 bytes), once finish has read it.
func (tf *tablesFile) sum() uint32 {
	return binary.LittleEndian.Uint32(tf.data[len(tf.data)-4:])
}

// unchanged reports whether the stat section holds rel with this size and
// modification time, as a disk file (not an overlay).
func (tf *tablesFile) unchanged(rel string, size int64, mtime time.Time) bool {
	if tf.loadStats() != nil {
		return false
	}
	st, ok := tf.stats[rel]
	return ok && !st.overlay && st.size == size && st.modTime != 0 && st.modTime == mtime.UnixNano()
}

// decode decodes the rest of the tables, interning names in nt.
func (tf *tablesFile) decode(nt *nameTable) (encodings []string, files map[string]*fileRec, sym *symIndex, err error) {
	if err := tf.finish(); err != nil {
		return nil, nil, nil, err
	}
	body, symOff := tf.body, tf.symOff
	corrupt := tf.corrupt
	if symOff != 0 && symOff < uint64(tf.rest) {
		return nil, nil, nil, corrupt("")
	}
	filesEnd := len(body)
	type symResult struct {
		sym *symIndex
		err error
	}
	var symDone chan symResult
	if symOff != 0 {
		filesEnd = int(symOff)
		symDone = make(chan symResult, 1)
		// The symbols section stands alone: decode it on another core
		// while the files are read (it needs only the chunk count, which
		// it checks against once both are done).
		go func() {
			sr := &tablesReader{b: body[symOff:]}
			si := sr.symIndex(tf.hold)
			if sr.err == nil && len(sr.b) != 0 {
				sr.fail()
			}
			symDone <- symResult{si, sr.err}
		}()
	}
	r := &tablesReader{b: body[tf.rest:filesEnd]}
	// The string table, in place: offsets into one blob.
	r.raw((4 - tf.rest%4) % 4)
	hdr := r.raw(8)
	if r.err != nil {
		return nil, nil, nil, corrupt("")
	}
	nstrs, blobLen := uint64(binary.LittleEndian.Uint32(hdr)), uint64(binary.LittleEndian.Uint32(hdr[4:]))
	if nstrs != tf.nstrs || nstrs+1 > uint64(len(r.b))/4 || blobLen > uint64(len(r.b)) {
		return nil, nil, nil, corrupt("string table")
	}
	dec := &recDecoder{offs: int32s(r.raw(4 * int(nstrs+1))), nenc: 0, hold: tf.hold}
	blob := r.raw(int(blobLen))
	if r.err != nil {
		return nil, nil, nil, corrupt("string table")
	}
	// Every string of the file is a substring of this copy (see
	// tablesFile).
	dec.blob = string(blob)
	for k := 1; k < len(dec.offs); k++ {
		if dec.offs[k] < dec.offs[k-1] || uint64(dec.offs[k]) > blobLen || dec.offs[0] != 0 {
			return nil, nil, nil, corrupt("string table")
		}
	}
	encodings = make([]string, r.count(1))
	for k := range encodings {
		encodings[k] = dec.str(r.uvarint(), r)
	}
	dec.nenc = len(encodings)
	// The name table: on a fresh name table the file's ids are the ids;
	// otherwise they are interned and mapped.
	fileNames := make([]string, r.count(1))
	for k := range fileNames {
		fileNames[k] = dec.str(r.uvarint(), r)
	}
	dec.nnames = len(fileNames)
	// nt takes the file's names only once the whole file has decoded
	// (below): a damaged file leaves it as it was.
	fresh := len(nt.names) == 0
	if !fresh {
		dec.remap = make([]uint32, len(fileNames))
		for k, n := range fileNames {
			dec.remap[k] = nt.intern(n)
		}
	}
	nf := r.count(8)
	files = make(map[string]*fileRec, nf)
	blocks := make([]*lazyRecs, 0, nf) // by file, in file order
	recs := make([]*fileRec, 0, nf)
	for range nf {
		fr := &fileRec{}
		fi := &fr.info
		fi.Path = dec.str(r.uvarint(), r)
		fi.Size = r.varint()
		if mt := r.varint(); mt != 0 {
			fi.ModTime = time.Unix(0, mt)
		}
		fi.Hash = dec.str(r.uvarint(), r)
		fi.Language = dec.str(r.uvarint(), r)
		fi.Overlay = r.uvarint()&1 != 0
		l := &lazyRecs{n: r.int(), dec: dec}
		fi.Chunks = l.n
		for k := range l.flen {
			l.flen[k] = r.uvarint()
		}
		l.body = r.raw(r.count(1))
		switch {
		case r.err != nil:
		case len(l.body) == 0 && l.n > 0:
			// The block of an earlier file with the same chunks.
			k := r.uvarint()
			if k >= uint64(len(blocks)) || blocks[k].n != l.n {
				r.fail()
			} else {
				l.body = blocks[k].body
			}
		case l.n < 0 || l.n > len(l.body)/20:
			r.fail() // every chunk takes 20 bytes or more
		}
		if r.err != nil {
			break
		}
		blocks = append(blocks, l)
		fr.lazy = l
		if _, dup := files[fi.Path]; dup {
			r.fail()
			break
		}
		files[fi.Path] = fr
		recs = append(recs, fr)
	}
	if r.err == nil && symOff != 0 && len(r.b) < 4 && bytes.Count(r.b, []byte{0}) == len(r.b) {
		r.b = nil // the padding before the symbols
	}
	if r.err == nil && len(r.b) != 0 {
		r.fail()
	}
	if symDone != nil {
		res := <-symDone
		total := 0
		for _, f := range files {
			total += f.numChunks()
		}
		switch {
		case res.err != nil:
			r.err = res.err
		case r.err == nil && !res.sym.pointsBelow(total):
			r.fail()
		}
		sym = res.sym
	}
	if r.err == nil {
		if err := tf.loadStats(); err != nil {
			return nil, nil, nil, err
		}
		// The stat section must describe the same files: row by row
		// when they are in the same order (as written), else by path.
		if len(files) != len(tf.stats) || len(recs) != len(tf.order) {
			r.fail()
		}
		sameStat := func(st fileStat, f *fileRec) bool {
			return st.size == f.info.Size && st.modTime == unixNano(f.info.ModTime) && st.overlay == f.info.Overlay
		}
		for i, f := range recs {
			if r.err != nil {
				break
			}
			if tf.order[i] == f.info.Path {
				if !sameStat(tf.statList[i], f) {
					r.fail()
				}
				continue
			}
			if st, ok := tf.stats[f.info.Path]; !ok || !sameStat(st, f) {
				r.fail()
			}
		}
	}
	if r.err != nil {
		return nil, nil, nil, fmt.Errorf("read tables %s: %w", tf.path, r.err)
	}
	if fresh {
		nt.names = append(nt.names, fileNames...)
		nt.idx = nil
	}
	tf.recs = recs
	return encodings, files, sym, nil
}

// writeSymIndex writes the symbols section (see the format above),
// starting at a multiple of 4 bytes from the start of the file.
func writeSymIndex(w *tablesWriter, sym *symIndex) {
	names := sym.idx.names
	blob := 0
	for _, n := range names {
		blob += len(n)
	}
	for _, v := range []int{len(names), 64 - int(sym.idx.shift), len(sym.defs), len(sym.refs), blob} {
		w.u32(uint32(v))
	}
	w.offsetsAndBlob(names)
	w.bytes(make([]byte, (4-blob%4)%4))
	for _, list := range [][]int32{sym.idx.slots, sym.defStart, sym.refStart, sym.defs, sym.refs} {
		for _, v := range list {
			w.u32(uint32(v))
		}
	}
}

// int32s returns b (a multiple of 4 bytes, little-endian) as []int32:
// the same memory when the machine is little-endian and b is aligned,
// else a decoded copy.
func int32s(b []byte) []int32 {
	n := len(b) / 4
	if n == 0 {
		return nil
	}
	if binary.NativeEndian.Uint16([]byte{1, 0}) == 1 && uintptr(unsafe.Pointer(unsafe.SliceData(b)))%4 == 0 {
		return unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(b))), n)
	}
	v := make([]int32, n)
	for i := range v {
		v[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// symIndex reads the symbols section in place: its arrays are views of
// the file's bytes (see int32s), so loading costs a bounds check per
// name, not a decode per entry. The chunk positions are checked by the
// caller against the chunk count (pointsBelow), once it is known.
func (r *tablesReader) symIndex(hold *cachefile.Mapped) *symIndex {
	hdr := r.raw(20)
	if r.err != nil {
		return nil
	}
	h := func(i int) uint64 { return uint64(binary.LittleEndian.Uint32(hdr[4*i:])) }
	nNames, logSlots, nDefs, nRefs, blob := h(0), h(1), h(2), h(3), h(4)
	rest := uint64(len(r.b))
	if logSlots < 4 || logSlots > 31 || nNames > rest/4 || nDefs > rest/4 || nRefs > rest/4 || blob > rest ||
		(uint64(1)<<logSlots) < nNames || (uint64(4)<<logSlots) > rest {
		r.fail()
		return nil
	}
	offs := int32s(r.raw(4 * int(nNames+1)))
	blobBytes := r.raw(int(blob))
	r.raw(int((4 - blob%4) % 4))
	slots := int32s(r.raw(4 << logSlots))
	defStart := int32s(r.raw(4 * int(nNames+1)))
	refStart := int32s(r.raw(4 * int(nNames+1)))
	defs := int32s(r.raw(4 * int(nDefs)))
	refs := int32s(r.raw(4 * int(nRefs)))
	if r.err != nil {
		return nil
	}
	blobStr := string(blobBytes) // a copy: see tablesFile
	names := make([]string, nNames)
	for i := range names {
		a, b := offs[i], offs[i+1]
		if a < 0 || b < a || uint64(b) > blob {
			r.fail()
			return nil
		}
		names[i] = blobStr[a:b]
	}
	used := 0
	for _, v := range slots {
		if v < -1 || uint64(v+1) > nNames {
			r.fail()
			return nil
		}
		if v >= 0 {
			used++
		}
	}
	// A lookup probes until an empty slot: there must be one (the writer
	// keeps the table at most half full).
	if uint64(used) > nNames || used >= len(slots) {
		r.fail()
		return nil
	}
	for _, l := range []struct {
		start []int32
		n     uint64
	}{{defStart, nDefs}, {refStart, nRefs}} {
		if l.start[0] != 0 || uint64(l.start[nNames]) != l.n {
			r.fail()
			return nil
		}
		for i := 1; i < len(l.start); i++ {
			if l.start[i] < l.start[i-1] {
				r.fail()
				return nil
			}
		}
	}
	return &symIndex{
		idx:      &nameIndex{slots: slots, names: names, mask: uint64(len(slots) - 1), shift: uint(64 - logSlots)},
		defStart: defStart, refStart: refStart, defs: defs, refs: refs,
		hold: hold,
	}
}

// unixNano is t in Unix nanoseconds, 0 for the zero time.
func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// recDecoder is what decoding a file's chunk records needs (lazyRecs):
// the string table and the name ids. It is immutable once the tables
// are open, so files may be decoded concurrently.
type recDecoder struct {
	offs []int32 // string i is blob[offs[i]:offs[i+1]]
	blob string
	// hold keeps the mapping offs and the files' chunk blocks are read
	// from (nil: in memory of their own).
	hold   *cachefile.Mapped
	nenc   int
	nnames int
	remap  []uint32 // file name id → name table id; nil: the same
}

// str returns string id, failing r when there is none.
func (d *recDecoder) str(id uint64, r *tablesReader) string {
	if len(d.offs) == 0 || id >= uint64(len(d.offs)-1) {
		r.fail()
		return ""
	}
	return d.blob[d.offs[id]:d.offs[id+1]]
}

// decodeChunks decodes n chunk records and their token counts from body.
// The tables file passed its checksum when it was opened, so a failure
// here is a bug; it yields n empty records rather than a crash.
func (d *recDecoder) decodeChunks(body []byte, n int) ([]chunkRec, []int32) {
	r := &tablesReader{b: body}
	chunks := make([]chunkRec, n)
	var tokens []int32
	if d.nenc > 0 {
		tokens = make([]int32, n*d.nenc)
	}
	for i := range chunks {
		c := &chunks[i]
		c.language = d.str(r.uvarint(), r)
		c.kind = chunk.Kind(d.str(r.uvarint(), r))
		c.startByte = r.int32()
		c.endByte = r.int32()
		c.startLine = r.int32()
		c.endLine = r.int32()
		c.symbol = d.str(r.uvarint(), r)
		c.qualifiedName = d.str(r.uvarint(), r)
		c.signature = d.str(r.uvarint(), r)
		c.sigEndLine = r.int32()
		c.doc = d.str(r.uvarint(), r)
		c.docStartLine = r.int32()
		nd, nr := r.count(1), r.count(1)
		if k := nd + nr; k > 0 {
			c.names = make([]uint32, k)
			for j := range c.names {
				id := r.uvarint()
				if id >= uint64(d.nnames) {
					r.fail()
					break
				}
				if d.remap != nil {
					id = uint64(d.remap[id])
				}
				c.names[j] = uint32(id)
			}
		}
		c.ndefs = int32(nd)
		switch r.uvarint() {
		case 0:
			copy(c.hashes[:], r.raw(len(c.hashes)))
		case 1:
			c.oddHashes = &[2]string{d.str(r.uvarint(), r), d.str(r.uvarint(), r)}
		default:
			r.fail()
		}
		c.part = r.int32()
		for j := range d.nenc {
			tokens[i*d.nenc+j] = r.int32()
		}
		for j := range c.flen {
			c.flen[j] = uint32(r.uvarint())
		}
		if r.err != nil {
			break
		}
	}
	if r.err != nil || len(r.b) != 0 {
		return make([]chunkRec, n), make([]int32, n*d.nenc)
	}
	return chunks, tokens
}
