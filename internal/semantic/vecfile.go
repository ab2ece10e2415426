package semantic

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"slices"
	"unsafe"

	"github.com/ctxls/ctxls/internal/cachefile"
)

// The cache file (CacheFile) is laid out so that opening it decodes only
// what is small — the options, the vocabulary and the table of files —
// and leaves the vectors where they are: the chunks' int8 codes and
// float32 scales are read in place, from the file mapped in memory (or
// read whole where mapping is not available), and a store opened from it
// shares those bytes instead of copying them element by element. A warm
// one-shot run (the CLI) then costs a map and a checksum, not a decode of
// every vector.
//
//	[0, 8)    magic "ctxlsvec"
//	[8, 12)   format version, uint32 little-endian (fileVersion)
//	[12, 16)  CRC-32C (Castagnoli) of every byte from 32 on
//	[16, 24)  length of the header, uint64 little-endian
//	[24, 32)  number of vectors: the model's terms, then every file's chunks, uint64
//	[32, …)   header: gob of vecHeader, zero-padded to a multiple of 4
//	          scales: one float32 little-endian per vector
//	          codes: dim int8 per vector
//
// The checksum catches a damaged or truncated file, which is then
// recomputed, never trusted; the version changes whenever the layout or
// the meaning of the content does.
const (
	fileMagic    = "ctxlsvec"
	fileVersion  = 4
	preambleSize = 32
)

// vecHeader is the decoded part of the cache file.
type vecHeader struct {
	TrainedAt string
	// Endpoint names the service and model of an endpoint's store ("":
	// the workspace embedder's).
	Endpoint string
	Dim      int // the vectors' size
	Opts     Options
	// The model (the workspace embedder's): its vocabulary, sorted, and
	// idf weights; its term vectors are the first len(Terms) vectors.
	Terms   []string
	IDF     []float32
	Chunks  int
	BaseOOV float64
	// TrainedFiles is the number of files the model was trained on.
	TrainedFiles int
	// Files is the table of files, in path order (appendFileTable).
	Files []byte
}

// mapped is a cache file's bytes held in memory (cachefile.Map). Vectors
// read from it alias those bytes and keep a pointer to it, so that it
// stays until the last of them is gone.
type mapped = cachefile.Mapped

// littleEndian reports whether this machine stores a float32 as the file
// does, so that the scales can be read in place.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// encodeStore lays s out as a cache file.
func encodeStore(s *Store) ([]byte, error) {
	if s.parts != nil {
		return nil, errComposed
	}
	dim := s.dim()
	h := vecHeader{TrainedAt: s.trainedAt, Dim: dim, Opts: s.opts}
	nvec := 0
	if s.ep != nil {
		h.Endpoint = s.ep.id()
	} else {
		m := s.model
		h.Terms, h.IDF, h.Chunks, h.BaseOOV, h.TrainedFiles = m.Terms, m.IDF, m.Chunks, m.BaseOOV, m.Files
		nvec = len(m.Terms)
	}
	for _, f := range s.order {
		nvec += len(f.Scales)
	}
	h.Files = appendFileTable(nil, s.paths, s.order, s.ep != nil)
	b, err := startFile(fileMagic, &h, nvec, dim)
	if err != nil {
		return nil, err
	}
	if s.ep == nil {
		b = appendScales(b, s.model.Scales)
	}
	for _, f := range s.order {
		b = appendScales(b, f.Scales)
	}
	if s.ep == nil {
		b = appendCodes(b, s.model.Codes)
	}
	for _, f := range s.order {
		b = appendCodes(b, f.Vecs)
	}
	sealFile(b)
	return b, nil
}

// startFile begins a vector file (a cache file or a delta) of nvec
// vectors of dim bytes: the preamble (magic, version, the header's length
// and nvec; the checksum is sealFile's) and header, gob-encoded and
// padded to 4 bytes. The vectors' scales and codes are appended to it.
func startFile(magic string, header any, nvec, dim int) ([]byte, error) {
	var hb bytes.Buffer
	if err := gob.NewEncoder(&hb).Encode(header); err != nil {
		return nil, fmt.Errorf("encode vectors: %w", err)
	}
	for hb.Len()%4 != 0 {
		hb.WriteByte(0)
	}
	b := make([]byte, preambleSize, preambleSize+hb.Len()+nvec*(4+dim))
	copy(b, magic)
	binary.LittleEndian.PutUint32(b[8:], fileVersion)
	binary.LittleEndian.PutUint64(b[16:], uint64(hb.Len()))
	binary.LittleEndian.PutUint64(b[24:], uint64(nvec))
	return append(b, hb.Bytes()...), nil
}

