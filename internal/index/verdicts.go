package index

import (
	"encoding/binary"
	"fmt"
	"maps"
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
//	magic "CTXLSSK1", then n × (path, reason, detail, varint size, varint
//	mtime in Unix ns), strings length-prefixed, then a CRC-32C of
//	everything before (cachefile.WriteRecords).
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
	body := cachefile.ReadRecords(filepath.Join(gen, verdictsName), verdictsMagic)
	if body == nil {
		return nil
	}
	r := cachefile.Record{B: body}
	v := verdicts{}
	for r.More() {
		p, reason, detail := r.String(), r.String(), r.String()
		size, mtime := r.Varint(), r.Varint()
		v[p] = verdict{reason, detail, size, mtime}
	}
	if r.Err != nil {
		return nil
	}
	return v
}

// writeVerdicts writes v as generation gen's verdicts file (atomically:
// a temporary file renamed).
func writeVerdicts(gen string, v verdicts) error {
	var b []byte
	for _, p := range slices.Sorted(maps.Keys(v)) {
		d := v[p]
		b = cachefile.AppendString(b, p)
		b = cachefile.AppendString(b, d.reason)
		b = cachefile.AppendString(b, d.detail)
		b = binary.AppendVarint(b, d.size)
		b = binary.AppendVarint(b, d.mtime)
	}
	if err := cachefile.WriteRecords(filepath.Join(gen, verdictsName), verdictsMagic, b); err != nil {
		return fmt.Errorf("keep the content verdicts: %w", err)
	}
	return nil
}
