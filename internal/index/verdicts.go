package index

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ctxls/ctxls/internal/cachefile"
	"github.com/ctxls/ctxls/internal/index/walk"
)

// The verdicts file of a generation keeps the files the walk left out for
// their content (binary, generated, a credential in their first bytes)
// with the size and modification time they had: a refresh that finds
// them unchanged skips them again without opening them, as it does not
// read the files it indexed. On Go's source tree four times over that is
// 6 000 files opened and read on every warm call. It is advisory: missing
// or damaged, the walk judges those files again, and it is rewritten
// whenever a listing's verdicts differ from it.
//
//	magic "CTXLSSK1", then n × (uvarint len, path, uvarint len, reason,
//	uvarint len, detail, varint size, varint mtime in Unix ns), then a
//	4-byte little-endian CRC-32C of everything before.
const (
	verdictsName  = "SKIPPED"
	verdictsMagic = "CTXLSSK1"
)

// verdict is a file left out for its content.
type verdict struct {
	reason, detail string
	size, mtime    int64
}

// verdicts are a generation's, by path; read-only once made.
type verdicts map[string]verdict

// verdictsOf keeps the content verdicts of a listing (ModTime set).
func verdictsOf(skipped []Skipped) verdicts {
	v := verdicts{}
	for _, s := range skipped {
		if !s.ModTime.IsZero() {
			v[s.Path] = verdict{s.Reason, s.Detail, s.Size, s.ModTime.UnixNano()}
		}
	}
	return v
}

// lookup implements walk.Options.SkippedBefore.
func (v verdicts) lookup(rel string, size int64, mtime time.Time) (walk.Reason, string, bool) {
	d, ok := v[rel]
	if !ok || d.size != size || d.mtime != mtime.UnixNano() || d.mtime == 0 {
		return "", "", false
	}
	return walk.Reason(d.reason), d.detail, true
}

func (v verdicts) equal(w verdicts) bool {
	if len(v) != len(w) {
		return false
	}
	for p, d := range v {
		if e, ok := w[p]; !ok || e != d {
			return false
		}
	}
	return true
}

// readVerdicts reads the verdicts file of generation gen; nil when there
// is none or it is damaged.
func readVerdicts(gen string) verdicts {
	b, err := os.ReadFile(filepath.Join(gen, verdictsName))
	if err != nil || len(b) < len(verdictsMagic)+4 || string(b[:len(verdictsMagic)]) != verdictsMagic {
		return nil
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil
	}
	r := body[len(verdictsMagic):]
	bad := false
	uv := func() uint64 {
		x, n := binary.Uvarint(r)
		if n <= 0 {
			bad = true
			return 0
		}
		r = r[n:]
		return x
	}
	sv := func() int64 {
		x, n := binary.Varint(r)
		if n <= 0 {
			bad = true
			return 0
		}
		r = r[n:]
		return x
	}
	str := func() string {
		n := uv()
		if bad || n > uint64(len(r)) {
			bad = true
			return ""
		}
		s := string(r[:n])
		r = r[n:]
		return s
	}
	v := verdicts{}
	for len(r) > 0 && !bad {
		p, reason, detail := str(), str(), str()
		size, mtime := sv(), sv()
		v[p] = verdict{reason, detail, size, mtime}
	}
	if bad {
		return nil
	}
	return v
}

// writeVerdicts writes v as generation gen's verdicts file (atomically:
// a temporary file renamed).
func writeVerdicts(gen string, v verdicts) error {
	paths := make([]string, 0, len(v))
	for p := range v {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	b := []byte(verdictsMagic)
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	for _, p := range paths {
		d := v[p]
		str(p)
		str(d.reason)
		str(d.detail)
		b = binary.AppendVarint(b, d.size)
		b = binary.AppendVarint(b, d.mtime)
	}
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
	if err := cachefile.Write(filepath.Join(gen, verdictsName), b); err != nil {
		return errors.Join(errors.New("keep the content verdicts"), err)
	}
	return nil
}
