package semantic

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync"
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
}

// DefaultOptions are the measured defaults (docs/quality.md, "Semantic
// channel").
func DefaultOptions() Options {
	return Options{Dim: 96, MaxVocab: 30000, MinDF: 2, MaxTrain: 40000, Oversample: 16, PowerIters: 1,
		SigmaExp: 0.5, Seed: 0x6374786c73, RetrainDrift: 0.02}
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

	ids  map[string]int32 // Terms' indexes (index)
	vecs []float32        // Codes times Scales (index)
}

// index builds the term lookup and the terms' vectors; every model is
// indexed before use.
func (m *Model) index() *Model {
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

// id returns a term's index in the vocabulary.
func (m *Model) id(term string) (int, bool) {
	i, ok := m.ids[term]
	return int(i), ok
}

// train learns a model from the bags of a whole corpus.
func train(bags []bag, opts Options) (*Model, error) {
	if opts.Dim < 1 || opts.MaxVocab < 1 || opts.MaxTrain < 1 {
		return nil, fmt.Errorf("semantic options: Dim, MaxVocab and MaxTrain must be ≥ 1")
	}
	// Document frequencies, counted in parts (integer sums: the split
	// does not matter).
	var mu sync.Mutex
	var parts []map[string]int32
	var total int64
	parallel(len(bags), func(lo, hi int) {
		df := map[string]int32{}
		var n int64
		for _, b := range bags[lo:hi] {
			for _, t := range b.terms {
				df[t]++
			}
			n += int64(b.total)
		}
		mu.Lock()
		parts = append(parts, df)
		total += n
		mu.Unlock()
	})
	var df map[string]int32
	for _, p := range parts {
		if df == nil {
			df = p
			continue
		}
		for t, n := range p {
			df[t] += n
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
	m := &Model{Terms: make([]string, len(cand)), IDF: make([]float32, len(cand)), Chunks: len(bags)}
	n := float64(len(bags))
	for i, c := range cand {
		m.Terms[i] = c.term
		m.IDF[i] = float32(math.Log(1 + n/float64(c.df)))
	}
	m.ids = make(map[string]int32, len(m.Terms))
	for i, t := range m.Terms {
		m.ids[t] = int32(i)
	}
	// The training rows: every step-th chunk with a known term.
	step := max(1, (len(bags)+opts.MaxTrain-1)/opts.MaxTrain)
	x := &csr{cols: len(m.Terms), ptr: []int32{0}}
	var known int64
	type entry struct{ id, j int }
	entries := make([]entry, 0, 64)
	for i, b := range bags {
		entries = entries[:0]
		for j, t := range b.terms {
			if id, ok := m.id(t); ok {
				entries = append(entries, entry{id, j})
				known += int64(b.counts[j])
			}
		}
		if i%step != 0 || len(entries) == 0 {
			continue
		}
		start := len(x.val)
		var norm float64
		for _, e := range entries {
			w := (1 + math.Log(float64(b.counts[e.j]))) * float64(m.IDF[e.id])
			x.idx = append(x.idx, int32(e.id))
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

// embed returns the unit vector of a bag (nil when it has no known term)
// and how many of its term occurrences the model knows.
func (m *Model) embed(b bag, dst []float32) (vec []float32, known int32) {
	if m.Dim == 0 {
		return nil, 0
	}
	vec = dst[:m.Dim]
	clear(vec)
	hit := false
	for j, t := range b.terms {
		id, ok := m.id(t)
		if !ok {
			continue
		}
		known += b.counts[j]
		hit = true
		w := (1 + float32(math.Log(float64(b.counts[j])))) * m.IDF[id]
		row := m.vecs[id*m.Dim : (id+1)*m.Dim]
		for k, x := range row {
			vec[k] += w * x
		}
	}
	if !hit || !normalize(vec) {
		return nil, known
	}
	return vec, known
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

// requantize recovers the codes of values dequantize wrote with scale.
func requantize(v []float32, scale float32, dst []int8) {
	for i, x := range v {
		if scale != 0 {
			dst[i] = int8(math.Round(float64(x / scale)))
		} else {
			dst[i] = 0
		}
	}
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}
