package retrieve

import (
	"cmp"
	"slices"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/index/chunk"
)

// OverviewOptions are the overview channel's knobs.
type OverviewOptions struct {
	// OverviewMaxFiles bounds the overview channel's work: it is skipped
	// on workspaces with more files.
	OverviewMaxFiles int
}

// overview ranks the definitions of source files by how many chunks refer
// to their name: the workspace's central code, for requests whose terms
// match little. Names defined in many places (String, New) count less.
// It is skipped on large workspaces (Options.OverviewMaxFiles). The
// ranking depends only on the snapshot: it is computed once per snapshot
// (Snapshot.Memo) and each request takes the best of it that its include
// and exclude globs allow.
func (r *run) overview() ([]index.ChunkID, error) {
	if len(r.snap.Paths()) > r.e.opts.OverviewMaxFiles {
		return nil, nil
	}
	all := r.snap.Memo(overviewKey{}, func() any { return overviewRanking(r.snap) }).([]overviewEntry)
	ids := make([]index.ChunkID, 0, 60)
	for _, x := range all {
		if len(ids) == 60 {
			break
		}
		if r.allowed(x.path) {
			ids = append(ids, x.id)
		}
	}
	return ids, nil
}

// overviewKey names the overview ranking among a snapshot's memos.
type overviewKey struct{}

// overviewEntry is one definition of the overview ranking.
type overviewEntry struct {
	id    index.ChunkID
	path  string
	line  int
	score float64
}

// overviewRanking is every named definition of the snapshot's source files
// (not tests, vendored or generated code, not prose), best first: score
// refs/defs of its name, ties by path and line.
func overviewRanking(snap *index.Snapshot) []overviewEntry {
	var all []overviewEntry
	// A name is scored once however many chunks it names (New, String).
	scores := map[string]float64{}
	score := func(name string) float64 {
		if v, ok := scores[name]; ok {
			return v
		}
		v := 0.0
		if refs := snap.NumRefs(name); refs > 0 {
			v = float64(refs) / float64(max(1, snap.NumDefs(name)))
		}
		scores[name] = v
		return v
	}
	for _, p := range snap.Paths() {
		if isSecondary(p) {
			continue
		}
		for _, c := range snap.ChunksOf(p) {
			if c.Symbol == "" || isProse(c.Chunk) || c.Kind == chunk.KindHeader || c.Kind == chunk.KindWindow {
				continue
			}
			if v := score(c.Symbol); v > 0 {
				all = append(all, overviewEntry{c.ID, p, c.StartLine, v})
			}
		}
	}
	slices.SortFunc(all, func(a, b overviewEntry) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.path, b.path), cmp.Compare(a.line, b.line))
	})
	return all
}
