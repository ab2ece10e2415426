package workspace

import (
	"slices"
	"testing"
)

// A Target is a directory, a repository or a union of repositories: a
// union's names are sorted and each once, a union of one repository is
// that repository, and what a result says it read joins a union's names.
func TestTarget(t *testing.T) {
	u := UnionTarget([]string{"b", "a", "b"})
	if !u.IsUnion() || !slices.Equal(u.Names(), []string{"a", "b"}) || u.String() != "a + b" {
		t.Errorf("union of b, a, b: union %v, names %q, %q", u.IsUnion(), u.Names(), u)
	}
	if u != UnionTarget([]string{"a", "b"}) {
		t.Error("the same repositories in another order are another target")
	}
	one := UnionTarget([]string{"a"})
	if one.IsUnion() || one != Target("a") || one.String() != "a" {
		t.Errorf("a union of one repository: %q (union %v)", one, one.IsUnion())
	}
	dir := Target("/src/app")
	if dir.IsUnion() || !slices.Equal(dir.Names(), []string{"/src/app"}) || dir.String() != "/src/app" {
		t.Errorf("a directory: names %q, %q", dir.Names(), dir)
	}
}
