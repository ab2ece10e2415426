package workspace

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
	"sync"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/semantic"
)

// UnionHistoryNote is what the answer of a request across repositories
// says of history: a union's repositories' histories are not merged, and
// the history channel is off for it.
const UnionHistoryNote = "history: a union of repositories reads no git history (the history channel is off; ask one repository for it)"

// UnionVectors returns the workspace embedder's vectors for snap, the
// index of a union of repositories (pgstore.Union: each repository's
// files under its name; repos sorted): each repository's files embedded by
// a model trained on that repository's files alone (semantic.BuildOn: a
// fixed seed, path order), composed in the repositories' order
// (semantic.Compose). They are a function of the repositories' content
// only, never of what a process saw before: every replica and the CLI
// compute the same vectors for the same generations, and a repository's
// new generation trains that repository's part again, not the others'.
// parts (nil: none) keeps the parts computed, by content, for the next
// call; dir ("": none) keeps them on disk, each in a file named by its
// content, for the next process (UnionVectorDir), the other files there
// removed.
func UnionVectors(ctx context.Context, snap *index.Snapshot, repos []string, parts *VectorParts, dir string) (*semantic.Store, error) {
	out := make([]*semantic.Store, len(repos))
	keep := map[string]bool{}
	for i, repo := range repos {
		key := partKey(snap, repo)
		file := key[:40] + partSuffix
		keep[file] = true
		build := func() (*semantic.Store, error) {
			if dir != "" {
				if b, err := os.ReadFile(filepath.Join(dir, file)); err == nil {
					if s, err := semantic.Unmarshal(b); err == nil {
						return s, nil
					}
				}
			}
			prefix := repo + "/"
			s, _, err := semantic.BuildOn(ctx, snap, semantic.DefaultOptions(), func(p string) bool { return strings.HasPrefix(p, prefix) })
			if err != nil {
				return nil, fmt.Errorf("the vectors of %s: %w", repo, err)
			}
			if dir != "" && ownVectorDir(dir) {
				_ = semantic.Save(filepath.Join(dir, file), s) // computed again next time
			}
			return s, nil
		}
		var err error
		if parts == nil {
			out[i], err = build()
		} else {
			out[i], err = parts.get(ctx, repo, key, build)
		}
		if err != nil {
			return nil, err
		}
	}
	if dir != "" {
		if ents, err := os.ReadDir(dir); err == nil {
			for _, e := range ents {
				if strings.HasSuffix(e.Name(), partSuffix) && !keep[e.Name()] && e.Type().IsRegular() {
					_ = os.Remove(filepath.Join(dir, e.Name()))
				}
			}
		}
	}
	return semantic.Compose(out)
}

// partSuffix ends the name of a union's part's vector file.
const partSuffix = ".v2"

// UnionVectorDir is where UnionVectors keeps the vectors of a union's
// repositories on disk: beside the union's tree and index, in its own
// directory (removed with the union's).
func UnionVectorDir(src StoreSource) string {
	root, _ := src.Dirs()
	return filepath.Join(filepath.Dir(root), "vectors")
}

// ownVectorDir makes dir (a directory, never a symbolic link) when it is
// missing and reports whether it is one.
func ownVectorDir(dir string) bool {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return false
	}
	fi, err := os.Lstat(dir)
	return err == nil && fi.IsDir()
}

// partKey names the content of repository repo in snap: its files' paths
// and content hashes.
func partKey(snap *index.Snapshot, repo string) string {
	paths, hashes := snap.Paths(), snap.Hashes()
	prefix := repo + "/"
	h := sha256.New()
	h.Write([]byte(repo + "\x00"))
	i, _ := slices.BinarySearch(paths, prefix)
	for ; i < len(paths) && strings.HasPrefix(paths[i], prefix); i++ {
		h.Write([]byte(paths[i] + "\x00" + hashes[i] + "\x00"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// VectorParts keeps the vectors of the repositories of unions
// (UnionVectors), one content of each repository, for the unions of a
// process: a union asked for again, or another union with the same
// repository, reuses its part; at most maxVectorParts repositories are
// kept, the least recently used dropped first.
type VectorParts struct {
	mu    sync.Mutex
	tick  uint64
	parts map[string]*vectorPart // by repository
}

// maxVectorParts bounds the repositories whose vectors VectorParts keeps:
// twice what one union reads.
const maxVectorParts = 64

type vectorPart struct {
	key   string
	used  uint64
	ready chan struct{}
	s     *semantic.Store
	err   error
}

// get returns repo's part for content key, building it once (build)
// however many ask at once; a failure is forgotten.
func (vp *VectorParts) get(ctx context.Context, repo, key string, build func() (*semantic.Store, error)) (*semantic.Store, error) {
	vp.mu.Lock()
	if vp.parts == nil {
		vp.parts = map[string]*vectorPart{}
	}
	vp.tick++
	e, ok := vp.parts[repo]
	if !ok || e.key != key {
		e = &vectorPart{key: key, used: vp.tick, ready: make(chan struct{})}
		vp.parts[repo] = e
		vp.evictLocked()
		ok = false
	}
	e.used = vp.tick
	vp.mu.Unlock()
	if !ok {
		e.s, e.err = build()
		if e.err != nil {
			vp.mu.Lock()
			if vp.parts[repo] == e {
				delete(vp.parts, repo)
			}
			vp.mu.Unlock()
		}
		close(e.ready)
	}
	select {
	case <-e.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return e.s, e.err
}

// evictLocked drops the least recently used parts past maxVectorParts.
func (vp *VectorParts) evictLocked() {
	for len(vp.parts) > maxVectorParts {
		oldest := ""
		for repo, e := range vp.parts {
			if oldest == "" || e.used < vp.parts[oldest].used {
				oldest = repo
			}
		}
		delete(vp.parts, oldest)
	}
}