// sealFile writes the checksum of everything after the preamble into it.
func sealFile(b []byte) {
	binary.LittleEndian.PutUint32(b[12:], crc32.Checksum(b[preambleSize:], castagnoli))
}

// readFile checks a vector file's preamble (magic, version, checksum,
// lengths), decodes its header into header and returns the bytes after
// it (the scales, then the codes) and the number of vectors. what names
// the file in errors ("vector cache"); notKind is the error for another
// magic.
func readFile(b []byte, magic, what, notKind string, header any) (rest []byte, nvec uint64, err error) {
	if len(b) < preambleSize || string(b[:8]) != magic {
		return nil, 0, errors.New(what + ": " + notKind)
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != fileVersion {
		return nil, 0, fmt.Errorf("%s: version %d, want %d", what, v, fileVersion)
	}
	if crc32.Checksum(b[preambleSize:], castagnoli) != binary.LittleEndian.Uint32(b[12:]) {
		return nil, 0, errors.New(what + ": checksum mismatch")
	}
	hlen, nvec := binary.LittleEndian.Uint64(b[16:]), binary.LittleEndian.Uint64(b[24:])
	size := uint64(len(b) - preambleSize)
	if hlen%4 != 0 || hlen > size || nvec > (size-hlen)/4 {
		return nil, 0, errors.New(what + ": truncated")
	}
	if err := gob.NewDecoder(bytes.NewReader(b[preambleSize : preambleSize+hlen])).Decode(header); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", what, err)
	}
	return b[preambleSize+hlen:], nvec, nil
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func appendScales(b []byte, sc []float32) []byte {
	for _, v := range sc {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

func appendCodes(b []byte, codes []int8) []byte {
	return append(b, codeBytes(codes)...)
}

// codeBytes is codes as bytes, in place.
func codeBytes(codes []int8) []byte {
	if len(codes) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&codes[0])), len(codes))
}

// appendFileTable encodes each file's path, content hash, number of
// chunks, term counts and whether it was embedded after training (and with
// hashes, its chunks' tracking hashes).
func appendFileTable(b []byte, paths []string, files []*fileVecs, hashes bool) []byte {
	for i, p := range paths {
		f := files[i]
		b = cachefile.AppendString(b, p)
		b = cachefile.AppendString(b, f.Hash)
		b = binary.AppendUvarint(b, uint64(len(f.Scales)))
		b = binary.AppendVarint(b, int64(f.Tokens))
		b = binary.AppendVarint(b, int64(f.OOV))
		fresh := uint64(0)
		if f.Fresh {
			fresh = 1
		}
		b = binary.AppendUvarint(b, fresh)
		if hashes {
			for _, h := range f.Hashes {
				b = cachefile.AppendString(b, h)
			}
		}
	}
	return b
}

// decodeStore opens the store of a cache file's bytes, held by src: the
// header is decoded, the vectors are read in place. Every length is
// checked against the file's.
func decodeStore(src *mapped) (*Store, error) {
	var h vecHeader
	scales, nvec, err := readFile(src.Data, fileMagic, "vector cache", "not a vector cache file", &h)
	if err != nil {
		return nil, err
	}
	if h.Dim < 0 || h.Dim > 1<<16 || len(h.IDF) != len(h.Terms) || (h.Endpoint != "" && (h.Dim < 1 || len(h.Terms) != 0)) {
		return nil, errors.New("vector cache: tables disagree")
	}
	dim := uint64(h.Dim)
	if uint64(len(scales)) != nvec*(4+dim) {
		return nil, errors.New("vector cache: truncated")
	}
	codes := scales[nvec*4:]
	scales = scales[:nvec*4]
	var next uint64 // the next vector
	take := func(n uint64) ([]int8, []float32, bool) {
		if n > nvec-next {
			return nil, nil, false
		}
		c, sc := viewCodes(codes[next*dim:(next+n)*dim]), viewScales(scales[next*4:(next+n)*4])
		next += n
		return c, sc, true
	}
	// A store read from its file is searched and compared in path order
	// (paths, order): it has no map by path (files), which only a store
	// being made fills.
	s := &Store{opts: h.Opts, trainedAt: h.TrainedAt}
	if h.Endpoint != "" {
		s.epDim, s.epID = h.Dim, h.Endpoint
	} else {
		m := &Model{Dim: h.Dim, Terms: h.Terms, IDF: h.IDF, Chunks: h.Chunks, BaseOOV: h.BaseOOV, Files: h.TrainedFiles, src: src}
		var ok bool
		if m.Codes, m.Scales, ok = take(uint64(len(h.Terms))); !ok {
			return nil, errors.New("vector cache: tables disagree")
		}
		s.model = m.index()
	}
	if s.paths, s.order, err = readFileTable(h.Files, h.Endpoint != "", src, take); err != nil {
		return nil, err
	}
	if next != nvec {
		return nil, errors.New("vector cache: tables disagree")
	}
	s.sums()
	if h.Endpoint == "" {
		s.base = &storeBase{sum: binary.LittleEndian.Uint32(src.Data[12:]), src: src, paths: s.paths}
	}
	return s, nil
}

