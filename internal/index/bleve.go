package index

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/ctxls/ctxls/internal/index/analysis"
	"github.com/ctxls/ctxls/internal/index/chunk"
)

// Field names of the bleve documents, one document per chunk.
const (
	fieldText     = "text"     // "path qualified-name" line + the chunk's text
	fieldSymbol   = "symbol"   // symbol and qualified name
	fieldPath     = "path"     // the file's path
	fieldDoc      = "doc"      // the doc comment
	fieldKind     = "kind"     // chunk.Kind, not analyzed
	fieldLanguage = "language" // language, not analyzed
)

// searchFields are the analyzed fields a Query searches, in the order of
// corpusStats.avgLen and chunkRec.flen.
var searchFields = [numSearchFields]string{fieldText, fieldSymbol, fieldPath, fieldDoc}

const numSearchFields = 4

// corpusStats are the BM25 collection statistics of one snapshot: the
// number of documents and the average length (in terms) of each field of
// searchFields. They come from the tables, not from bleve, whose
// per-snapshot statistics cost a pass over each field's dictionary.
type corpusStats struct {
	docs   uint64
	avgLen [numSearchFields]float64
}

// newMapping is the index mapping stored with the index. Documents are
// built directly (see chunkDocument), so the mapping only records the
// fields, their analyzers and the scoring model for anyone opening the
// index with bleve's own tools.
func newMapping() *mapping.IndexMappingImpl {
	m := bleve.NewIndexMapping()
	m.ScoringModel = bindex.BM25Scoring
	m.DefaultAnalyzer = analysis.AnalyzerName
	m.StoreDynamic = false
	m.IndexDynamic = false
	m.DocValuesDynamic = false

	dm := bleve.NewDocumentStaticMapping()
	text := func() *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = analysis.AnalyzerName
		f.Store = false
		f.IncludeTermVectors = false
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	kw := func() *mapping.FieldMapping {
		f := text()
		f.Analyzer = keyword.Name
		return f
	}
	dm.AddFieldMappingsAt(fieldText, text())
	dm.AddFieldMappingsAt(fieldSymbol, text())
	dm.AddFieldMappingsAt(fieldPath, text())
	dm.AddFieldMappingsAt(fieldDoc, text())
	dm.AddFieldMappingsAt(fieldKind, kw())
	dm.AddFieldMappingsAt(fieldLanguage, kw())
	m.DefaultMapping = dm
	return m
}

// chunkDocument builds the bleve document of chunk c whose text is body.
// Nothing is stored: bleve returns IDs and scores, the tables hold the rest.
func chunkDocument(id ChunkID, c *chunk.Chunk, body []byte) *document.Document {
	const opts = bindex.IndexField
	name := c.QualifiedName
	if name == "" {
		name = c.Symbol
	}
	text := make([]byte, 0, len(c.Path)+len(name)+2+len(body))
	text = append(text, c.Path...)
	text = append(text, ' ')
	text = append(text, name...)
	text = append(text, '\n')
	text = append(text, body...)

	d := document.NewDocument(string(id))
	d.AddField(&codeField{name: fieldText, value: text})
	sym := c.Symbol
	if c.QualifiedName != "" && c.QualifiedName != c.Symbol {
		sym += " " + c.QualifiedName
	}
	if sym != "" {
		d.AddField(&codeField{name: fieldSymbol, value: []byte(sym)})
	}
	d.AddField(&codeField{name: fieldPath, value: []byte(c.Path)})
	if c.Doc != "" {
		d.AddField(&codeField{name: fieldDoc, value: []byte(c.Doc)})
	}
	if c.Kind != "" {
		d.AddField(document.NewTextFieldCustom(fieldKind, nil, []byte(c.Kind), opts, nil))
	}
	if c.Language != "" {
		d.AddField(document.NewTextFieldCustom(fieldLanguage, nil, []byte(c.Language), opts, nil))
	}
	return d
}

// codeField is a bleve document field analyzed with the code analyzer
// (analysis.AnalyzerName): indexed, not stored, no term vectors. It
// computes its term frequencies directly (analysis.Frequencies) instead of
// materializing a token stream, which halves the allocations of indexing.
type codeField struct {
	name   string
	value  []byte
	length int
	freqs  bindex.TokenFrequencies
}

