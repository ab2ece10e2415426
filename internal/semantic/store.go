package semantic

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/ctxls/ctxls/internal/index"
)

// Store is a model and the vectors of a workspace's chunks, file by file.
// It is immutable: Sync returns a new one. Any number of goroutines may
// search one store at once.
type Store struct {
	opts  Options
	model *Model
	files map[string]*fileVecs
	paths []string    // sorted keys of files
	order []*fileVecs // files' values in paths' order (Search)
	// tokens and oov sum the files' term occurrences and those the model
	// does not know.
	tokens, oov int64
	// trainedAt is the state root of the snapshot the model was trained
	// on.
	trainedAt string
	// ep is the embeddings service of a store made by BuildEndpoint
	// (model is nil then); epDim its vectors' size.
	ep    *Endpoint
	epDim int
	epID  string // a cached store's Endpoint.id, until LoadEndpoint sets ep
	// base is the cache file the store (or the store it was synced from,
	// with the same model) was read from: a save writes a delta over it
	// (nil: none).
	base *storeBase
	// parts are the stores a composed store searches (Compose), each
	// with its own model; model and ep are nil then.
	parts []*Store
	// partsID is a composed store's ModelID.
	partsID string
}

// dim is the size of the store's vectors (0: none).
func (s *Store) dim() int {
	if s.parts != nil {
		n := 0
		for _, p := range s.parts {
			n += p.dim()
		}
		return n
	}
	if s.ep != nil {
		return s.epDim
	}
	return s.model.Dim
}

// fileVecs are the vectors of one file's chunks, for one content hash.
type fileVecs struct {
	Hash   string
	Vecs   []int8    // chunk i at [i·Dim, (i+1)·Dim)
	Scales []float32 // per chunk; 0: no vector (no known term)
	Tokens int32
	OOV    int32
	// Fresh: embedded after the model was trained (a file written or
	// changed since), not part of its training (Store.FileDrift).
	Fresh bool
	// Hashes are the chunks' tracking hashes (a store of an endpoint:
	// a text's vector is asked for once).
	Hashes []string
	// src holds the cache file Vecs and Scales are read from in place
	// (nil: computed here).
	src *mapped
}

// file returns the vectors of the file at p (nil: none), by a binary
// search of paths.
func (s *Store) file(p string) *fileVecs {
	if i, ok := slices.BinarySearch(s.paths, p); ok {
		return s.order[i]
	}
	return nil
}

// TrainedAt is the state root (index.Snapshot.StateRoot) of the snapshot
// the store's model was trained on.
func (s *Store) TrainedAt() string { return s.trainedAt }

// Files returns the number of files with vectors.
func (s *Store) Files() int {
	if s.parts != nil {
		n := 0
		for _, p := range s.parts {
			n += p.Files()
		}
		return n
	}
	return len(s.paths)
}

// ModelID is the identity of the store's model (Model.ID; "" for a model
// without vectors or a store of an embeddings service): what the answers
// of the semantic channel depend on besides the indexed content.
func (s *Store) ModelID() string {
	if s.parts != nil {
		return s.partsID
	}
	if s.model == nil {
		return ""
	}
	return s.model.ID
}

// FileDrift is the share of files that are not as the model was trained
// on them: 1 − (files still holding their training vectors) / (the larger
// of the files at training and the files now). A changed or removed file
// counts once, a new one once.
func (s *Store) FileDrift() float64 {
	if s.model == nil {
		return 0
	}
	kept := 0
	for _, f := range s.order {
		if !f.Fresh {
			kept++
		}
	}
	n := max(s.model.Files, len(s.paths))
	if n == 0 {
		return 0
	}
	return 1 - float64(kept)/float64(n)
}

// Drift is how much the share of term occurrences the model does not know
// has grown since training.
func (s *Store) Drift() float64 {
	if s.tokens == 0 || s.model == nil {
		return 0
	}
	return float64(s.oov)/float64(s.tokens) - s.model.BaseOOV
}