// readFileTable decodes a file table (appendFileTable; with hashes, an
// endpoint store's): the paths, which must be strictly sorted, and their
// vectors, taken in order (take) from the file src holds.
func readFileTable(table []byte, hashes bool, src *mapped, take func(n uint64) ([]int8, []float32, bool)) ([]string, []*fileVecs, error) {
	var paths []string
	var order []*fileVecs
	t := cachefile.Record{B: table}
	for t.More() {
		p, hash, n := t.String(), t.String(), t.Uvarint()
		f := &fileVecs{Hash: hash, Tokens: int32(t.Varint()), OOV: int32(t.Varint()), src: src}
		f.Fresh = t.Uvarint() == 1
		if hashes {
			f.Hashes = make([]string, 0, min(n, 1<<16))
			for range n {
				if f.Hashes = append(f.Hashes, t.String()); t.Err != nil {
					break
				}
			}
		}
		var ok bool
		if f.Vecs, f.Scales, ok = take(n); !ok || t.Err != nil {
			return nil, nil, fmt.Errorf("vector cache: %s: bad vectors", p)
		}
		if len(paths) > 0 && p <= paths[len(paths)-1] {
			return nil, nil, errors.New("vector cache: files out of order")
		}
		paths = append(paths, p)
		order = append(order, f)
	}
	if t.Err != nil {
		return nil, nil, errors.New("vector cache: tables disagree")
	}
	return paths, order, nil
}

// sums sets the store's term counts from its files'.
func (s *Store) sums() {
	s.tokens, s.oov = 0, 0
	for _, f := range s.order {
		s.tokens += int64(f.Tokens)
		s.oov += int64(f.OOV)
	}
}

// viewCodes is b as int8 codes, in place.
func viewCodes(b []byte) []int8 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*int8)(unsafe.Pointer(&b[0])), len(b))
}

// viewScales is b as little-endian float32 scales: in place where the
// machine is little-endian (b is 4-byte aligned: the file is mapped or
// read at an aligned address and the scales start at a multiple of 4),
// decoded otherwise.
func viewScales(b []byte) []float32 {
	if len(b) == 0 {
		return nil
	}
	if littleEndian && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
	}
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// The delta file (DeltaFile beside the cache file) holds what a store
// changed since the cache file was written whole, when its model is that
// file's: the vectors of the files it embedded since (new or changed) and
// the paths it dropped. A store read back is the cache file's with the
// delta over it — the same paths, vectors and counts as the store that
// wrote them — so that a few changed files cost a file of their own
// vectors, not the whole store written again (tens of MB on a large tree).
// A delta of another cache file (its checksum, Base, differs), of another
// version or damaged is not applied: the store is then the cache file's
// alone, and the files it lacks are embedded again (the same vectors:
// they are a function of the content and the model).
//
//	[0, 8)    magic "ctxlsvdt"
//	[8, 12)   format version, uint32 little-endian (fileVersion)
//	[12, 16)  CRC-32C (Castagnoli) of every byte from 32 on
//	[16, 24)  length of the header, uint64 little-endian
//	[24, 32)  number of vectors: every file's chunks, uint64
//	[32, …)   header: gob of vecDelta, zero-padded to a multiple of 4
//	          scales: one float32 little-endian per vector
//	          codes: dim int8 per vector
const deltaMagic = "ctxlsvdt"

// vecDelta is the decoded part of a delta file.
type vecDelta struct {
	Base    uint32 // the checksum of the cache file it goes over
	Dim     int
	Removed []string // sorted
	Files   []byte   // the table of files, in path order (appendFileTable)
}

