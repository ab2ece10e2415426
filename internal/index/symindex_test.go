package index

import (
	"fmt"
	"testing"
)

func TestNameIndex(t *testing.T) {
	x := newNameIndex([]string{"a", "b", "a", ""}, 0)
	for s, want := range map[string]int32{"a": 0, "b": 1, "": 3} {
		if id, ok := x.find(s); !ok || id != want {
			t.Errorf("find(%q) = %d, %v; want %d", s, id, ok, want)
		}
	}
	if _, ok := x.find("c"); ok {
		t.Error("found a name never added")
	}
	// Growing keeps every name findable at its position.
	for i := range 1000 {
		if id := x.add(fmt.Sprint("n", i)); id != int32(4+i) {
			t.Fatalf("add(n%d) = %d, want %d", i, id, 4+i)
		}
	}
	if id := x.add("n17"); id != 21 {
		t.Errorf("add of a present name = %d, want 21", id)
	}
	for i := range 1000 {
		if id, ok := x.find(fmt.Sprint("n", i)); !ok || id != int32(4+i) {
			t.Fatalf("after growing, find(n%d) = %d, %v", i, id, ok)
		}
	}
	if len(x.names) != 1004 || uint64(len(x.slots)) < 2*1004 {
		t.Errorf("%d names in %d slots", len(x.names), len(x.slots))
	}
}
