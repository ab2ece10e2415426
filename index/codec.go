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
//	magic "CTXLSTB5"
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
//	symbols (absent when the trailer's offset is 0): uvarint n, n × (uvarint
//	       len, bytes) names, uvarint log2 slots, slots × 4 bytes
//	       little-endian (name positions, 0xFFFFFFFF empty), n × uvarint
//	       defs count, n × uvarint refs count, then the def lists and the
//	       ref lists (chunk positions in path order, each delta-coded); the
//	       slots are nameIndex's, whose hash is fixed: changing hashName
//	       needs a new tablesMagic. The section stands alone (no str
//	       references), so it is decoded while the files are.
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
const tablesMagic = "CTXLSTB5"

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
	w.strList(encodings)
	w.strList(names)
	w.uvarint(uint64(len(files)))
	nenc := len(encodings)
	for _, fr := range files {
		fi := &fr.info
		w.str(fi.Path)
		w.varint(fi.Size)
		var mt int64
		if !fi.ModTime.IsZero() {
			mt = fi.ModTime.UnixNano()
		}
		w.varint(mt)
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
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read tables: %w", err)
	}
	corrupt := func(why string) error {
		if why != "" {
			return fmt.Errorf("read tables %s: %s: %w", path, why, errCorrupt)
		}
		return fmt.Errorf("read tables %s: %w", path, errCorrupt)
	}
	const trailer = 16 + 4
	if len(data) < len(tablesMagic)+trailer || !bytes.HasPrefix(data, []byte(tablesMagic)) {
		if len(data) >= len(tablesMagic) && bytes.HasPrefix(data, []byte(tablesMagic[:len(tablesMagic)-1])) {
			return nil, nil, nil, corrupt(fmt.Sprintf("written in format %q, this ctxls reads %q", data[:len(tablesMagic)], tablesMagic))
		}
		return nil, nil, nil, corrupt("")
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)) != sum {
		return nil, nil, nil, corrupt("checksum mismatch")
	}
	symOff := binary.LittleEndian.Uint64(body[len(body)-16:])
	nstrs := binary.LittleEndian.Uint64(body[len(body)-8:])
	body = body[:len(body)-16]
	if nstrs > uint64(len(body)) || (symOff != 0 && (symOff < uint64(len(tablesMagic)) || symOff > uint64(len(body)))) {
		return nil, nil, nil, corrupt("")
	}
	// The strings read are substrings of all, which is data's bytes
	// without a copy: data is never written to after this point (it is
	// this function's own buffer), so the string is immutable as Go
	// requires, and it stays alive as long as any string read from it.
	all := unsafe.String(unsafe.SliceData(body), len(body))
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
	r := &tablesReader{b: body[len(tablesMagic):filesEnd], all: all[len(tablesMagic):filesEnd], nt: nt, canon: make(map[string]string),
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
	if r.err != nil {
		return nil, nil, nil, fmt.Errorf("read tables %s: %w", path, r.err)
	}
	return encodings, files, sym, nil
}

// writeSymIndex writes the symbols section (see the format above).
func writeSymIndex(w *tablesWriter, sym *symIndex) {
	w.uvarint(uint64(len(sym.idx.names)))
	for _, name := range sym.idx.names {
		w.plain(name)
	}
	w.uvarint(uint64(64 - sym.idx.shift))
	var b [4]byte
	for _, v := range sym.idx.slots {
		binary.LittleEndian.PutUint32(b[:], uint32(v))
		w.bytes(b[:])
	}
	for _, start := range [][]int32{sym.defStart, sym.refStart} {
		for i := 1; i < len(start); i++ {
			w.uvarint(uint64(start[i] - start[i-1]))
		}
	}
	for _, l := range []struct{ start, slab []int32 }{{sym.defStart, sym.defs}, {sym.refStart, sym.refs}} {
		for i := 1; i < len(l.start); i++ {
			prev := int32(0)
			for _, c := range l.slab[l.start[i-1]:l.start[i]] {
				w.uvarint(uint64(c - prev))
				prev = c
			}
		}
	}
}

// symIndex reads the symbols section; chunks is the number of chunks the
// lists may point into.
func (r *tablesReader) symIndex(chunks int) *symIndex {
	nn := r.count(1)
	names := make([]string, nn)
	for i := range names {
		n := r.uvarint()
		if n > uint64(len(r.b)) {
			r.fail()
			return nil
		}
		off := len(r.all) - len(r.b)
		names[i] = r.all[off : off+int(n)]
		r.b = r.b[n:]
	}
	logSlots := r.uvarint()
	if logSlots < 4 || logSlots > 40 || (uint64(1)<<logSlots) < uint64(len(names)) || (uint64(4)<<logSlots) > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	n := 1 << logSlots
	idx := &nameIndex{slots: make([]int32, n), names: names, mask: uint64(n - 1), shift: uint(64 - logSlots)}
	raw := r.raw(4 * n)
	for i := range idx.slots {
		v := int32(binary.LittleEndian.Uint32(raw[4*i:]))
		if v < -1 || int(v) >= len(names) {
			r.fail()
			return nil
		}
		idx.slots[i] = v
	}
	si := &symIndex{idx: idx, defStart: make([]int32, len(names)+1), refStart: make([]int32, len(names)+1)}
	for _, start := range [][]int32{si.defStart, si.refStart} {
		for i := 1; i < len(start); i++ {
			c := r.uvarint()
			if c > uint64(chunks) {
				r.fail()
				return nil
			}
			start[i] = start[i-1] + int32(c)
			if int(start[i]) > len(r.b) { // each entry takes a byte at least
				r.fail()
				return nil
			}
		}
	}
	si.defs = make([]int32, si.defStart[len(names)])
	si.refs = make([]int32, si.refStart[len(names)])
	for _, l := range []struct{ start, slab []int32 }{{si.defStart, si.defs}, {si.refStart, si.refs}} {
		for i := 1; i < len(l.start); i++ {
			prev := uint64(0)
			for k := l.start[i-1]; k < l.start[i]; k++ {
				prev += r.uvarint()
				if prev >= uint64(chunks) {
					r.fail()
					return nil
				}
				l.slab[k] = int32(prev)
			}
		}
	}
	if r.err != nil {
		return nil
	}
	return si
}
