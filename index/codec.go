package index

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"time"
	"unsafe"

	"github.com/ctxls/ctxls/index/chunk"
)

// The tables file is a compact binary encoding of the file and chunk
// tables (the symbol maps are rebuilt on load):
//
//	magic "CTXLSTB1"
//	encodings: uvarint n, n × str
//	files: uvarint n, n × file
//	file: str path, varint size, varint mtime (Unix ns), str hash,
//	      str language, uvarint flags (1: overlay), uvarint chunks, chunks × chunk
//	chunk: str language, str kind, uvarint startByte endByte startLine endLine,
//	       str symbol, str qualifiedName, str signature, uvarint sigEndLine,
//	       str doc, uvarint docStartLine, uvarint d, uvarint r,
//	       d × str defines, r × str references, hashes,
//	       uvarint part, encodings × uvarint tokens,
//	       numSearchFields × uvarint field length
//	trailer: 8 bytes little-endian number of distinct strs, then the
//	         SHA-256 of everything before it
//
//	hashes: uvarint 0 + 16 bytes tracking hash + 16 bytes content hash
//	        (the chunk package's hex form, decoded), or uvarint 1 + str
//	        tracking hash + str content hash (any other form)
//
// str is interned: uvarint 0, uvarint len, bytes for a string's first
// occurrence, uvarint i+1 for a repeat of the i-th distinct string. On load
// every string is a substring of one copy of the file (no allocation per
// string), and every repeated identifier is one Go string.
const tablesMagic = "CTXLSTB3"

var errCorrupt = errors.New("tables file corrupt")

type tablesWriter struct {
	w    *bufio.Writer
	h    hash.Hash
	strs map[string]uint64
	buf  [binary.MaxVarintLen64]byte
	err  error
}

func (w *tablesWriter) bytes(b []byte) {
	if w.err == nil {
		_, w.err = w.w.Write(b)
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
	w.uvarint(uint64(len(s)))
	if w.err == nil {
		_, w.err = w.w.WriteString(s)
	}
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
func writeTables(path string, encodings, names []string, files []*fileRec) (err error) {
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
	h := sha256.New()
	w := &tablesWriter{w: bufio.NewWriterSize(io.MultiWriter(f, h), 1<<16), h: h, strs: make(map[string]uint64)}
	w.bytes([]byte(tablesMagic))
	w.strList(encodings)
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
				w.str(names[id])
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
	// The trailer: how many distinct strings there are, so that the
	// reader sizes its string table once.
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(w.strs)))
	w.bytes(n[:])
	if w.err == nil {
		w.err = w.w.Flush()
	}
	if w.err != nil {
		return fmt.Errorf("write tables: %w", w.err)
	}
	if _, err := f.Write(h.Sum(nil)); err != nil {
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
	// nt interns names; ids caches the name id of each string of strs
	// (-1: not interned yet). direct: nt was empty when reading began, so
	// each distinct string of the file takes the next id without a map
	// lookup (nt rebuilds its map when the writer next interns).
	nt     *nameTable
	ids    []int64
	direct bool
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
	s := r.strAfterTag()
	r.ids = append(r.ids, -1)
	return s
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

// name reads a string and returns its id in the name table.
func (r *tablesReader) name() uint32 {
	i := r.uvarint()
	if i == 0 {
		s := r.strAfterTag()
		id := r.intern(s)
		r.ids = append(r.ids, int64(id))
		return id
	}
	if i > uint64(len(r.strs)) {
		r.fail()
		return 0
	}
	if id := r.ids[i-1]; id >= 0 {
		return uint32(id)
	}
	id := r.intern(r.strs[i-1])
	r.ids[i-1] = int64(id)
	return id
}

// intern returns the name id of s, a string of strs met as a name for the
// first time.
func (r *tablesReader) intern(s string) uint32 {
	if !r.direct {
		return r.nt.intern(s)
	}
	id := uint32(len(r.nt.names))
	r.nt.names = append(r.nt.names, s)
	return id
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
func readTables(path string, nt *nameTable) (encodings []string, files map[string]*fileRec, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read tables: %w", err)
	}
	if len(data) < len(tablesMagic)+sha256.Size || !bytes.HasPrefix(data, []byte(tablesMagic)) {
		if len(data) >= len(tablesMagic) && bytes.HasPrefix(data, []byte(tablesMagic[:len(tablesMagic)-1])) {
			return nil, nil, fmt.Errorf("read tables %s: written in format %q, this ctxls reads %q: %w", path, data[:len(tablesMagic)], tablesMagic, errCorrupt)
		}
		return nil, nil, fmt.Errorf("read tables %s: %w", path, errCorrupt)
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return nil, nil, fmt.Errorf("read tables %s: checksum mismatch: %w", path, errCorrupt)
	}
	if len(body) < len(tablesMagic)+8 {
		return nil, nil, fmt.Errorf("read tables %s: %w", path, errCorrupt)
	}
	nstrs := binary.LittleEndian.Uint64(body[len(body)-8:])
	body = body[:len(body)-8]
	if nstrs > uint64(len(body)) {
		return nil, nil, fmt.Errorf("read tables %s: %w", path, errCorrupt)
	}
	r := &tablesReader{b: body[len(tablesMagic):], nt: nt, canon: make(map[string]string),
		strs: make([]string, 0, nstrs), ids: make([]int64, 0, nstrs)}
	// The strings read are substrings of all, which is data's bytes
	// without a copy: data is never written to after this point (it is
	// this function's own buffer), so the string is immutable as Go
	// requires, and it stays alive as long as any string read from it.
	r.all = unsafe.String(unsafe.SliceData(r.b), len(r.b))
	if len(nt.names) == 0 {
		r.direct = true
		nt.ids = nil
	}
	var slab []uint32
	encodings = r.strList()
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
					c.names[k] = r.name()
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
	if r.err != nil {
		return nil, nil, fmt.Errorf("read tables %s: %w", path, r.err)
	}
	return encodings, files, nil
}