// String describes the store for --explain and logs.
func (s *Store) String() string {
	if s.parts != nil {
		return s.composedString()
	}
	if s.ep != nil {
		return fmt.Sprintf("%d files, %s at %s, %d dimensions", len(s.paths), s.ep.Model, s.ep.url(), s.epDim)
	}
	return fmt.Sprintf("%d files, %d terms × %d dimensions, model %s, drift %+.3f in terms, %.3f in files", len(s.paths), len(s.model.Terms), s.model.Dim, s.model.ID, s.Drift(), s.FileDrift())
}

// SyncStats say what Build or Sync did.
type SyncStats struct {
	Trained  bool // a model was trained
	Embedded int  // files embedded
	Removed  int  // files dropped
	Skipped  int  // files that could not be read (changed on disk)
	// Drift and FileDrift are, for a Sync that embedded or dropped files
	// with the store's model, the drift then (Store.Drift,
	// Store.FileDrift): what decided whether to train again.
	Drift, FileDrift float64
}

// Build trains a model on every chunk of snap and embeds them all.
func Build(ctx context.Context, snap *index.Snapshot, opts Options) (*Store, SyncStats, error) {
	return BuildOn(ctx, snap, opts, nil)
}

// BuildOn is Build on the files of snap that keep accepts (nil: all):
// Sync then embeds the others with the same model, as if it had been
// trained on an older state of the workspace (the eval's experiment on
// vocabulary drift, docs/quality.md).
func BuildOn(ctx context.Context, snap *index.Snapshot, opts Options, keep func(path string) bool) (*Store, SyncStats, error) {
	paths := snap.Paths()
	if keep != nil {
		paths = slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return !keep(p) })
	}
	fb, err := bagFiles(ctx, snap, paths)
	if err != nil {
		return nil, SyncStats{}, err
	}
	m, err := train(fb, opts)
	if errors.Is(err, errTooSmall) {
		m, err = (&Model{}).index(), nil // no vectors until there is more to learn from
	}
	if err != nil {
		return nil, SyncStats{}, err
	}
	for _, f := range fb {
		if f != nil {
			m.Files++
		}
	}
	s := &Store{opts: opts, model: m, trainedAt: snap.StateRoot()}
	if keep != nil {
		s.trainedAt = "" // not snap's state
	}
	st := SyncStats{Trained: true}
	s.fill(paths, make([]*fileVecs, len(paths)), s.embedAll(fb), false, &st)
	return s, st, nil
}

// Sync brings s to snap: files whose content changed are embedded again
// with s's model, removed ones dropped; when the vocabulary has drifted
// past Options.RetrainDrift, or the files past Options.RetrainFiles, the
// model is trained again (Build). s == nil builds. It returns s itself
// when nothing changed.
func (s *Store) Sync(ctx context.Context, snap *index.Snapshot) (*Store, SyncStats, error) {
	if s.parts != nil {
		return nil, SyncStats{}, errComposed
	}
	if s.ep != nil {
		return syncEndpoint(ctx, snap, s.ep, s)
	}
	changed, same, removed := s.compare(snap)
	if len(changed) == 0 && removed == 0 {
		return s, SyncStats{}, nil
	}
	if s.model.Dim == 0 {
		return Build(ctx, snap, s.opts) // there was nothing to learn from
	}
	fb, err := bagFiles(ctx, snap, changed)
	if err != nil {
		return nil, SyncStats{}, err
	}
	n := &Store{opts: s.opts, model: s.model, trainedAt: s.trainedAt, base: s.base}
	st := SyncStats{Removed: removed}
	n.fill(snap.Paths(), same, n.embedAll(fb), true, &st)
	st.Drift, st.FileDrift = n.Drift(), n.FileDrift()
	if st.Drift > s.opts.RetrainDrift || st.FileDrift > s.opts.RetrainFiles {
		b, bst, err := Build(ctx, snap, s.opts)
		bst.Drift, bst.FileDrift = st.Drift, st.FileDrift
		return b, bst, err
	}
	return n, st, nil
}

