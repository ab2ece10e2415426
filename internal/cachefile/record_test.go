package cachefile

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestRecords: records written are read back field by field; another
// magic, a flipped byte, a truncated file or a missing one reads as none;
// a field past the end sets Err and reads as zero.
func TestRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r")
	var body []byte
	body = AppendString(body, "a/b.go")
	body = binary.AppendVarint(body, -42)
	body = binary.AppendUvarint(body, 7)
	body = AppendString(body, "")
	if err := WriteRecords(path, "MAGIC1", body); err != nil {
		t.Fatal(err)
	}
	got := ReadRecords(path, "MAGIC1")
	if !slices.Equal(got, body) {
		t.Fatalf("read back %q, want %q", got, body)
	}
	r := Record{B: got}
	if s, v, u, e := r.String(), r.Varint(), r.Uvarint(), r.String(); s != "a/b.go" || v != -42 || u != 7 || e != "" || r.Err != nil || r.More() {
		t.Fatalf("fields %q %d %d %q, err %v, more %v", s, v, u, e, r.Err, r.More())
	}
	if r.Uvarint() != 0 || r.Err == nil {
		t.Error("a read past the end did not fail")
	}
	if ReadRecords(path, "MAGIC2") != nil || ReadRecords(filepath.Join(t.TempDir(), "none"), "MAGIC1") != nil {
		t.Error("another magic or a missing file read as records")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range raw {
		bad := slices.Clone(raw)
		bad[i] ^= 0x08
		if err := os.WriteFile(path, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		if ReadRecords(path, "MAGIC1") != nil {
			t.Fatalf("a flipped byte at %d went unnoticed", i)
		}
	}
	if err := os.WriteFile(path, raw[:len(raw)-1], 0o600); err != nil {
		t.Fatal(err)
	}
	if ReadRecords(path, "MAGIC1") != nil {
		t.Error("a truncated file went unnoticed")
	}
	// A length past the end is refused, not sliced.
	r = Record{B: binary.AppendUvarint(nil, 100)}
	if r.String() != "" || r.Err == nil {
		t.Error("a string longer than what is left was read")
	}
}
