package baseline

import (
	"cmp"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/ranges"
)

// Fields of the zoekt-like peer's BM25F.
const (
	FieldPath    = iota // the file's path, its extension left out
	FieldSymbol         // the names the file defines (what ctags gives zoekt)
	FieldContent        // the file's text
	numFields
)

// ZoektOptions tune the zoekt-like peer.
type ZoektOptions struct {
	K1 float64 // BM25 saturation; default 1.2
	// Weights and B are each field's boost and length normalisation
	// (indexed by FieldPath, FieldSymbol, FieldContent); defaults
	// {5, 5, 1} (zoekt counts a file name or symbol match 5 times) and
	// {0, 0.5, 0.75}. A zero Weights uses the defaults.
	Weights [numFields]float64
	B       [numFields]float64
	// LowPriority divides a low-priority file's term frequencies (tests,
	// vendored and generated code, as zoekt does); default 5.
	LowPriority float64
	// Files is how many of the best files give windows; default 50.
	Files int
	// WindowLines is the length of a window; default 60.
	WindowLines int
	// WindowsPerFile is how many windows a file gives at most; default 3.
	WindowsPerFile int
	// Decay multiplies a file's score for each further window of it
	// (the first window scores the file's score); default 0.5.
	Decay float64
	// MaxHits is how many matching lines per window are passed as hit
	// lines; default 16, negative for none.
	MaxHits int
}

// DefaultZoektOptions: path ×5, symbols ×5, content ×1, low-priority files
// ÷5; 60-line windows, up to 3 per file, of the 50 best files.
func DefaultZoektOptions() ZoektOptions {
	return ZoektOptions{K1: 1.2, Weights: [numFields]float64{5, 5, 1}, B: [numFields]float64{0, 0.5, 0.75},
		LowPriority: 5, Files: 50, WindowLines: 60, WindowsPerFile: 3, Decay: 0.5, MaxHits: 16}
}

func (o ZoektOptions) withDefaults() ZoektOptions {
	d := DefaultZoektOptions()
	if o.K1 <= 0 {
		o.K1 = d.K1
	}
	if o.Weights == ([numFields]float64{}) {
		o.Weights, o.B = d.Weights, d.B
	}
	for i := range o.B {
		o.B[i] = min(max(o.B[i], 0), 1)
	}
	if o.LowPriority < 1 {
		o.LowPriority = d.LowPriority
	}
	if o.Files <= 0 {
		o.Files = d.Files
	}
	if o.WindowLines <= 0 {
		o.WindowLines = d.WindowLines
	}
	if o.WindowsPerFile <= 0 {
		o.WindowsPerFile = d.WindowsPerFile
	}
	if o.Decay <= 0 || o.Decay > 1 {
		o.Decay = d.Decay
	}
	if o.MaxHits == 0 {
		o.MaxHits = d.MaxHits
	}
	return o
}

// ZoektFile is one file of the zoekt-like peer's input.
type ZoektFile struct {
	Path    string
	Text    string
	Symbols []string // names of the file's definitions
	// LowPriority marks tests, vendored and generated files.
	LowPriority bool
}

type zoektPosting struct {
	file int32
	tf   [numFields]int32
}

// Zoekt is a zoekt-like code search (github.com/sourcegraph/zoekt, its
// BM25 scoring with ctags symbols, written again here): files are ranked
// by BM25F over three fields — the path, the names of the file's
// definitions and the text — and each of the best files gives the windows
// of WindowLines lines around its densest hits, as zoekt shows its chunk
// matches with context lines. It is immutable once built.
type Zoekt struct {
	opts     ZoektOptions
	paths    []string
	low      []bool
	lines    [][]string
	length   [][numFields]int32
	avgLen   [numFields]float64
	postings map[string][]zoektPosting
}

// pathTerms are the terms of a path's field: its directories and file
// name, the extension left out.
func pathTerms(p string) []string {
	return Tokenize(strings.TrimSuffix(p, path.Ext(p)))
}

// BuildZoekt indexes files (any order; paths unique).
func BuildZoekt(files []ZoektFile, opts ZoektOptions) *Zoekt {
	opts = opts.withDefaults()
	fs := slices.Clone(files)
	slices.SortFunc(fs, func(a, b ZoektFile) int { return strings.Compare(a.Path, b.Path) })
	z := &Zoekt{opts: opts, postings: map[string][]zoektPosting{}}
	var total [numFields]float64
	for i, f := range fs {
		lines := splitLines(f.Text)
		z.paths = append(z.paths, f.Path)
		z.low = append(z.low, f.LowPriority)
		z.lines = append(z.lines, lines)
		tf := map[string]*[numFields]int32{}
		var n [numFields]int32
		add := func(field int, terms []string) {
			for _, t := range terms {
				c := tf[t]
				if c == nil {
					c = new([numFields]int32)
					tf[t] = c
				}
				c[field]++
				n[field]++
			}
		}
		add(FieldPath, pathTerms(f.Path))
		for _, s := range f.Symbols {
			add(FieldSymbol, Tokenize(s))
		}
		for _, l := range lines {
			add(FieldContent, Tokenize(l))
		}
		z.length = append(z.length, n)
		for k := range numFields {
			total[k] += float64(n[k])
		}
		terms := make([]string, 0, len(tf))
		for t := range tf {
			terms = append(terms, t)
		}
		slices.Sort(terms)
		for _, t := range terms {
			z.postings[t] = append(z.postings[t], zoektPosting{file: int32(i), tf: *tf[t]})
		}
	}
	if n := len(fs); n > 0 {
		for k := range numFields {
			z.avgLen[k] = total[k] / float64(n)
		}
	}
	return z
}

