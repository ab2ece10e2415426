package index

import (
	"cmp"
	"context"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/ctxls/ctxls/internal/index/analysis"
	"github.com/ctxls/ctxls/internal/index/postings"
)

// The BM25 parameters: Lucene's and bleve's defaults.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Fields of a chunk's document in the lexical store, one document per
// chunk, in the order of corpusStats.avgLen and chunkRec.flen:
//
//	text    "path qualified-name" line + the chunk's text
//	symbol  symbol and qualified name
//	path    the file's path
//	doc     the doc comment
const (
	fieldText = iota
	fieldSymbol
	fieldPath
	fieldDoc
	numSearchFields
)

// corpusStats are the BM25 collection statistics of one snapshot: the
// number of documents and the average length (in terms) of each field.
// They come from the tables, not from the postings.
type corpusStats struct {
	docs   uint64
	avgLen [numSearchFields]float64
}

// lexicalDocument builds in d the lexical document of a chunk of path (its
// symbol, qualified name and doc comment) whose text is body, analyzing
// its fields with the code analyzer (index/analysis).
func lexicalDocument(d *postings.Doc, id ChunkID, path, symbol, qualifiedName, doc string, body []byte, ac *analysis.Counter) *postings.Doc {
	name := qualifiedName
	if name == "" {
		name = symbol
	}
	d.Reset(string(id))
	add := func(f int, values ...[]byte) {
		n := ac.Count(func(t []byte, freq uint32) { d.Add(f, t, freq) }, values...)
		d.Len[f] = uint32(n)
	}
	// The text field is the line "path name" and the chunk's text; no
	// term spans the separators, so the parts are analyzed apart.
	add(fieldText, []byte(path), []byte(name), body)
	sym := symbol
	if qualifiedName != "" && qualifiedName != symbol {
		sym += " " + qualifiedName
	}
	if sym != "" {
		add(fieldSymbol, []byte(sym))
	}
	add(fieldPath, []byte(path))
	if doc != "" {
		add(fieldDoc, []byte(doc))
	}
	return d
}

// Query is a lexical query. Give the raw text, or let the retrieval layer
// say which words are identifiers and which are prose; all three may be
// combined. Every term is searched in the chunk text, the symbol names, the
// path and the doc comment, and the BM25 scores are summed with the field
// boosts.
type Query struct {
	// Text is analyzed like the indexed text: identifiers are split into
	// their parts and kept whole.
	Text string
	// Identifiers are searched whole (weight IdentifierBoost) and by their
	// parts (weight 1).
	Identifiers []string
	// Words are prose words; each also matches its simple inflections
	// ("stitched" → "stitch", "ranges" → "range") at half weight.
	Words []string

	// Field boosts; zero means the default (symbol 3, path 1, doc 1; the
	// chunk text is always 1). IdentifierBoost (default 2) multiplies the
	// whole-identifier terms of Identifiers.
	SymbolBoost, PathBoost, DocBoost, IdentifierBoost float64

	// Filter, if set, admits hits by path (include/exclude globs, open
	// files only, …); Search then still returns up to k admitted hits.
	Filter func(path string) bool
}

// Hit is one search result: a chunk of the snapshot and its score.
type Hit struct {
	ID        ChunkID `json:"id"`
	Path      string  `json:"path"`
	StartLine int     `json:"startLine"`
	EndLine   int     `json:"endLine"`
	Score     float64 `json:"score"`
}

// weightedTerms turns q into distinct terms with their weights (the
// highest weight wins for a term given twice).
func (q Query) weightedTerms() map[string]float64 {
	w := make(map[string]float64)
	add := func(t string, x float64) {
		if len(t) < 2 {
			return
		}
		if w[t] < x {
			w[t] = x
		}
	}
	for _, t := range analysis.Terms(q.Text) {
		add(t, 1)
	}
	ib := q.IdentifierBoost
	if ib == 0 {
		ib = 2
	}
	for _, id := range q.Identifiers {
		for i, t := range analysis.Terms(id) {
			if i == 0 {
				add(t, ib)
			} else {
				add(t, 1)
			}
		}
	}
	for _, word := range q.Words {
		for _, t := range analysis.Terms(word) {
			add(t, 1)
			for _, v := range inflections(t) {
				add(v, 0.5)
			}
		}
	}
	return w
}

