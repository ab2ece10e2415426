package index

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"time"
	"unsafe"

	"github.com/ctxls/ctxls/index/chunk"
)

// The tables file is a compact binary encoding of the file and chunk
// tables and the symbol maps:
//
//	magic "CTXLSTB6"
//	stat: uvarint n, n × (uvarint len, bytes path, varint size, varint
//	       mtime (Unix ns, 0 unknown), uvarint flags (1: overlay)) — what a
//	       refresh compares with the disk, decoded first so that the walk
//	       can start while the rest is
//	encodings: uvarint n, n × str
//	names: uvarint n, n × str (the name table; chunks refer to it by id)
//	files: uvarint n, n × file
//	file: str path, varint size, varint mtime (Unix ns), str hash,
//	      str language, uvarint flags (1: overlay), uvarint chunks, chunks × chunk
//	chunk: str language, str kind, uvarint startByte endByte startLine endLine,
//	       str symbol, str qualifiedName, str signature, uvarint sigEndLine,
//	       str doc, uvarint docStartLine, uvarint d, uvarint r,
//	       d × uvarint define id, r × uvarint reference id, hashes,
//	       uvarint part, encodings × uvarint tokens,
//	       numSearchFields × uvarint field length
//	symbols (absent when the trailer's offset is 0; padded to start at a
//	       multiple of 4 bytes): 32-bit little-endian words n, log2 slots,
//	       defs, refs, blob length; n+1 name offsets into the blob; the
//	       blob (padded to 4); the slots (name positions, -1 empty); n+1
//	       def list starts; n+1 ref list starts; the def lists; the ref
//	       lists (chunk positions in path order). Read in place, not
//	       decoded. The slots are nameIndex's, whose hash is fixed:
//	       changing hashName needs a new tablesMagic.
//	trailer: 8 bytes little-endian offset of the symbols section, 8 bytes
//	       little-endian number of distinct strs, 4 bytes little-endian
//	       CRC-32C of everything before
//
//	hashes: uvarint 0 + 16 bytes tracking hash + 16 bytes content hash
//	        (the chunk package's hex form, decoded), or uvarint 1 + str
//	        tracking hash + str content hash (any other form)
//
// str is interned: uvarint 0, uvarint len, bytes for a string's first
// occurrence, uvarint i+1 for a repeat of the i-th distinct string. On load
// every string is a substring of one copy of the file (no allocation per
// string), and every repeated identifier is one Go string. The checksum
// detects a damaged file (a CRC, at memory speed, where SHA-256 cost a
// tenth of a CLI run's start-up).
const tablesMagic = "CTXLSTB7"

var errCorrupt = errors.New("tables file corrupt")

type tablesWriter struct {
	w    *bufio.Writer
	n    int64 // bytes written
	strs map[string]uint64
	buf  [binary.MaxVarintLen64]byte
	err  error
}

func (w *tablesWriter) bytes(b []byte) {
	if w.err == nil {
		_, w.err = w.w.Write(b)
		w.n += int64(len(b))
	}
}

// plain writes s without interning: uvarint len, bytes.
func (w *tablesWriter) plain(s string) {
	w.uvarint(uint64(len(s)))
	if w.err == nil {
		_, w.err = w.w.WriteString(s)
		w.n += int64(len(s))
	}
}

func (w *tablesWriter) uvarint(x uint64) { w.bytes(w.buf[:binary.PutUvarint(w.buf[:], x)]) }
func (w *tablesWriter) varint(x int64)   { w.bytes(w.buf[:binary.PutVarint(w.buf[:], x)]) }
func (w *tablesWriter) int(x int)        { w.uvarint(uint64(max(x, 0))) }

func (w *tablesWriter) str(s string) {
	if i, ok := w.strs[s]; ok {
		w.uvarint(i + 1)
		return
	}
	w.strs[s] = uint64(len(w.strs))
	w.uvarint(0)
	w.plain(s)
}

func (w *tablesWriter) strList(ss []string) {
	w.uvarint(uint64(len(ss)))
	for _, s := range ss {
		w.str(s)
	}
}