var _ document.Field = (*codeField)(nil)

func (f *codeField) Name() string                         { return f.name }
func (f *codeField) ArrayPositions() []uint64             { return nil }
func (f *codeField) Options() bindex.FieldIndexingOptions { return bindex.IndexField }
func (f *codeField) Value() []byte                        { return f.value }
func (f *codeField) NumPlainTextBytes() uint64            { return uint64(len(f.value)) }
func (f *codeField) EncodedFieldType() byte               { return 't' }
func (f *codeField) AnalyzedLength() int                  { return f.length }
func (f *codeField) AnalyzedTokenFrequencies() bindex.TokenFrequencies {
	return f.freqs
}
func (f *codeField) Size() int { return 64 + len(f.name) + len(f.value) + f.freqs.Size() }

// Analyze implements document.Field.
func (f *codeField) Analyze() { f.freqs, f.length = analysis.Frequencies(f.value) }

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
	field  int // index into searchFields
	term   string
	weight float64
	tfr    bindex.TermFieldReader // nil: only mem has the term
	df     uint64
}

// search runs q over reader (nil: no documents) and mem (nil: none) and
// returns up to k hits, best first, ties broken by path, then start line,
// then ordinal. resolve gives the lines of a document's chunk (false: not
// in this snapshot, dropped). The reader's documents of mem's paths are
// not the snapshot's and are skipped; mem's chunks are scored with the
// same BM25 over the same collection statistics.
func search(ctx context.Context, reader bindex.IndexReader, mem *memCorpus, pool *scorerPool, st corpusStats,
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
	fields := [numSearchFields]struct {
		name  string
		boost float64
	}{
		{searchFields[0], 1},
		{searchFields[1], boost(q.SymbolBoost, 3)},
		{searchFields[2], boost(q.PathBoost, 1)},
		{searchFields[3], boost(q.DocBoost, 1)},
	}
	// Deterministic term order: the scores are float sums.
	names := make([]string, 0, len(terms))
	for t := range terms {
		names = append(names, t)
	}
	slices.Sort(names)

	var fts []fieldTerm
	defer func() {
		for _, ft := range fts {
			if ft.tfr != nil {
				_ = ft.tfr.Close()
			}
		}
	}()
	for fi, f := range fields {
		if f.boost <= 0 {
			continue
		}
		for _, t := range names {
			var tfr bindex.TermFieldReader
			var df uint64
			if reader != nil {
				var err error
				tfr, err = reader.TermFieldReader(ctx, []byte(t), f.name, true, true, false)
				if err != nil {
					return nil, fmt.Errorf("search: term %q: %w", t, err)
				}
				if df = tfr.Count(); df == 0 {
					_ = tfr.Close()
					tfr = nil
				}
			}
			if mem != nil {
				df += mem.df(fi, t)
			}
			if df == 0 {
				continue
			}
			fts = append(fts, fieldTerm{fi, t, f.boost * terms[t], tfr, df})
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
	k1, b := bsearch.BM25_k1, bsearch.BM25_b
	var tfd bindex.TermFieldDoc
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
		for ft.tfr != nil {
			if steps++; steps&4095 == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			d, err := ft.tfr.Next(&tfd)
			if err != nil {
				return nil, fmt.Errorf("search: %w", err)
			}
			if d == nil {
				break
			}
			if len(d.ID) != 8 {
				return nil, fmt.Errorf("search: unexpected internal id %x", []byte(d.ID))
			}
			num := binary.BigEndian.Uint64(d.ID)
			tf := float64(d.Freq)
			fieldLen := avgLen
			if d.Norm > 0 {
				fieldLen = 1 / (d.Norm * d.Norm)
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
			tfd.ID = d.ID[:0]
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
	idbuf := make([]byte, 8)
	for want := k; len(sc.touched) > 0; want *= 4 {
		cands := topCandidates(sc.acc, sc.touched, want)
		hits, ords = hits[:0], ords[:0]
		for _, num := range cands {
			binary.BigEndian.PutUint64(idbuf, num)
			ext, err := reader.ExternalID(idbuf)
			if err != nil {
				return nil, fmt.Errorf("search: document %d: %w", num, err)
			}
			id := ChunkID(ext)
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
