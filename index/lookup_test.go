package index

import (
	"context"
	"slices"
	"testing"
)

// TestAtMost: DefsAtMost/RefsAtMost agree with Defs/Refs within the
// limit and refuse over it, counting files changed since the base tables.
func TestAtMost(t *testing.T) {
	x, _ := openFixture(t, testOptions(t))
	s, release := x.Snapshot()
	all := s.Defs("Clamp")
	if len(all) != 2 {
		t.Fatalf("Defs(Clamp) = %v", all)
	}
	if d, ok := s.DefsAtMost("Clamp", 2); !ok || !slices.Equal(d, all) {
		t.Errorf("DefsAtMost(Clamp, 2) = %v, %v", d, ok)
	}
	if d, ok := s.DefsAtMost("Clamp", 1); ok || d != nil {
		t.Errorf("DefsAtMost(Clamp, 1) = %v, %v; want nil, false", d, ok)
	}
	if r, ok := s.RefsAtMost("parseHTTPRequest", 1); !ok || len(r) != 1 {
		t.Errorf("RefsAtMost(parseHTTPRequest, 1) = %v, %v", r, ok)
	}
	release()
	if err := x.Update(context.Background(), "more/clamp.go", []byte("package more\n\nfunc Clamp(x int) int {\n\treturn x\n}\n")); err != nil {
		t.Fatal(err)
	}
	s, release = x.Snapshot()
	defer release()
	if d, ok := s.DefsAtMost("Clamp", 2); ok {
		t.Errorf("DefsAtMost(Clamp, 2) with a third definition in a new file = %v, true", d)
	}
	if d, ok := s.DefsAtMost("Clamp", 3); !ok || len(d) != 3 || !slices.Equal(d, s.Defs("Clamp")) {
		t.Errorf("DefsAtMost(Clamp, 3) = %v, %v", d, ok)
	}
}
