package workspace

import (
	"slices"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/index/chunk"
)

// IndexChunks reads a union's chunks from its repositories' own indexes
// (pgstore.Union.SetLocal): indexes gives each repository's index open
// here (nil, or no entry: none yet). A file is taken from the index's
// current snapshot when that snapshot holds the same content (its hash),
// with the token counts computed when it was indexed; else the union
// asks the store. A repository's index is what its checkout came with
// (the published image and the chunks of its generation, fetched in
// bulk): a union of repositories open here is built from them alone.
func IndexChunks(indexes map[string]func() *index.Index) LocalChunks {
	return func(repo, path, text string) ([]chunk.Chunk, func([]string) [][]int32, bool) {
		get := indexes[repo]
		if get == nil {
			return nil, nil, false
		}
		x := get()
		if x == nil {
			return nil, nil, false
		}
		snap, release := x.Snapshot()
		defer release()
		fi, ok := snap.Stat(path)
		if !ok || fi.Overlay || fi.Hash != text {
			return nil, nil, false
		}
		ics := snap.ChunksOf(path)
		chunks := make([]chunk.Chunk, len(ics))
		encs := snap.Encodings()
		toks := make([][]int32, len(encs))
		for j, e := range encs {
			toks[j] = make([]int32, len(ics))
			for i, c := range ics {
				n, ok := snap.TokenCount(c.ID, e)
				if !ok {
					toks[j] = nil
					break
				}
				toks[j][i] = int32(n)
			}
		}
		for i, c := range ics {
			chunks[i] = c.Chunk
		}
		counts := func(want []string) [][]int32 {
			out := make([][]int32, len(want))
			for i, w := range want {
				if k := slices.Index(encs, w); k >= 0 {
					out[i] = toks[k]
				}
			}
			return out
		}
		return chunks, counts, true
	}
}
