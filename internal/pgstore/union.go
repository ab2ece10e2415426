package pgstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/index/chunk"
)

// Union is several repositories' checkouts seen as one tree, each
// repository's files under its name ("org/billing/invoice.go"), for a
// request across repositories: one index over all of them ranks their
// code together, under one budget. Like a Checkout it gives the index
// its lister, files and chunker, and follows new generations (Update).
type Union struct {
	Repos    []string // sorted
	Root     string   // the index's root: an empty directory
	IndexDir string
	parts    []*Checkout // in Repos's order
	seen     []int64     // the parts' generations the union last saw
	own      bool        // Close closes the parts
	local    LocalChunks // nil: every chunk is read from the store
	// downUntil (Unix ns) is when the union asks the store again after a
	// read it did not answer (unionDownWait).
	downUntil atomic.Int64
}

// LocalChunks gives the chunks of repository repo's file at path whose
// text has the content hash text (the manifest's), from an index of the
// repository open in this process, and their token counts in the
// encodings asked (nil for one it has not); ok is false when that index
// has not this content of the file.
type LocalChunks func(repo, path, text string) (chunks []chunk.Chunk, counts func(encodings []string) [][]int32, ok bool)

// SetLocal makes the union's index take its repositories' chunks from
// local first (their own indexes, open here), and from the store only the
// files local has not: a union is then built from what its repositories'
// checkouts hold, without a round trip to the store per file, and while
// the store is down. Call it before the union's index is opened.
func (u *Union) SetLocal(local LocalChunks) { u.local = local }

// Parts returns the union's checkouts, in Repos's order.
func (u *Union) Parts() []*Checkout { return slices.Clone(u.parts) }

// MaxUnionRepos is the most repositories one request reads together:
// the entries of its repos list, and the repositories they name ('*'
// expanded). A union is an index of its own over every file of its
// repositories, built when first asked for; the bound keeps one request
// from asking for the whole of a large store at once.
const MaxUnionRepos = 32

// ResolveRepos returns the repositories a request's repos list names,
// sorted and each once: the names given, and for AllRepos every one of
// readable() (asked only then: the repositories the caller may read). A
// list of more than MaxUnionRepos entries, or naming more than
// MaxUnionRepos repositories, is an error that names the maximum; so is
// an empty one. Whether the caller may read a name given is the
// caller's check.
func ResolveRepos(list []string, readable func() ([]string, error)) ([]string, error) {
	if len(list) > MaxUnionRepos {
		return nil, fmt.Errorf("at most %d repositories in one request (got a list of %d)", MaxUnionRepos, len(list))
	}
	names := slices.Clone(list)
	slices.Sort(names)
	names = slices.Compact(names)
	if i, all := slices.BinarySearch(names, AllRepos); all {
		names = slices.Delete(names, i, i+1)
		more, err := readable()
		if err != nil {
			return nil, err
		}
		names = append(names, more...)
		slices.Sort(names)
		names = slices.Compact(names)
		if len(names) > MaxUnionRepos {
			return nil, fmt.Errorf("at most %d repositories in one request ('*' names %d here: name the ones to read)", MaxUnionRepos, len(names))
		}
	}
	if len(names) == 0 {
		return nil, errors.New("no repository to read")
	}
	return names, nil
}

// CheckoutUnion checks out each of repos (at least two; allow as for
// Checkout) and returns their union, which owns the checkouts.
func (s *Store) CheckoutUnion(ctx context.Context, repos []string, parent string, allow func(repo string) bool) (*Union, error) {
	names := slices.Clone(repos)
	slices.Sort(names)
	names = slices.Compact(names)
	if len(names) < 2 {
		return nil, errors.New("a union needs two repositories or more")
	}
	var parts []*Checkout
	for _, r := range names {
		co, err := s.Checkout(ctx, r, parent, allow)
		if err != nil {
			for _, p := range parts {
				p.Close()
			}
			return nil, err
		}
		parts = append(parts, co)
	}
	u, err := NewUnion(parts, parent)
	if err != nil {
		for _, p := range parts {
			p.Close()
		}
		return nil, err
	}
	u.own = true
	return u, nil
}