// storeBase is the cache file a store read from it goes back to: the
// file a delta is written over (saveStore).
type storeBase struct {
	sum   uint32   // its checksum
	src   *mapped  // its bytes: a file whose vectors are read from them is as the file has it
	paths []string // its files, sorted
}

// encodeDelta lays out the delta of s over its base: the files whose
// vectors are not the base file's, and the base's paths s no longer has.
// ok is false when s has no base to write a delta over (another model, an
// endpoint's store, or none read).
func encodeDelta(s *Store) (b []byte, nvec int, ok bool, err error) {
	base := s.base
	if base == nil || s.ep != nil || s.model == nil || s.model.src != base.src {
		return nil, 0, false, nil
	}
	h := vecDelta{Base: base.sum, Dim: s.model.Dim}
	var paths []string
	var files []*fileVecs
	for i, f := range s.order {
		if f.src != base.src {
			paths = append(paths, s.paths[i])
			files = append(files, f)
			nvec += len(f.Scales)
		}
	}
	j := 0
	for _, p := range base.paths {
		for j < len(s.paths) && s.paths[j] < p {
			j++
		}
		if j == len(s.paths) || s.paths[j] != p {
			h.Removed = append(h.Removed, p)
		}
	}
	h.Files = appendFileTable(nil, paths, files, false)
	b, err = startFile(deltaMagic, &h, nvec, s.model.Dim)
	if err != nil {
		return nil, 0, false, err
	}
	for _, f := range files {
		b = appendScales(b, f.Scales)
	}
	for _, f := range files {
		b = appendCodes(b, f.Vecs)
	}
	sealFile(b)
	return b, nvec, true, nil
}

// applyDelta returns s (read from its cache file) with the delta file's
// bytes, held by src, over it: a new store sharing s's vectors, or an
// error when the delta is not s's or damaged (s is left as it was).
func applyDelta(s *Store, src *mapped) (*Store, error) {
	if s.base == nil || s.model == nil {
		return nil, errors.New("vector delta: no cache file to go over")
	}
	var h vecDelta
	scales, nvec, err := readFile(src.Data, deltaMagic, "vector delta", "not a delta file", &h)
	if err != nil {
		return nil, err
	}
	if h.Base != s.base.sum {
		return nil, errors.New("vector delta: of another cache file")
	}
	if h.Dim != s.model.Dim || !slices.IsSorted(h.Removed) {
		return nil, errors.New("vector delta: tables disagree")
	}
	dim := uint64(h.Dim)
	if uint64(len(scales)) != nvec*(4+dim) {
		return nil, errors.New("vector delta: truncated")
	}
	codes := scales[nvec*4:]
	scales = scales[:nvec*4]
	var next uint64
	take := func(n uint64) ([]int8, []float32, bool) {
		if n > nvec-next {
			return nil, nil, false
		}
		c, sc := viewCodes(codes[next*dim:(next+n)*dim]), viewScales(scales[next*4:(next+n)*4])
		next += n
		return c, sc, true
	}
	paths, files, err := readFileTable(h.Files, false, src, take)
	if err != nil {
		return nil, err
	}
	if next != nvec {
		return nil, errors.New("vector delta: tables disagree")
	}
	// Merge the three sorted lists: s's files, minus the removed, with
	// the delta's replacing or adding theirs.
	n := &Store{opts: s.opts, model: s.model, trainedAt: s.trainedAt, base: s.base}
	n.paths = make([]string, 0, len(s.paths)+len(paths))
	n.order = make([]*fileVecs, 0, len(s.paths)+len(paths))
	i, r := 0, 0
	for k, p := range s.paths {
		for i < len(paths) && paths[i] < p {
			n.paths, n.order = append(n.paths, paths[i]), append(n.order, files[i])
			i++
		}
		for r < len(h.Removed) && h.Removed[r] < p {
			r++
		}
		switch {
		case i < len(paths) && paths[i] == p:
			n.paths, n.order = append(n.paths, p), append(n.order, files[i])
			i++
		case r < len(h.Removed) && h.Removed[r] == p:
		default:
			n.paths, n.order = append(n.paths, p), append(n.order, s.order[k])
		}
	}
	n.paths, n.order = append(n.paths, paths[i:]...), append(n.order, files[i:]...)
	n.sums()
	return n, nil
}
