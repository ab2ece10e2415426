package baseline

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/ranges"
)

// Options tune the baseline.
type Options struct {
	WindowLines int     // lines per window; default 60
	Stride      int     // first-line distance of consecutive windows; default WindowLines (no overlap)
	K1, B       float64 // BM25 parameters; default 1.2 and 0.75
	// Candidates is how many top windows go to the assembler; default 200.
	Candidates int
	// MaxHits is how many matching lines per window are passed as hit
	// lines (what a trimmed part keeps); default 16, negative for none.
	MaxHits int
}

// DefaultOptions: 60-line windows without overlap, k1 1.2, b 0.75.
func DefaultOptions() Options {
	return Options{WindowLines: 60, Stride: 60, K1: 1.2, B: 0.75, Candidates: 200, MaxHits: 16}
}

func (o Options) withDefaults() Options {
	d := DefaultOptions()
	if o.WindowLines <= 0 {
		o.WindowLines = d.WindowLines
	}
	if o.Stride <= 0 {
		o.Stride = o.WindowLines
	}
	if o.K1 <= 0 {
		o.K1 = d.K1
	}
	if o.B < 0 || o.B > 1 || o.B == 0 && o.K1 == 0 {
		o.B = d.B
	}
	if o.Candidates <= 0 {
		o.Candidates = d.Candidates
	}
	if o.MaxHits == 0 {
		o.MaxHits = d.MaxHits
	}
	return o
}

type window struct {
	path       string
	start, end int // 1-based, inclusive
	length     int // terms
}

type posting struct {
	doc, tf int32
}

// Index is a BM25 index of line windows. It is immutable once built and
// safe for concurrent searches.
type Index struct {
	opts     Options
	windows  []window
	postings map[string][]posting
	avgLen   float64
	lines    map[string][]string // file lines, for hit lines
}

// Build indexes files (path → content) in windows.
func Build(files map[string]string, opts Options) *Index {
	opts = opts.withDefaults()
	x := &Index{opts: opts, postings: map[string][]posting{}, lines: map[string][]string{}}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	total := 0
	for _, p := range paths {
		lines := splitLines(files[p])
		x.lines[p] = lines
		for first := 1; first <= len(lines); first += opts.Stride {
			last := min(first+opts.WindowLines-1, len(lines))
			tf := map[string]int32{}
			n := 0
			for _, l := range lines[first-1 : last] {
				for _, t := range Tokenize(l) {
					tf[t]++
					n++
				}
			}
			doc := int32(len(x.windows))
			x.windows = append(x.windows, window{path: p, start: first, end: last, length: n})
			for t, c := range tf {
				x.postings[t] = append(x.postings[t], posting{doc, c})
			}
			total += n
			if last == len(lines) {
				break
			}
		}
	}
	if len(x.windows) > 0 {
		x.avgLen = float64(total) / float64(len(x.windows))
	}
	return x
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// Windows is the number of windows.
func (x *Index) Windows() int { return len(x.windows) }

// Hit is a scored window.
type Hit struct {
	Path       string
	Start, End int
	Score      float64
}

// Search returns the k best windows for query (all matching when k ≤ 0),
// best first; ties by path then start line.
func (x *Index) Search(query string, k int) []Hit {
	terms := uniqueTerms(query)
	n := float64(len(x.windows))
	scores := map[int32]float64{}
	for _, t := range terms {
		ps := x.postings[t]
		if len(ps) == 0 {
			continue
		}
		df := float64(len(ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range ps {
			tf := float64(p.tf)
			dl := float64(x.windows[p.doc].length)
			norm := x.opts.K1 * (1 - x.opts.B + x.opts.B*dl/x.avgLen)
			scores[p.doc] += idf * tf * (x.opts.K1 + 1) / (tf + norm)
		}
	}
	hits := make([]Hit, 0, len(scores))
	for d, s := range scores {
		w := x.windows[d]
		hits = append(hits, Hit{Path: w.path, Start: w.start, End: w.end, Score: s})
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Path, b.Path), cmp.Compare(a.Start, b.Start))
	})
	if k > 0 && len(hits) > k {
		hits = hits[:k]
	}
	return hits
}

func uniqueTerms(text string) []string {
	ts := Tokenize(text)
	slices.Sort(ts)
	return slices.Compact(ts)
}

// Candidates returns the best windows for query as assembler candidates:
// score = BM25, hit lines = the window's lines that contain a query term.
func (x *Index) Candidates(query string) []assemble.Candidate {
	hits := x.Search(query, x.opts.Candidates)
	terms := map[string]bool{}
	for _, t := range uniqueTerms(query) {
		terms[t] = true
	}
	out := make([]assemble.Candidate, 0, len(hits))
	for _, h := range hits {
		c := assemble.Candidate{
			ID:      h.Path + "#L" + strconv.Itoa(h.Start),
			Path:    h.Path,
			Ranges:  []ranges.Range{{Start: h.Start, End: h.End}},
			Score:   h.Score,
			Sources: []string{"bm25"},
			Kind:    "code",
		}
		if x.opts.MaxHits > 0 {
			lines := x.lines[h.Path]
			for l := h.Start; l <= h.End && len(c.Hits) < x.opts.MaxHits; l++ {
				for _, t := range Tokenize(lines[l-1]) {
					if terms[t] {
						c.Hits = append(c.Hits, l)
						break
					}
				}
			}
		}
		out = append(out, c)
	}
	return out
}