// compare lists the files of snap whose vectors s lacks or has for other
// content (changed, in path order), the vectors s has for snap's content
// (same: for each of snap's paths, in order, the vectors shared, nil for
// the changed ones), and how many of s's files snap no longer has. A nil
// s has nothing. Both sides are sorted by path: one pass pairs them,
// without a lookup per file.
func (s *Store) compare(snap *index.Snapshot) (changed []string, same []*fileVecs, removed int) {
	paths, hashes := snap.Paths(), snap.Hashes()
	var mine []string
	var vecs []*fileVecs
	if s != nil {
		mine, vecs = s.paths, s.order
	}
	same = make([]*fileVecs, len(paths))
	j := 0
	for i, p := range paths {
		for j < len(mine) && mine[j] < p {
			removed++
			j++
		}
		if j < len(mine) && mine[j] == p {
			if vecs[j].Hash == hashes[i] {
				same[i] = vecs[j]
			} else {
				changed = append(changed, p)
			}
			j++
			continue
		}
		changed = append(changed, p)
	}
	removed += len(mine) - j
	return changed, same, removed
}

// embedAll embeds the bagged files (nil entries: unreadable, nil
// vectors).
func (s *Store) embedAll(fb []*fileBags) []*fileVecs {
	out := make([]*fileVecs, len(fb))
	tables := map[*dict][]int32{}
	for _, f := range fb {
		if f != nil && tables[f.dict] == nil {
			tables[f.dict] = f.dict.modelIDs(s.model)
		}
	}
	parallel(len(fb), func(lo, hi int) {
		buf := make([]float32, s.model.Dim)
		var es []entry
		for i := lo; i < hi; i++ {
			if fb[i] != nil {
				out[i], es = s.model.embedFile(fb[i], tables[fb[i].dict], buf, es)
			}
		}
	})
	return out
}

// fill sets the store's files to paths (sorted), each with its vectors:
// same[i] when set, else the next of embedded (in order; nil: the file
// could not be read, and is left out). fresh marks the embedded ones as
// embedded after training.
func (s *Store) fill(paths []string, same, embedded []*fileVecs, fresh bool, st *SyncStats) {
	s.paths = make([]string, 0, len(paths))
	s.order = make([]*fileVecs, 0, len(paths))
	k := 0
	for i, p := range paths {
		f := same[i]
		if f == nil {
			f = embedded[k]
			k++
			if f == nil {
				st.Skipped++
				continue
			}
			f.Fresh = fresh
			st.Embedded++
		}
		s.paths = append(s.paths, p)
		s.order = append(s.order, f)
	}
	s.sums()
}

// finish sorts the paths and sums the counts.
func (s *Store) finish() {
	s.paths = make([]string, 0, len(s.files))
	s.tokens, s.oov = 0, 0
	for p, f := range s.files {
		s.paths = append(s.paths, p)
		s.tokens += int64(f.Tokens)
		s.oov += int64(f.OOV)
	}
	slices.Sort(s.paths)
	s.order = make([]*fileVecs, len(s.paths))
	for i, p := range s.paths {
		s.order[i] = s.files[p]
	}
}

// embedFile embeds one file's chunks.
// table is the file's dict's modelIDs; es is scratch space, returned for
// reuse.
func (m *Model) embedFile(f *fileBags, table []int32, buf []float32, es []entry) (*fileVecs, []entry) {
	v := &fileVecs{Hash: f.hash, Vecs: make([]int8, f.len()*m.Dim), Scales: make([]float32, f.len())}
	for i := range f.len() {
		b := f.bag(i)
		var known int32
		es, known = b.entries(table, es)
		v.Tokens += b.total
		v.OOV += b.total - known
		if vec := m.embed(es, buf); vec != nil {
			v.Scales[i] = quantize(vec, v.Vecs[i*m.Dim:(i+1)*m.Dim])
		}
	}
	return v, es
}

