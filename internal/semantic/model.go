package semantic

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
)

// Options tune the embedder. The zero value is not useful; start from
// DefaultOptions.
type Options struct {
	// Dim is the number of dimensions of a vector.
	Dim int
	// MaxVocab caps the vocabulary (the most frequent terms).
	MaxVocab int
	// MinDF is the number of chunks a term must occur in to be learned.
	MinDF int
	// MaxTrain caps the chunks the SVD is computed on (a sample: every
	// k-th chunk in path order); every chunk is embedded.
	MaxTrain int
	// Oversample and PowerIters tune the randomized SVD.
	Oversample, PowerIters int
	// SigmaExp scales a term's vector by the singular values to this
	// power (0: the singular vectors as they are; 1: classic LSI term
	// vectors).
	SigmaExp float64
	// Seed seeds the SVD's Gaussian test matrix.
	Seed uint64
	// RetrainDrift: Sync trains again when the share of indexed term
	// occurrences the model does not know exceeds the share at training
	// by this much.
	RetrainDrift float64
	// RetrainFiles: Sync trains again when the share of files whose
	// vectors were not computed at training (written, changed or removed
	// since) exceeds this (Store.FileDrift).
	RetrainFiles float64
}

// DefaultOptions are the measured defaults (docs/quality.md, "Semantic
// channel").
func DefaultOptions() Options {
	return Options{Dim: 64, MaxVocab: 30000, MinDF: 2, MaxTrain: 20000, Oversample: 16, PowerIters: 1,
		SigmaExp: 0.5, Seed: 0x6374786c73, RetrainDrift: 0.02, RetrainFiles: 0.25}
}

// Model is a trained embedder: a vocabulary with idf weights and a vector
// per term. It is immutable.
type Model struct {
	Dim   int
	Terms []string  // sorted
	IDF   []float32 // per term
	// Codes and Scales are the terms' vectors, quantized as chunks' are
	// (term i's at Codes[i·Dim:(i+1)·Dim] times Scales[i]): what is
	// stored, and what every embedding is computed from, so that a model
	// read back from the cache embeds exactly as the one trained.
	Codes  []int8
	Scales []float32
	// Chunks is the number of chunks the model was trained on (the
	// whole corpus, not the SVD's sample); BaseOOV is the share of their
	// term occurrences outside the vocabulary.
	Chunks  int
	BaseOOV float64
	// Files is the number of files the model was trained on (with
	// vectors at training).
	Files int
	// ID is the model's identity: a hash of what its vectors are computed
	// from (the vocabulary, the idf weights, the term vectors), set by
	// index. Equal IDs embed alike.
	ID string

	ids  map[string]int32 // Terms' indexes (index)
	vecs []float32        // Codes times Scales (index)
	src  *mapped          // the cache file Codes and Scales are read from in place (nil: trained here)
}

// index builds the term lookup and the terms' vectors and computes the
// model's ID; every model is indexed before use.
func (m *Model) index() *Model {
	m.ID = m.identity()
	m.ids = make(map[string]int32, len(m.Terms))
	for i, t := range m.Terms {
		m.ids[t] = int32(i)
	}
	m.vecs = make([]float32, len(m.Codes))
	if m.Dim == 0 {
		return m
	}
	for i := range m.Scales {
		dequantize(m.Codes[i*m.Dim:(i+1)*m.Dim], m.Scales[i], m.vecs[i*m.Dim:(i+1)*m.Dim])
	}
	return m
}

// identity hashes what embeddings are computed from: the size, the
// vocabulary, the idf weights and the quantized term vectors (the first 8
// bytes of a SHA-256, hex). A model without vectors has none ("").
func (m *Model) identity() string {
	if m.Dim == 0 {
		return ""
	}
	h := sha256.New()
	var b []byte
	b = binary.LittleEndian.AppendUint64(b, uint64(m.Dim))
	b = binary.LittleEndian.AppendUint64(b, uint64(len(m.Terms)))
	for i, t := range m.Terms {
		b = append(b, t...)
		b = append(b, 0)
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(m.IDF[i]))
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(m.Scales[i]))
		if len(b) > 1<<16 {
			h.Write(b)
			b = b[:0]
		}
	}
	h.Write(b)
	h.Write(codeBytes(m.Codes))
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// id returns a term's index in the vocabulary.
func (m *Model) id(term string) (int, bool) {
	i, ok := m.ids[term]
	return int(i), ok
}