// writeTables writes the tables of files (in the given order) to path
// atomically: a temporary file, fsync, rename. names resolves the chunks'
// name ids.
func writeTables(path string, encodings, names []string, files []*fileRec, sym *symIndex) (err error) {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("write tables: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	h := crc32.New(crc32.MakeTable(crc32.Castagnoli))
	w := &tablesWriter{w: bufio.NewWriterSize(io.MultiWriter(f, h), 1<<16), strs: make(map[string]uint64)}
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
	w.strList(encodings)
	w.strList(names)
	w.uvarint(uint64(len(files)))
	nenc := len(encodings)
	for _, fr := range files {
		fi := &fr.info
		w.str(fi.Path)
		w.varint(fi.Size)
		w.varint(unixNano(fi.ModTime))
		w.str(fi.Hash)
		w.str(fi.Language)
		var flags uint64
		if fi.Overlay {
			flags |= 1
		}
		w.uvarint(flags)
		w.uvarint(uint64(len(fr.chunks)))
		for i := range fr.chunks {
			c := &fr.chunks[i]
			w.str(c.language)
			w.str(string(c.kind))
			w.int(int(c.startByte))
			w.int(int(c.endByte))
			w.int(int(c.startLine))
			w.int(int(c.endLine))
			w.str(c.symbol)
			w.str(c.qualifiedName)
			w.str(c.signature)
			w.int(int(c.sigEndLine))
			w.str(c.doc)
			w.int(int(c.docStartLine))
			w.uvarint(uint64(len(c.defines())))
			w.uvarint(uint64(len(c.references())))
			for _, id := range c.names {
				w.uvarint(uint64(id))
			}
			if c.oddHashes == nil {
				w.uvarint(0)
				w.bytes(c.hashes[:])
			} else {
				w.uvarint(1)
				w.str(c.oddHashes[0])
				w.str(c.oddHashes[1])
			}
			w.int(int(c.part))
			for j := range nenc {
				var n int32
				if k := i*nenc + j; k < len(fr.tokens) {
					n = fr.tokens[k]
				}
				w.int(int(n))
			}
			for _, l := range c.flen {
				w.uvarint(uint64(l))
			}
		}
	}
	var symOff int64
	if sym != nil {
		w.bytes(make([]byte, (4-w.n%4)%4))
		symOff = w.n
		writeSymIndex(w, sym)
	}
	// The trailer: where the symbols are, and how many distinct strings
	// there are (so that the reader sizes its string table once).
	var t [16]byte
	binary.LittleEndian.PutUint64(t[:8], uint64(symOff))
	binary.LittleEndian.PutUint64(t[8:], uint64(len(w.strs)))
	w.bytes(t[:])
	if w.err == nil {
		w.err = w.w.Flush()
	}
	if w.err != nil {
		return fmt.Errorf("write tables: %w", w.err)
	}
	if _, err := f.Write(binary.LittleEndian.AppendUint32(nil, h.Sum32())); err != nil {
		return fmt.Errorf("write tables: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("write tables: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write tables: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write tables: %w", err)
	}
	return nil
}

type tablesReader struct {
	b    []byte
	all  string // the same bytes as the whole of b at the start
	strs []string
	err  error
	nt   *nameTable
	// canon shares the few language and kind strings.
	canon map[string]string
}

// canonical returns the reader's shared copy of s.
func (r *tablesReader) canonical(s string) string {
	if c, ok := r.canon[s]; ok {
		return c
	}
	r.canon[s] = s
	return s
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

func (r *tablesReader) str() string {
	i := r.uvarint()
	if i > 0 {
		if i > uint64(len(r.strs)) {
			r.fail()
			return ""
		}
		return r.strs[i-1]
	}
	return r.strAfterTag()
}

// strAfterTag reads the length and bytes of a string's first occurrence.
func (r *tablesReader) strAfterTag() string {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
		return ""
	}
	off := len(r.all) - len(r.b)
	s := r.all[off : off+int(n)]
	r.b = r.b[n:]
	r.strs = append(r.strs, s)
	return s
}

func (r *tablesReader) strList() []string {
	n := r.count(1)
	if n == 0 {
		return nil
	}
	ss := make([]string, n)
	for i := range ss {
		ss[i] = r.str()
	}
	return ss
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
type tablesFile struct {
	path         string
	body         []byte // without the trailer
	all          string // body's bytes as a string (see openTables)
	rest         int    // offset of what follows the stat section
	symOff       uint64
	nstrs        uint64
	stats        map[string]fileStat
	statsOverlay bool // some file is an overlay
}

func (tf *tablesFile) corrupt(why string) error {
	if why != "" {
		return fmt.Errorf("read tables %s: %s: %w", tf.path, why, errCorrupt)
	}
	return fmt.Errorf("read tables %s: %w", tf.path, errCorrupt)
}

// openTables reads path, checks its format and checksum and decodes the
// stat section.
func openTables(path string) (*tablesFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read tables: %w", err)
	}
	tf := &tablesFile{path: path}
	const trailer = 16 + 4
	if len(data) < len(tablesMagic)+trailer || !bytes.HasPrefix(data, []byte(tablesMagic)) {
		if len(data) >= len(tablesMagic) && bytes.HasPrefix(data, []byte(tablesMagic[:len(tablesMagic)-1])) {
			return nil, tf.corrupt(fmt.Sprintf("written in format %q, this ctxls reads %q", data[:len(tablesMagic)], tablesMagic))
		}
		return nil, tf.corrupt("")
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)) != sum {
		return nil, tf.corrupt("checksum mismatch")
	}
	tf.symOff = binary.LittleEndian.Uint64(body[len(body)-16:])
	tf.nstrs = binary.LittleEndian.Uint64(body[len(body)-8:])
	body = body[:len(body)-16]
	if tf.nstrs > uint64(len(body)) || (tf.symOff != 0 && (tf.symOff < uint64(len(tablesMagic)) || tf.symOff > uint64(len(body)))) {
		return nil, tf.corrupt("")
	}
	// The strings read are substrings of all, which is data's bytes
	// without a copy: data is never written to after this point (it is
	// this function's own buffer), so the string is immutable as Go
	// requires, and it stays alive as long as any string read from it.
	tf.body, tf.all = body, unsafe.String(unsafe.SliceData(body), len(body))
	r := &tablesReader{b: body[len(tablesMagic):], all: tf.all[len(tablesMagic):]}
	n := r.count(3)
	tf.stats = make(map[string]fileStat, n)
	for range n {
		l := r.uvarint()
		if l > uint64(len(r.b)) {
			r.fail()
			break
		}
		off := len(r.all) - len(r.b)
		p := r.all[off : off+int(l)]
		r.b = r.b[l:]
		st := fileStat{size: r.varint(), modTime: r.varint(), overlay: r.uvarint()&1 != 0}
		tf.statsOverlay = tf.statsOverlay || st.overlay
		tf.stats[p] = st
	}
	if r.err != nil {
		return nil, tf.corrupt("stat section")
	}
	tf.rest = len(body) - len(r.b)
	return tf, nil
}

// unchanged reports whether the stat section holds rel with this size and
// modification time, as a disk file (not an overlay).
func (tf *tablesFile) unchanged(rel string, size int64, mtime time.Time) bool {
	st, ok := tf.stats[rel]
	return ok && !st.overlay && st.size == size && st.modTime != 0 && st.modTime == mtime.UnixNano()
}

// decode decodes the rest of the tables, interning names in nt.
func (tf *tablesFile) decode(nt *nameTable) (encodings []string, files map[string]*fileRec, sym *symIndex, err error) {
	body, all, symOff := tf.body, tf.all, tf.symOff
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
			sr := &tablesReader{b: body[symOff:], all: all[symOff:]}
			si := sr.symIndex(math.MaxInt32)
			if sr.err == nil && len(sr.b) != 0 {
				sr.fail()
			}
			symDone <- symResult{si, sr.err}
		}()
	}
	nstrs := tf.nstrs
	r := &tablesReader{b: body[tf.rest:filesEnd], all: all[tf.rest:filesEnd], nt: nt, canon: make(map[string]string),
		strs: make([]string, 0, nstrs)}
	encodings = r.strList()
	// The name table: on a fresh name table the file's ids are the ids;
	// otherwise they are interned and mapped.
	fileNames := r.strList()
	var remap []uint32
	if len(nt.names) == 0 {
		nt.names = append(nt.names, fileNames...)
		nt.ids = nil
	} else {
		remap = make([]uint32, len(fileNames))
		for i, n := range fileNames {
			remap[i] = nt.intern(n)
		}
	}
	var slab []uint32
	nf := r.count(8)
	files = make(map[string]*fileRec, nf)
	for range nf {
		fr := &fileRec{}
		fi := &fr.info
		fi.Path = r.str()
		fi.Size = r.varint()
		if mt := r.varint(); mt != 0 {
			fi.ModTime = time.Unix(0, mt)
		}
		fi.Hash = r.str()
		fi.Language = r.str()
		fi.Overlay = r.uvarint()&1 != 0
		nc := r.count(20)
		fi.Chunks = nc
		fi.Language = r.canonical(fi.Language)
		fr.chunks = make([]chunkRec, nc)
		nenc := len(encodings)
		if nenc > 0 {
			fr.tokens = make([]int32, nc*nenc)
		}
		for i := range fr.chunks {
			c := &fr.chunks[i]
			c.language = r.canonical(r.str())
			c.kind = chunk.Kind(r.canonical(r.str()))
			c.startByte = r.int32()
			c.endByte = r.int32()
			c.startLine = r.int32()
			c.endLine = r.int32()
			c.symbol = r.str()
			c.qualifiedName = r.str()
			c.signature = r.str()
			c.sigEndLine = r.int32()
			c.doc = r.str()
			c.docStartLine = r.int32()
			nd, nr := r.count(1), r.count(1)
			if n := nd + nr; n > 0 {
				// Name lists are cut from shared slabs: one allocation per
				// 64 Ki names instead of one per chunk.
				if len(slab)+n > cap(slab) {
					slab = make([]uint32, 0, max(n, 1<<16))
				}
				c.names = slab[len(slab) : len(slab)+n : len(slab)+n]
				slab = slab[:len(slab)+n]
				for k := range c.names {
					id := r.uvarint()
					if id >= uint64(len(fileNames)) {
						r.fail()
						break
					}
					if remap != nil {
						id = uint64(remap[id])
					}
					c.names[k] = uint32(id)
				}
			}
			c.ndefs = int32(nd)
			switch r.uvarint() {
			case 0:
				copy(c.hashes[:], r.raw(len(c.hashes)))
			case 1:
				c.oddHashes = &[2]string{r.str(), r.str()}
			default:
				r.fail()
			}
			c.part = r.int32()
			for j := range nenc {
				fr.tokens[i*nenc+j] = r.int32()
			}
			for j := range c.flen {
				c.flen[j] = uint32(r.uvarint())
			}
		}
		if r.err != nil {
			break
		}
		if _, dup := files[fi.Path]; dup {
			r.fail()
			break
		}
		files[fi.Path] = fr
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
			total += len(f.chunks)
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
		// The stat section must describe the same files.
		if len(files) != len(tf.stats) {
			r.fail()
		}
		for p, f := range files {
			st, ok := tf.stats[p]
			if !ok || st.size != f.info.Size || st.modTime != unixNano(f.info.ModTime) || st.overlay != f.info.Overlay {
				r.fail()
				break
			}
		}
	}
	if r.err != nil {
		return nil, nil, nil, fmt.Errorf("read tables %s: %w", tf.path, r.err)
	}
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
	var b [4]byte
	u32 := func(v uint32) {
		binary.LittleEndian.PutUint32(b[:], v)
		w.bytes(b[:])
	}
	for _, v := range []int{len(names), 64 - int(sym.idx.shift), len(sym.defs), len(sym.refs), blob} {
		u32(uint32(v))
	}
	off := 0
	for _, n := range names {
		u32(uint32(off))
		off += len(n)
	}
	u32(uint32(off))
	for _, n := range names {
		if w.err == nil {
			_, w.err = w.w.WriteString(n)
			w.n += int64(len(n))
		}
	}
	w.bytes(make([]byte, (4-blob%4)%4))
	for _, list := range [][]int32{sym.idx.slots, sym.defStart, sym.refStart, sym.defs, sym.refs} {
		for _, v := range list {
			u32(uint32(v))
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
// name, not a decode per entry. chunks bounds the chunk positions.
func (r *tablesReader) symIndex(chunks int) *symIndex {
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
	blobStr := unsafe.String(unsafe.SliceData(blobBytes), len(blobBytes))
	names := make([]string, nNames)
	for i := range names {
		a, b := offs[i], offs[i+1]
		if a < 0 || b < a || uint64(b) > blob {
			r.fail()
			return nil
		}
		names[i] = blobStr[a:b]
	}
	for _, v := range slots {
		if v < -1 || uint64(v+1) > nNames {
			r.fail()
			return nil
		}
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
	si := &symIndex{
		idx:      &nameIndex{slots: slots, names: names, mask: uint64(len(slots) - 1), shift: uint(64 - logSlots)},
		defStart: defStart, refStart: refStart, defs: defs, refs: refs,
	}
	if !si.pointsBelow(chunks) {
		r.fail()
		return nil
	}
	return si
}

// unixNano is t in Unix nanoseconds, 0 for the zero time.
func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}