// FileHit is a scored file.
type FileHit struct {
	Path  string
	Score float64
}

// idf is the Lucene IDF of a term in df of n documents.
func idf(n, df float64) float64 { return math.Log(1 + (n-df+0.5)/(df+0.5)) }

// SearchFiles returns the k best files for query by BM25F (all matching
// when k ≤ 0), best first; ties by path.
func (z *Zoekt) SearchFiles(query string, k int) []FileHit {
	n := float64(len(z.paths))
	scores := map[int32]float64{}
	for _, t := range uniqueTerms(query) {
		ps := z.postings[t]
		if len(ps) == 0 {
			continue
		}
		w := idf(n, float64(len(ps)))
		for _, p := range ps {
			tf := 0.0
			for f := range numFields {
				if p.tf[f] == 0 {
					continue
				}
				norm := 1.0
				if z.avgLen[f] > 0 {
					norm = 1 - z.opts.B[f] + z.opts.B[f]*float64(z.length[p.file][f])/z.avgLen[f]
				}
				tf += z.opts.Weights[f] * float64(p.tf[f]) / norm
			}
			if z.low[p.file] {
				tf /= z.opts.LowPriority
			}
			scores[p.file] += w * tf * (z.opts.K1 + 1) / (tf + z.opts.K1)
		}
	}
	hits := make([]FileHit, 0, len(scores))
	for f, s := range scores {
		hits = append(hits, FileHit{Path: z.paths[f], Score: s})
	}
	slices.SortFunc(hits, func(a, b FileHit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(a.Path, b.Path))
	})
	if k > 0 && len(hits) > k {
		hits = hits[:k]
	}
	return hits
}

// Candidates returns the windows of the best files for query as assembler
// candidates: a file's windows in order of their hits' weight, the first
// scored as the file, each further one Decay times the one before; hit
// lines are the window's lines holding a query term.
func (z *Zoekt) Candidates(query string) []assemble.Candidate {
	terms := uniqueTerms(query)
	n := float64(len(z.paths))
	weight := map[string]float64{}
	for _, t := range terms {
		if ps := z.postings[t]; len(ps) > 0 {
			weight[t] = idf(n, float64(len(ps)))
		}
	}
	var out []assemble.Candidate
	for _, h := range z.SearchFiles(query, z.opts.Files) {
		i, _ := slices.BinarySearch(z.paths, h.Path)
		lw := make([]float64, len(z.lines[i]))
		for j, l := range z.lines[i] {
			lw[j] = lineWeight(l, weight)
		}
		score := h.Score
		for _, w := range z.windows(lw) {
			c := assemble.Candidate{
				ID:      h.Path + "#L" + strconv.Itoa(w.Start),
				Path:    h.Path,
				Ranges:  []ranges.Range{w},
				Score:   score,
				Sources: []string{"zoekt"},
				Kind:    "code",
			}
			for l := w.Start; l <= w.End && len(c.Hits) < z.opts.MaxHits; l++ {
				if lw[l-1] > 0 {
					c.Hits = append(c.Hits, l)
				}
			}
			out = append(out, c)
			score *= z.opts.Decay
		}
	}
	return out
}

// lineWeight is the summed weight of the distinct query terms on a line.
func lineWeight(line string, weight map[string]float64) float64 {
	ts := uniqueTerms(line)
	s := 0.0
	for _, t := range ts {
		s += weight[t]
	}
	return s
}

// windows picks up to WindowsPerFile windows of a file whose lines have
// the hit weights lw: each time the window of WindowLines lines with the
// most hit weight not yet shown, moved to centre the hits it holds, first
// such window on ties. A file without a hit line (it matched by path)
// gives its first lines.
func (z *Zoekt) windows(hitWeights []float64) []ranges.Range {
	n := len(hitWeights)
	if n == 0 {
		return nil
	}
	lw := slices.Clone(hitWeights)
	L := z.opts.WindowLines
	if !slices.ContainsFunc(lw, func(x float64) bool { return x > 0 }) {
		return []ranges.Range{{Start: 1, End: min(L, n)}}
	}
	var out []ranges.Range
	for len(out) < z.opts.WindowsPerFile {
		// The best window by a running sum over [s, s+L).
		best, bestStart, sum := 0.0, -1, 0.0
		for j := range lw {
			sum += lw[j]
			if j >= L {
				sum -= lw[j-L]
			}
			if s := max(0, j-L+1); sum > best+1e-12 {
				best, bestStart = sum, s
			}
		}
		if bestStart < 0 {
			break
		}
		end := min(bestStart+L, n) - 1
		first, last := -1, -1
		for j := bestStart; j <= end; j++ {
			if lw[j] > 0 {
				if first < 0 {
					first = j
				}
				last = j
			}
		}
		start := max(0, min((first+last)/2-L/2, n-L))
		w := ranges.Range{Start: start + 1, End: min(start+L, n)}
		for j := w.Start - 1; j < w.End; j++ {
			lw[j] = 0
		}
		out = append(out, w)
	}
	return out
}
