package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/index"
)

// unionTree is two repositories' files under their names, as a union's
// index sees them; the second's file f0.go says what change gives.
func unionTree(change string) map[string]string {
	files := map[string]string{}
	words := map[string][]string{"org/a": {"invoice", "ledger", "tax", "refund"}, "org/b": {"login", "session", "password", "token"}}
	for repo, ws := range words {
		for i := range 8 {
			var b strings.Builder
			fmt.Fprintf(&b, "package p\n\n")
			for j := range 3 {
				w1, w2 := ws[(i+j)%len(ws)], ws[(i+j+1)%len(ws)]
				fmt.Fprintf(&b, "// %s%d checks the %s and the %s.\nfunc %s%d(%s int) int { return %s }\n\n", w1, j, w1, w2, w1, i*10+j, w2, w2)
			}
			files[fmt.Sprintf("%s/f%d.go", repo, i)] = b.String()
		}
	}
	if change != "" {
		files["org/b/f0.go"] = change
	}
	return files
}

// A union's vectors are a function of its repositories' content: the
// same from parts computed anew, kept in memory or read from disk; a
// repository's new content changes its part alone, and the disk keeps
// only the parts of the content last asked for.
func TestUnionVectorsByContent(t *testing.T) {
	repos := []string{"org/a", "org/b"}
	snapOf := func(files map[string]string) *index.Snapshot {
		x, err := index.Open(ctx, tree(t, files), index.Options{InMemory: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { x.Close() })
		snap, release := x.Snapshot()
		t.Cleanup(release)
		return snap
	}
	snap := snapOf(unionTree(""))
	dir := filepath.Join(t.TempDir(), "vectors")
	fresh, err := UnionVectors(ctx, snap, repos, nil, "")
	if err != nil || fresh.ModelID() == "" {
		t.Fatalf("vectors %v, %v", fresh, err)
	}
	var parts VectorParts
	saved, err := UnionVectors(ctx, snap, repos, &parts, dir)
	if err != nil {
		t.Fatal(err)
	}
	read, err := UnionVectors(ctx, snap, repos, nil, dir) // from disk
	if err != nil {
		t.Fatal(err)
	}
	kept, err := UnionVectors(ctx, snap, repos, &parts, "") // from memory
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{saved.ModelID(), read.ModelID(), kept.ModelID()} {
		if s != fresh.ModelID() {
			t.Fatalf("identities differ: %s, %s, %s, %s", fresh.ModelID(), saved.ModelID(), read.ModelID(), kept.ModelID())
		}
	}
	q := "which session checks the password"
	if a, b := fresh.Search(snap, fresh.Query(q), 10, 0.1, nil), read.Search(snap, read.Query(q), 10, 0.1, nil); len(a) == 0 || !slices.Equal(a, b) {
		t.Fatalf("hits differ: %v, %v", a, b)
	}
	before, _ := os.ReadDir(dir)

	next := snapOf(unionTree("package p\n\n// login0 checks the token and the session of the invoice.\nfunc login9(token int) int { return token }\n"))
	moved, err := UnionVectors(ctx, next, repos, &parts, dir)
	if err != nil {
		t.Fatal(err)
	}
	if moved.ModelID() == fresh.ModelID() {
		t.Fatal("a repository's new content left the union's vectors as they were")
	}
	after, _ := os.ReadDir(dir)
	if len(before) != 2 || len(after) != 2 || before[0].Name() == after[0].Name() && before[1].Name() == after[1].Name() ||
		!slices.ContainsFunc(after, func(e os.DirEntry) bool { return e.Name() == before[0].Name() || e.Name() == before[1].Name() }) {
		t.Fatalf("the parts on disk: %v, then %v; want org/a's kept and org/b's replaced", names(before), names(after))
	}
}

func names(es []os.DirEntry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}
