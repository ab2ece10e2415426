package tokens

import (
	"strings"
	"testing"
)

func TestRegistryCheckAndLazy(t *testing.T) {
	r := NewRegistry()
	if err := r.Check("cl100k_base"); err != nil {
		t.Fatal(err)
	}
	if err := r.Check("nope"); err == nil || !strings.Contains(err.Error(), "known: approx, cl100k_base") {
		t.Errorf("Check(nope) = %v", err)
	}
	if _, err := r.Lazy("nope"); err == nil {
		t.Error("Lazy(nope) did not fail")
	}
	if r.encodings["cl100k_base"].c != nil {
		t.Fatal("Check built the encoding")
	}
	lazy, err := r.Lazy("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	if r.encodings["cl100k_base"].c != nil {
		t.Error("Lazy built the encoding before its first Count")
	}
	eager, _ := r.Get("cl100k_base")
	for _, s := range []string{"", "hello world", "func main() {\n\tfmt.Println(\"héllo\")\n}\n"} {
		if lazy.Count(s) != eager.Count(s) {
			t.Errorf("%q: lazy %d, eager %d", s, lazy.Count(s), eager.Count(s))
		}
	}
	if lazy.Name() != "cl100k_base" {
		t.Errorf("Name = %q", lazy.Name())
	}
}
