package cachefile

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

type sample struct {
	Name string
	Nums []int32
}

// TestRoundTrip: what Write wrote Decode reads back; any flipped byte or
// a truncation is an error, never a wrong value.
func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.v1")
	b, err := Encode(sample{"a", []int32{1, 2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(path, b); err != nil {
		t.Fatal(err)
	}
	raw := Read(path)
	if raw == nil {
		t.Fatal("Read of the written file gave nothing")
	}
	if Read("") != nil || Read(filepath.Join(t.TempDir(), "none")) != nil {
		t.Error("Read of no path or a missing file is not nil")
	}
	var got sample
	if err := Decode(raw, &got); err != nil || got.Name != "a" || !slices.Equal(got.Nums, []int32{1, 2, 3}) {
		t.Fatalf("read back %+v, %v", got, err)
	}
	for i := range raw {
		bad := slices.Clone(raw)
		bad[i] ^= 0x10
		if err := Decode(bad, &sample{}); err == nil {
			t.Fatalf("a flipped byte at %d went unnoticed", i)
		}
	}
	if err := Decode(raw[:len(raw)-1], &sample{}); err == nil {
		t.Fatal("a truncated file went unnoticed")
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}