// train learns a model from the bags of a whole corpus (files in path
// order).
func train(files []*fileBags, opts Options) (*Model, error) {
	if opts.Dim < 1 || opts.MaxVocab < 1 || opts.MaxTrain < 1 {
		return nil, fmt.Errorf("semantic options: Dim, MaxVocab and MaxTrain must be ≥ 1")
	}
	// Document frequencies per dict (integer sums, in any order), then
	// by term.
	var dicts []*dict
	local := map[*dict][]int32{}
	nchunks := 0
	var total int64
	for _, f := range files {
		if f == nil {
			continue
		}
		df, ok := local[f.dict]
		if !ok {
			dicts = append(dicts, f.dict)
		}
		df = slices.Grow(df, len(f.dict.terms)-len(df))[:len(f.dict.terms)]
		for _, id := range f.ids {
			df[id]++ // a bag's ids are distinct
		}
		for _, t := range f.totals {
			total += int64(t)
		}
		local[f.dict] = df
		nchunks += f.len()
	}
	df := map[string]int32{}
	for _, d := range dicts {
		for id, n := range local[d] {
			if n > 0 {
				df[d.terms[id]] += n
			}
		}
	}
	type termDF struct {
		term string
		df   int32
	}
	var cand []termDF
	for t, n := range df {
		if int(n) >= opts.MinDF {
			cand = append(cand, termDF{t, n})
		}
	}
	slices.SortFunc(cand, func(a, b termDF) int {
		if c := cmp.Compare(b.df, a.df); c != 0 {
			return c
		}
		return cmp.Compare(a.term, b.term)
	})
	cand = cand[:min(len(cand), opts.MaxVocab)]
	slices.SortFunc(cand, func(a, b termDF) int { return cmp.Compare(a.term, b.term) })
	m := &Model{Terms: make([]string, len(cand)), IDF: make([]float32, len(cand)), Chunks: nchunks}
	n := float64(nchunks)
	m.ids = make(map[string]int32, len(cand))
	for i, c := range cand {
		m.Terms[i] = c.term
		m.IDF[i] = float32(math.Log(1 + n/float64(c.df)))
		m.ids[c.term] = int32(i)
	}
	tables := map[*dict][]int32{}
	for _, d := range dicts {
		tables[d] = d.modelIDs(m)
	}
	// The training rows: every step-th chunk with a known term.
	step := max(1, (nchunks+opts.MaxTrain-1)/opts.MaxTrain)
	x := &csr{cols: len(m.Terms), ptr: []int32{0}}
	var known int64
	var es []entry
	i := 0
	for _, f := range files {
		if f == nil {
			continue
		}
		table := tables[f.dict]
		for j := range f.len() {
			b := f.bag(j)
			sample := i%step == 0
			i++
			if !sample {
				known += int64(b.known(table))
				continue
			}
			var k int32
			es, k = b.entries(table, es)
			known += int64(k)
			if len(es) == 0 {
				continue
			}
			start := len(x.val)
			var norm float64
			for _, e := range es {
				w := (1 + math.Log(float64(e.count))) * float64(m.IDF[e.id])
				x.idx = append(x.idx, e.id)
				x.val = append(x.val, w)
				norm += w * w
			}
			norm = math.Sqrt(norm)
			for k := start; k < len(x.val); k++ {
				x.val[k] /= norm
			}
			x.ptr = append(x.ptr, int32(len(x.val)))
			x.rows++
		}
	}
	if total > 0 {
		m.BaseOOV = 1 - float64(known)/float64(total)
	}
	v, sigma, err := topRightSingular(x, opts.Dim, opts.Oversample, opts.PowerIters, opts.Seed)
	if err != nil {
		return nil, fmt.Errorf("semantic: training on %d chunks, %d terms: %w", x.rows, x.cols, err)
	}
	m.Dim = len(sigma)
	scale := make([]float64, m.Dim)
	for j, s := range sigma {
		scale[j] = math.Pow(s, opts.SigmaExp)
	}
	m.Codes, m.Scales = make([]int8, len(m.Terms)*m.Dim), make([]float32, len(m.Terms))
	row := make([]float32, m.Dim)
	for i := range m.Terms {
		for j := range m.Dim {
			row[j] = float32(v.At(i, j) * scale[j])
		}
		m.Scales[i] = quantize(row, m.Codes[i*m.Dim:(i+1)*m.Dim])
	}
	return m.index(), nil
}

// embed returns the unit vector of a chunk's known terms (nil when there
// are none).
func (m *Model) embed(es []entry, dst []float32) []float32 {
	if m.Dim == 0 || len(es) == 0 {
		return nil
	}
	vec := dst[:m.Dim]
	clear(vec)
	for _, e := range es {
		w := (1 + float32(math.Log(float64(e.count)))) * m.IDF[e.id]
		row := m.vecs[int(e.id)*m.Dim : (int(e.id)+1)*m.Dim]
		for k, x := range row {
			vec[k] += w * x
		}
	}
	if !normalize(vec) {
		return nil
	}
	return vec
}

// normalize scales v to unit length; false if it is zero.
func normalize(v []float32) bool {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return false
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
	return true
}

// quantize returns v as int8 codes and the scale that maps them back.
func quantize(v []float32, dst []int8) float32 {
	var m float32
	for _, x := range v {
		m = max(m, abs32(x))
	}
	if m == 0 {
		clear(dst)
		return 0
	}
	f := 127 / m
	for i, x := range v {
		dst[i] = int8(math.Round(float64(x * f)))
	}
	return m / 127
}

// dequantize writes codes times scale to dst.
func dequantize(codes []int8, scale float32, dst []float32) {
	for i, c := range codes {
		dst[i] = float32(c) * scale
	}
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

// dotsGo is dots in Go: every machine's fallback.
func dotsGo(q, vecs []int8, out []int32) {
	dim := len(q)
	for i := range out {
		out[i] = dot8(q, vecs[i*dim:(i+1)*dim])
	}
}

// widen returns q as int16 (dots' form of a query).
func widen(q []int8) []int16 {
	out := make([]int16, len(q))
	for i, x := range q {
		out[i] = int16(x)
	}
	return out
}

// dot8 is the dot product of two int8 vectors of the same length (the
// search's kernel: the vectors stay int8 in memory, a quarter of float32's
// bytes to stream per search).
func dot8(a, b []int8) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		x, y := a[i:i+8:i+8], b[i:i+8:i+8]
		s0 += int32(x[0])*int32(y[0]) + int32(x[4])*int32(y[4])
		s1 += int32(x[1])*int32(y[1]) + int32(x[5])*int32(y[5])
		s2 += int32(x[2])*int32(y[2]) + int32(x[6])*int32(y[6])
		s3 += int32(x[3])*int32(y[3]) + int32(x[7])*int32(y[7])
	}
	for ; i < len(a); i++ {
		s0 += int32(a[i]) * int32(b[i])
	}
	return s0 + s1 + s2 + s3
}
