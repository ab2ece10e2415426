package cachefile

import (
	"encoding/binary"
	"errors"
	"hash/crc32"

	"github.com/ctxls/ctxls/internal/osfile"
)

// Records are the binary cache files whose content is a list of small
// records (the walk's content verdicts, the verified segments, the vector
// store's table of files): a magic string, the records as varints and
// length-prefixed strings (AppendString, Record), then a CRC-32C of all
// that precedes it. WriteRecords and ReadRecords frame and check them.

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// AppendString appends s, prefixed by its length, to b.
func AppendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// WriteRecords writes magic, body and their CRC-32C to path atomically
// (Write).
func WriteRecords(path, magic string, body []byte) error {
	b := make([]byte, 0, len(magic)+len(body)+4)
	b = append(append(b, magic...), body...)
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	return Write(path, b)
}

// ReadRecords returns the body of the records file at path, nil when there
// is none, it starts with another magic or it fails its checksum.
func ReadRecords(path, magic string) []byte {
	b, err := osfile.ReadFile(path)
	if err != nil || len(b) < len(magic)+4 || string(b[:len(magic)]) != magic {
		return nil
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil
	}
	return body[len(magic):]
}

// Record reads records' fields in order; the first field that cannot be
// read sets Err, and every read after it returns zero.
type Record struct {
	B   []byte
	Err error
}

var errBadRecord = errors.New("bad record")

// More reports whether bytes are left and nothing failed.
func (r *Record) More() bool { return r.Err == nil && len(r.B) > 0 }

// Uvarint reads an unsigned varint.
func (r *Record) Uvarint() uint64 { return readVarint(r, binary.Uvarint) }

// Varint reads a signed varint.
func (r *Record) Varint() int64 { return readVarint(r, binary.Varint) }

// readVarint reads one varint with decode (binary.Uvarint or Varint).
func readVarint[T uint64 | int64](r *Record, decode func([]byte) (T, int)) T {
	if r.Err != nil {
		return 0
	}
	v, n := decode(r.B)
	if n <= 0 {
		r.Err = errBadRecord
		return 0
	}
	r.B = r.B[n:]
	return v
}

// String reads a string written by AppendString.
func (r *Record) String() string {
	n := r.Uvarint()
	if r.Err != nil || n > uint64(len(r.B)) {
		r.Err = errBadRecord
		return ""
	}
	s := string(r.B[:n])
	r.B = r.B[n:]
	return s
}