// inflections returns naive stems of an English word: enough for a
// question's "stitched ranges" to meet the code's Stitch and range.
func inflections(w string) []string {
	if len(w) < 5 || !isAlpha(w) {
		return nil
	}
	var rv []string
	for _, suf := range []string{"ing", "ed", "es", "ers", "er", "s"} {
		if stem, ok := strings.CutSuffix(w, suf); ok && len(stem) >= 3 {
			rv = append(rv, stem)
			if suf != "s" { // assembler → assemble, parsed → parse
				rv = append(rv, stem+"e")
			}
			// stopped → stop, running → run
			if n := len(stem); suf != "s" && suf != "es" && suf != "ers" && stem[n-1] == stem[n-2] {
				rv = append(rv, stem[:n-1])
			}
		}
	}
	return rv
}

func isAlpha(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// commonFraction: a (term, field) pair that occurs in more than this
// fraction of all documents (and in more than commonMinDocs) is skipped
// when the query has rarer terms. Its
// IDF is small, so it barely changes the ranking, but its postings are the
// bulk of a query's cost.
const (
	commonFraction = 0.2
	commonMinDocs  = 5000 // below this many postings nothing is worth skipping
)

// scorer accumulates term-at-a-time scores by document number. One is
// taken from a pool per search.
type scorer struct {
	acc     []float64
	touched []uint64
}

type scorerPool struct{ p sync.Pool }

func (sp *scorerPool) get() *scorer {
	if s, ok := sp.p.Get().(*scorer); ok {
		return s
	}
	return &scorer{}
}

func (sp *scorerPool) put(s *scorer) {
	for _, d := range s.touched {
		s.acc[d] = 0
	}
	s.touched = s.touched[:0]
	sp.p.Put(s)
}

type fieldTerm struct {
	field  int // fieldText …
	term   string
	weight float64
	post   *postings.Postings // nil: only mem has the term
	df     uint64
}

// search runs q over reader (nil: no documents) and mem (nil: none) and
// returns up to k hits, best first, ties broken by path, then start line,
// then ordinal. resolve gives the lines of a document's chunk (false: not
// in this snapshot, dropped). The reader's documents of mem's paths are
// not the snapshot's and are skipped; mem's chunks are scored with the
// same BM25 over the same collection statistics.
func search(ctx context.Context, reader *postings.Reader, mem *memCorpus, pool *scorerPool, st corpusStats,
	q Query, k int, resolve func(ChunkID) (startLine, endLine int, ok bool)) ([]Hit, error) {
	admit := q.Filter
	if mem != nil {
		q.Filter = func(path string) bool { return !mem.paths[path] && (admit == nil || admit(path)) }
	}
	if k <= 0 {
		return nil, nil
	}
	terms := q.weightedTerms()
	if len(terms) == 0 {
		return nil, nil
	}
	n := st.docs
	if n == 0 {
		return nil, nil
	}
	boost := func(x, def float64) float64 {
		if x == 0 {
			return def
		}
		return x
	}
	fields := [numSearchFields]struct{ boost float64 }{
		fieldText:   {1},
		fieldSymbol: {boost(q.SymbolBoost, 3)},
		fieldPath:   {boost(q.PathBoost, 1)},
		fieldDoc:    {boost(q.DocBoost, 1)},
	}
	// Deterministic term order: the scores are float sums.
	names := make([]string, 0, len(terms))
	for t := range terms {
		names = append(names, t)
	}
	slices.Sort(names)

	// The postings are read in place: keep the reader reachable.
	defer runtime.KeepAlive(reader)
	var fts []fieldTerm
	for fi, f := range fields {
		if f.boost <= 0 {
			continue
		}
		for _, t := range names {
			var post *postings.Postings
			var df uint64
			if reader != nil {
				if post = reader.Lookup(fi, t); post.DF == 0 {
					post = nil
				} else {
					df = post.DF
				}
			}
			if mem != nil {
				df += mem.df(fi, t)
			}
			if df == 0 {
				continue
			}
			fts = append(fts, fieldTerm{fi, t, f.boost * terms[t], post, df})
		}
	}
	limit := max(uint64(math.Ceil(commonFraction*float64(n))), commonMinDocs)
	rare := 0
	for _, ft := range fts {
		if ft.df <= limit {
			rare++
		}
	}

	sc := pool.get()
	defer pool.put(sc)
	k1, b := bm25K1, bm25B
	var memAcc []float64 // scores of mem.docs
	steps := 0
	for _, ft := range fts {
		if rare > 0 && ft.df > limit {
			continue
		}
		df := float64(ft.df)
		idf := math.Log(1 + (float64(n)-df+0.5)/(df+0.5))
		w := ft.weight * idf * (k1 + 1)
		avgLen := max(st.avgLen[ft.field], 1)
		if mem != nil {
			for i, h := range mem.docs {
				tf := float64(h.doc.tf[ft.field][ft.term])
				if tf == 0 {
					continue
				}
				fieldLen := float64(h.doc.flen[ft.field])
				if fieldLen == 0 {
					fieldLen = avgLen
				}
				if memAcc == nil {
					memAcc = make([]float64, len(mem.docs))
				}
				memAcc[i] += w * tf / (tf + k1*(1-b+b*fieldLen/avgLen))
			}
		}
		for ft.post != nil {
			if steps++; steps&4095 == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			doc, freq, flen, ok := ft.post.Next()
			if !ok {
				break
			}
			num := uint64(doc)
			tf := float64(freq)
			fieldLen := avgLen
			// The field length as Lucene and bleve keep it: through a
			// float32 norm, 1/√len.
			if norm := postings.Norm(flen); norm > 0 {
				fieldLen = 1 / (norm * norm)
			}
			s := w * tf / (tf + k1*(1-b+b*fieldLen/avgLen))
			if num >= uint64(len(sc.acc)) {
				grown := make([]float64, max(int(num)+1, len(sc.acc)*5/4, 1024))
				copy(grown, sc.acc)
				sc.acc = grown
			}
			if sc.acc[num] == 0 {
				sc.touched = append(sc.touched, num)
			}
			sc.acc[num] += s
		}
	}
	if len(sc.touched) == 0 && memAcc == nil {
		return nil, nil
	}

	// Keep every document that scores at least the k-th best score, so
	// that ties at the cut are broken by path and line, not by internal
	// document numbers.
	// With a Filter, widen the cut until k hits pass it (or all did).
	var hits []Hit
	var ords []int
	for want := k; len(sc.touched) > 0; want *= 4 {
		cands := topCandidates(sc.acc, sc.touched, want)
		hits, ords = hits[:0], ords[:0]
		for _, num := range cands {
			id := ChunkID(reader.ID(uint32(num)))
			path, ord, _ := id.Split()
			if q.Filter != nil && !q.Filter(path) {
				continue
			}
			start, end, ok := resolve(id)
			if !ok {
				continue
			}
			hits = append(hits, Hit{ID: id, Path: path, StartLine: start, EndLine: end, Score: sc.acc[num]})
			ords = append(ords, ord)
		}
		if q.Filter == nil || len(hits) >= k || len(cands) == len(sc.touched) {
			break
		}
	}
	for i, score := range memAcc {
		h := &mem.docs[i]
		if score == 0 || (admit != nil && !admit(h.path)) {
			continue
		}
		hits = append(hits, Hit{ID: h.id, Path: h.path, StartLine: h.start, EndLine: h.end, Score: score})
		ords = append(ords, h.ord)
	}
	rv := sortHits(hits, ords)
	return rv[:min(k, len(rv))], nil
}

// sortHits orders hits best first, ties by path, line and ordinal.
func sortHits(hits []Hit, ords []int) []Hit {
	idx := make([]int, len(hits))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(i, j int) int {
		a, b := &hits[i], &hits[j]
		return cmp.Or(
			cmp.Compare(b.Score, a.Score),
			cmp.Compare(a.Path, b.Path),
			cmp.Compare(a.StartLine, b.StartLine),
			cmp.Compare(ords[i], ords[j]),
		)
	})
	rv := make([]Hit, len(hits))
	for i, k := range idx {
		rv[i] = hits[k]
	}
	return rv
}

// topCandidates returns the documents of touched whose score is at least
// the k-th highest score.
func topCandidates(acc []float64, touched []uint64, k int) []uint64 {
	if len(touched) <= k {
		return slices.Clone(touched)
	}
	// A min-heap of the k best scores gives the threshold.
	h := make([]float64, 0, k)
	for _, d := range touched {
		s := acc[d]
		if len(h) < k {
			h = append(h, s)
			siftUp(h, len(h)-1)
		} else if s > h[0] {
			h[0] = s
			siftDown(h, 0)
		}
	}
	threshold := h[0]
	rv := make([]uint64, 0, k+4)
	for _, d := range touched {
		if acc[d] >= threshold {
			rv = append(rv, d)
		}
	}
	return rv
}

func siftUp(h []float64, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if h[p] <= h[i] {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func siftDown(h []float64, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r] < h[l] {
			m = r
		}
		if h[i] <= h[m] {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
