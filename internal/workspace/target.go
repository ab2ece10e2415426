package workspace

import (
	"context"
	"slices"
	"strings"
)

// Target is what a request reads: a directory (its path), one repository
// of an index store (its name), or a union of several repositories read
// as one tree (UnionTarget). It is comparable: a face keys its state by
// it. How a union is spelled inside is this package's business.
type Target string

// unionMark starts a union's Target; its names follow, each after one.
const unionMark = "\x00"

// UnionTarget is the target of the repositories names read as one tree
// (sorted, each once); a single name is that repository's target.
func UnionTarget(names []string) Target {
	key := unionKey(names)
	if t := Target(key); len(t.Names()) > 1 {
		return t
	}
	return Target(key[len(unionMark):])
}

// unionKey is the key of a union of repositories in Repos.open (one of a
// single repository too, apart from the repository's own).
func unionKey(names []string) string {
	s := slices.Clone(names)
	slices.Sort(s)
	return unionMark + strings.Join(slices.Compact(s), unionMark)
}

// IsUnion reports whether t is a union of repositories.
func (t Target) IsUnion() bool { return strings.HasPrefix(string(t), unionMark) }

// Names are t's repositories (a union's, sorted), or t itself.
func (t Target) Names() []string {
	if names, ok := strings.CutPrefix(string(t), unionMark); ok {
		return strings.Split(names, unionMark)
	}
	return []string{string(t)}
}

// String is what a result says it read: a directory, a repository, or a
// union's repositories joined by " + ".
func (t Target) String() string { return strings.Join(t.Names(), " + ") }

// Open returns the root of a repository target or a union's (Root,
// Union). release is nil for a repository's root (Repos keeps it open),
// and the caller's to call once for a union's.
func (rs *Repos) Open(ctx context.Context, t Target) (root *Root, release func(), err error) {
	if t.IsUnion() {
		return rs.Union(ctx, t.Names())
	}
	return rs.Root(ctx, string(t))
}