// bagFiles reads and bags the given files of snap, in parallel; a file
// that cannot be read (changed on disk since it was indexed) gets nil.
func bagFiles(ctx context.Context, snap *index.Snapshot, paths []string) ([]*fileBags, error) {
	out := make([]*fileBags, len(paths))
	var mu sync.Mutex
	var firstErr error
	parallel(len(paths), func(lo, hi int) {
		g := newBagger()
		for i := lo; i < hi; i++ {
			if i%64 == 0 && ctx.Err() != nil {
				mu.Lock()
				firstErr = cmp.Or(firstErr, ctx.Err())
				mu.Unlock()
				return
			}
			out[i] = bagFile(snap, paths[i], g)
		}
		g.d.release() // the terms' lookup is for bagging only: its memory goes now
	})
	if firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

// bagFile reads and bags one file with g; nil when it cannot be read.
func bagFile(snap *index.Snapshot, path string, g *bagger) *fileBags {
	f, err := snap.FileOnce(path)
	if err != nil {
		return nil
	}
	chunks := snap.ChunksOf(path)
	fb := &fileBags{hash: f.Hash, dict: g.d, ends: make([]int32, 0, len(chunks)), totals: make([]int32, 0, len(chunks))}
	g.ids, g.counts = g.ids[:0], g.counts[:0]
	fb.ids, fb.counts = g.ids, g.counts // the bagger's scratch, copied to size below
	for _, c := range chunks {
		g.add(c.Path)
		g.add(c.Doc)
		if c.StartByte >= 0 && c.EndByte <= len(f.Text) && c.StartByte <= c.EndByte {
			g.add(f.Text[c.StartByte:c.EndByte])
		}
		g.take(fb)
	}
	g.ids, g.counts = fb.ids, fb.counts
	fb.ids, fb.counts = slices.Clone(fb.ids), slices.Clone(fb.counts)
	return fb
}

// Query returns the vector of a query (nil when it has no known term, or
// the service failed): QueryVec without a deadline.
func (s *Store) Query(text string) []float32 {
	v, _ := s.QueryVec(context.Background(), text)
	return v
}

// QueryVec returns the vector of a query for a request: the workspace
// embedder's is the sum of its distinct known terms' vectors, each
// weighted by idf (nil when it has none); an endpoint's store asks the
// service (under ctx), and a failure is told once to the endpoint's Warnf
// and returned.
func (s *Store) QueryVec(ctx context.Context, text string) ([]float32, error) {
	if s.parts != nil {
		return s.queryParts(ctx, text)
	}
	if s.ep == nil {
		return s.model.embed(queryEntries(s.model, text), make([]float32, s.model.Dim)), nil
	}
	vecs, err := s.ep.embed(ctx, []string{text})
	if err != nil {
		if ctx.Err() == nil {
			s.ep.warn(err)
		}
		return nil, err
	}
	s.ep.ok()
	v := vecs[0]
	if len(v) != s.epDim || !normalize(v) {
		return nil, fmt.Errorf("a query vector of %d dimensions for a store of %d", len(v), s.epDim)
	}
	return v, nil
}

// Hit is a chunk found by Search.
type Hit struct {
	ID    index.ChunkID
	Score float32 // cosine similarity, about [-1, 1]
}

// Search returns the k chunks of snap most similar to vec with a score of
// at least floor, best first (ties: path, then chunk order). Only files
// whose vectors were computed for snap's content of them are searched,
// and only paths allow accepts (nil: all). The files are split among the
// CPUs, each keeping its own best k; the merge sorts by the same total
// order, so the answer does not depend on the split.
func (s *Store) Search(snap *index.Snapshot, vec []float32, k int, floor float32, allow func(path string) bool) []Hit {
	all := s.search(snap, vec, k, floor, allow)
	hits := make([]Hit, len(all))
	for i, c := range all {
		hits[i] = Hit{index.ChunkIDOf(c.path, c.ord), c.score}
	}
	return hits
}

// search is Search's candidates, best first.
func (s *Store) search(snap *index.Snapshot, vec []float32, k int, floor float32, allow func(path string) bool) []cand {
	dim := s.dim()
	if vec == nil || k <= 0 || dim == 0 || len(vec) != dim {
		return nil
	}
	if s.parts != nil {
		return s.searchParts(snap, vec, k, floor, allow)
	}
	q := make([]int8, dim)
	qs := quantize(vec, q)
	q16 := widen(q)
	var mu sync.Mutex
	var all []cand
	paths, hashes := snap.Paths(), snap.Hashes()
	parallel(len(s.paths), func(lo, hi int) {
		if lo >= hi {
			return
		}
		top := topK{k: k}
		var d []int32
		// s.paths and snap's are both sorted: one pass pairs them.
		at, _ := slices.BinarySearch(paths, s.paths[lo])
		for j, p := range s.paths[lo:hi] {
			f := s.order[lo+j]
			for at < len(paths) && paths[at] < p {
				at++
			}
			if at == len(paths) || paths[at] != p || hashes[at] != f.Hash || (allow != nil && !allow(p)) {
				continue
			}
			d = slices.Grow(d[:0], len(f.Scales))[:len(f.Scales)]
			dots(q, q16, f.Vecs, d)
			// Below the worst kept score nothing can enter (a tie may:
			// push orders it by path).
			thr := floor
			if len(top.c) == k {
				thr = max(thr, top.c[0].score)
			}
			for i, sc := range f.Scales {
				if score := float32(d[i]) * sc * qs; score >= thr && sc != 0 {
					top.push(cand{p, i, score})
					if len(top.c) == k {
						thr = max(floor, top.c[0].score)
					}
				}
			}
		}
		mu.Lock()
		all = append(all, top.c...)
		mu.Unlock()
	})
	slices.SortFunc(all, byRank)
	return all[:min(k, len(all))]
}

// byRank orders candidates best first: score, then path, then chunk.
func byRank(a, b cand) int {
	if worse(a, b) {
		return 1
	}
	if worse(b, a) {
		return -1
	}
	return 0
}

// cand is a chunk and its score during a search.
type cand struct {
	path  string
	ord   int
	score float32
}

// worse reports whether a ranks below b: a lower score, then a later path,
// then a later chunk.
func worse(a, b cand) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	if a.path != b.path {
		return a.path > b.path
	}
	return a.ord > b.ord
}

// topK keeps the best k candidates pushed, as a min-heap on worse.
type topK struct {
	k int
	c []cand
}

func (t *topK) push(c cand) {
	less := func(i, j int) bool { return worse(t.c[i], t.c[j]) }
	swap := func(i, j int) { t.c[i], t.c[j] = t.c[j], t.c[i] }
	if len(t.c) == t.k {
		if !worse(t.c[0], c) {
			return
		}
		t.c[0] = c
		down(len(t.c), less, swap)
		return
	}
	t.c = append(t.c, c)
	up(len(t.c)-1, less, swap)
}

// up and down restore a binary min-heap of n elements ordered by less.
func up(j int, less func(i, j int) bool, swap func(i, j int)) {
	for j > 0 {
		i := (j - 1) / 2
		if !less(j, i) {
			return
		}
		swap(i, j)
		j = i
	}
}

func down(n int, less func(i, j int) bool, swap func(i, j int)) {
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		j := l
		if r := l + 1; r < n && less(r, l) {
			j = r
		}
		if !less(j, i) {
			return
		}
		swap(i, j)
		i = j
	}
}