// NewUnion returns the union of checkouts of two repositories or more
// of one store (which stay the caller's), its index kept under parent.
func NewUnion(parts []*Checkout, parent string) (*Union, error) {
	parts = slices.Clone(parts)
	slices.SortFunc(parts, func(a, b *Checkout) int { return strings.Compare(a.Repo, b.Repo) })
	if len(parts) < 2 {
		return nil, errors.New("a union needs two repositories or more")
	}
	if len(parts) > MaxUnionRepos {
		return nil, fmt.Errorf("a union reads at most %d repositories (got %d)", MaxUnionRepos, len(parts))
	}
	u := &Union{parts: parts}
	for i, co := range parts {
		if i > 0 && co.Repo == parts[i-1].Repo {
			return nil, fmt.Errorf("repository %s given twice", co.Repo)
		}
		// A repository's name must not be a directory of another's:
		// paths would be ambiguous.
		if i > 0 && strings.HasPrefix(co.Repo, parts[i-1].Repo+"/") {
			return nil, fmt.Errorf("repositories %s and %s cannot be read together (one's name is a directory of the other's)", parts[i-1].Repo, co.Repo)
		}
		u.Repos = append(u.Repos, co.Repo)
		u.seen = append(u.seen, co.Gen())
	}
	sum := sha256.Sum256([]byte(parts[0].store.id + "\x00union\x00" + strings.Join(u.Repos, "\x00")))
	dir := filepath.Join(parent, "u-"+hex.EncodeToString(sum[:16]))
	u.Root, u.IndexDir = filepath.Join(dir, "tree"), filepath.Join(dir, "index")
	// The union's directory is one ctxls deletes in (Discard): the rules
	// of an index directory, as for a checkout's; its tree is an empty
	// directory of its own, never a link.
	if err := index.PrepareOwnedDir(dir, earlierUnion); err != nil {
		return nil, fmt.Errorf("checkout %s: %w", strings.Join(u.Repos, ", "), err)
	}
	if err := ownDir(u.Root); err != nil {
		return nil, fmt.Errorf("checkout %s: %w", strings.Join(u.Repos, ", "), err)
	}
	return u, nil
}

// earlierUnion reports whether the entries of an untagged union directory
// are what earlier versions left there: its tree and its index.
func earlierUnion(ents []fs.DirEntry) bool {
	for _, e := range ents {
		name, t := e.Name(), e.Type()
		switch {
		case t.IsDir() && (name == "tree" || name == "index"):
		case t.IsRegular() && index.TagTempFile(name):
		default:
			return false
		}
	}
	return len(ents) > 0
}

// Close releases the checkouts the union owns.
func (u *Union) Close() error {
	if !u.own {
		return nil
	}
	var errs []error
	for _, co := range u.parts {
		errs = append(errs, co.Close())
	}
	return errors.Join(errs...)
}

// Discard removes the union's directory (its index and empty tree) once
// the union's index is closed: a union asked for again is built anew, and
// the unions a process ever read do not pile up on disk. A directory whose
// index another process holds open stays.
func (u *Union) Discard() error {
	release, ok, err := index.TryLock(u.IndexDir)
	if err != nil || !ok {
		return err
	}
	defer release()
	if err := os.RemoveAll(filepath.Dir(u.Root)); err != nil {
		return fmt.Errorf("remove the index of %s: %w", strings.Join(u.Repos, ", "), err)
	}
	return nil
}

// Update brings every repository to its current generation (a checkout
// another user updated already counts too); it returns the union's paths
// that changed, as far as this call saw them, and whether any repository
// moved since the union last looked.
func (u *Union) Update(ctx context.Context) ([]string, bool, error) {
	var all []string
	movedAny := false
	for i, co := range u.parts {
		changed, _, err := co.Update(ctx)
		if err != nil {
			return nil, false, err
		}
		for _, p := range changed {
			all = append(all, u.Repos[i]+"/"+p)
		}
		if g := co.Gen(); g != u.seen[i] {
			u.seen[i], movedAny = g, true
		}
	}
	return all, movedAny, nil
}

// part returns the checkout holding the union path p and p within it.
func (u *Union) part(p string) (*Checkout, string, bool) {
	for i, r := range u.Repos {
		if rest, ok := strings.CutPrefix(p, r+"/"); ok {
			return u.parts[i], rest, true
		}
	}
	return nil, "", false
}

// Lister lists every repository's files under its name.
func (u *Union) Lister() index.Lister { return unionLister{u} }

