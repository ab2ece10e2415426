package semantic

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestCompose: a composed store searches each part's files with the
// part's own model and merges the hits by Search's total order; its
// identity is its parts' in their order; it is never synced or saved.
func TestCompose(t *testing.T) {
	ctx := context.Background()
	x, _ := indexFiles(t, topics())
	snap := snapshot(t, x)
	opts := testOptions()
	in := func(dirs ...string) func(string) bool {
		return func(p string) bool {
			return slices.ContainsFunc(dirs, func(d string) bool { return strings.HasPrefix(p, d+"/") })
		}
	}
	a, _, err := BuildOn(ctx, snap, opts, in("cache", "web"))
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := BuildOn(ctx, snap, opts, in("geo", "parse"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compose([]*Store{a, b})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"eviction under memory pressure", "latitude and distance", "routing of request headers and the syntax tree"} {
		vec, err := c.QueryVec(ctx, q)
		if err != nil || len(vec) != a.dim()+b.dim() {
			t.Fatalf("%q: a query vector of %d for %d+%d dimensions: %v", q, len(vec), a.dim(), b.dim(), err)
		}
		got := c.Search(snap, vec, 10, 0.1, nil)
		want := append(a.Search(snap, a.Query(q), 10, 0.1, nil), b.Search(snap, b.Query(q), 10, 0.1, nil)...)
		slices.SortStableFunc(want, func(x, y Hit) int {
			return byRank(cand{string(x.ID), 0, x.Score}, cand{string(y.ID), 0, y.Score})
		})
		want = want[:min(10, len(want))]
		if len(got) == 0 || !slices.Equal(got, want) {
			t.Errorf("%q: composed hits %v, want the parts' merged %v", q, got, want)
		}
	}
	if c.Files() != a.Files()+b.Files() || c.Files() != len(snap.Paths()) {
		t.Errorf("composed files %d, want %d", c.Files(), a.Files()+b.Files())
	}
	again, _ := Compose([]*Store{a, b})
	swapped, _ := Compose([]*Store{b, a})
	if c.ModelID() == "" || again.ModelID() != c.ModelID() || swapped.ModelID() == c.ModelID() {
		t.Errorf("identities: %q, again %q, swapped %q", c.ModelID(), again.ModelID(), swapped.ModelID())
	}
	if none, _ := Compose([]*Store{{model: (&Model{}).index()}}); none.ModelID() != "" {
		t.Errorf("a composition without vectors has the identity %q", none.ModelID())
	}
	if _, _, err := c.Sync(ctx, snap); err == nil {
		t.Error("a composed store synced")
	}
	if _, err := c.MarshalBinary(); err == nil {
		t.Error("a composed store encoded")
	}
}