type unionLister struct{ u *Union }

func (l unionLister) List(ctx context.Context, root string) ([]index.Entry, []index.Skipped, error) {
	var out []index.Entry
	for i, co := range l.u.parts {
		es, _, err := co.Lister().List(ctx, root)
		if err != nil {
			return nil, nil, err
		}
		for _, e := range es {
			e.Path = l.u.Repos[i] + "/" + e.Path
			out = append(out, e)
		}
	}
	return out, nil, nil
}

// Files serves every repository's texts under its name.
func (u *Union) Files() index.FileSource { return unionFiles{u} }

type unionFiles struct{ u *Union }

func (f unionFiles) Stat(rel string) (int64, time.Time, error) {
	co, p, ok := f.u.part(rel)
	if !ok {
		return 0, time.Time{}, fmt.Errorf("%s: %w", rel, fs.ErrNotExist)
	}
	return co.Files().Stat(p)
}

func (f unionFiles) ReadFile(rel string) ([]byte, error) {
	co, p, ok := f.u.part(rel)
	if !ok {
		return nil, fmt.Errorf("%s: %w", rel, fs.ErrNotExist)
	}
	return co.Files().ReadFile(p)
}

// NewChunker returns chunkers that answer with each repository's stored
// chunks, their paths under its name.
func (u *Union) NewChunker() (index.Chunker, error) {
	uc := &unionChunker{u: u}
	for _, co := range u.parts {
		ch, _ := co.NewChunker()
		uc.parts = append(uc.parts, ch.(*storeChunker))
	}
	return uc, nil
}

type unionChunker struct {
	u     *Union
	parts []*storeChunker
	last  *storeChunker
	// lastLocal gives the counts of the chunks local gave last, for
	// lastPath.
	lastLocal func(encodings []string) [][]int32
	lastPath  string
}

func (uc *unionChunker) Close() {}

func (uc *unionChunker) Chunk(p string, src []byte) ([]chunk.Chunk, error) {
	uc.last, uc.lastLocal, uc.lastPath = nil, nil, ""
	for i, r := range uc.u.Repos {
		if rest, ok := strings.CutPrefix(p, r+"/"); ok {
			if uc.u.local != nil {
				sum := sha256.Sum256(src)
				if cs, counts, ok := uc.u.local(r, rest, hex.EncodeToString(sum[:])); ok {
					for j := range cs {
						cs[j].Path = p
					}
					uc.lastLocal, uc.lastPath = counts, p
					return cs, nil
				}
			}
			if time.Now().UnixNano() < uc.u.downUntil.Load() {
				return nil, fmt.Errorf("%s: %w: the index store did not answer a moment ago", p, index.ErrUnavailable)
			}
			cs, err := uc.parts[i].Chunk(rest, src)
			if errors.Is(err, index.ErrUnavailable) {
				uc.u.downUntil.Store(time.Now().Add(unionDownWait).UnixNano())
			}
			for j := range cs {
				cs[j].Path = p
			}
			uc.last = uc.parts[i]
			return cs, err
		}
	}
	return nil, fmt.Errorf("%s is in none of %s", p, strings.Join(uc.u.Repos, ", "))
}

func (uc *unionChunker) Counts(p string, encodings []string) [][]int32 {
	if uc.lastLocal != nil {
		if p != uc.lastPath {
			return nil
		}
		return uc.lastLocal(encodings)
	}
	if uc.last == nil {
		return nil
	}
	_, rest, ok := uc.u.part(p)
	if !ok {
		return nil
	}
	return uc.last.Counts(rest, encodings)
}

// Dirs returns the index's root and cache directory.
func (u *Union) Dirs() (root, indexDir string) { return u.Root, u.IndexDir }

// TakeImage returns nil: a union's index is built from its parts' chunks.
func (u *Union) TakeImage() map[string][]byte { return nil }

// InstallSides does nothing: a union has no side files (its vectors are
// computed over it, and it has no history of its own).
func (u *Union) InstallSides(string) error { return nil }

// unionDownWait is how long, after a read of a union's chunks that the
// store did not answer, the union's other files are left out at once
// (index.ErrUnavailable) without asking it again: the rest of the
// index's pass, rather than a try (and its timeout) per file. The next
// refresh after it asks again.
const unionDownWait = time.Second
