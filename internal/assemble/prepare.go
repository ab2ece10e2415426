package assemble

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/internal/ranges"
)

// cand is a candidate being assembled.
type cand struct {
	Candidate
	file   *fileText
	handle string
	// prio is the candidate's position in the priority order (0 = best).
	prio int
	// merged counts the input candidates folded into this one (itself included).
	merged int
	// rate is the producer's token count per line (0 if it gave none): an
	// estimate of the cost of any subset of the lines, for pruning.
	rate float64
	// alsoIn are the other paths of the candidates folded into this one for
	// their tracking hash (sorted and unique once dedup is done).
	alsoIn []string
}

// handleOf names a candidate stably by what it shows: "path#L12-40,L50-60".
func Handle(path string, rs []ranges.Range) string {
	var sb strings.Builder
	sb.WriteString(path)
	sb.WriteString("#")
	for i, r := range rs {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteByte('L')
		sb.WriteString(r.String())
	}
	return sb.String()
}

// ParseHandle reads a handle written by an assembly back into a path and
// line ranges.
func ParseHandle(h string) (string, []ranges.Range, error) {
	i := strings.LastIndex(h, "#L")
	if i < 0 {
		return "", nil, &ParamError{"handles", "malformed handle " + quote(h) + " (want path#L12-40)"}
	}
	rs, err := ranges.Parse(strings.ReplaceAll(h[i+1:], "L", ""))
	if err != nil || len(rs) == 0 {
		return "", nil, &ParamError{"handles", "malformed handle " + quote(h) + " (want path#L12-40)"}
	}
	return h[:i], rs, nil
}

func quote(s string) string { return "\"" + s + "\"" }

// prepare validates candidates, loads their files, normalizes and stitches
// their ranges (step 1), merges candidates that share an ID, and returns them
// in priority order. Candidates that cannot be used go to omitted.
func (a *assembly) prepare(in []Candidate) []*cand {
	byID := map[string]*cand{}
	out := make([]*cand, 0, len(in))
	var withheld []Candidate
	for i := range in {
		c := in[i]
		if math.IsNaN(c.Score) || math.IsInf(c.Score, 0) {
			c.Score = 0 // JSON cannot carry it; the reason says why
			a.omit(&cand{Candidate: c, handle: Handle(c.Path, ranges.Normalize(c.Ranges, math.MaxInt))}, 0, ReasonInvalidScore)
			continue
		}
		f, ok := a.files.get(c.Path)
		if !ok {
			a.omit(&cand{Candidate: c, handle: Handle(c.Path, ranges.Normalize(c.Ranges, math.MaxInt))}, 0, ReasonNoFile)
			continue
		}
		rs := ranges.Normalize(c.Ranges, f.lines)
		if len(rs) == 0 {
			a.omit(&cand{Candidate: c, handle: Handle(c.Path, ranges.Normalize(c.Ranges, math.MaxInt))}, 0, ReasonEmptyRange)
			continue
		}
		c.Sources = sortedUnique(c.Sources)
		c.Hits = sortedUniqueInts(c.Hits)
		if c.Language == "" {
			c.Language = languageOf(c.Path)
		}
		if !ranges.Equal(rs, c.Ranges) {
			c.Tokens = 0 // the producer's count was for other lines
		}
		if c.Withheld != "" {
			c.Ranges = rs
			withheld = append(withheld, c)
			continue
		}
		idKey := c.ID + "\x00" + c.Path
		if c.ID != "" {
			if prev, ok := byID[idKey]; ok {
				a.mergeSameID(prev, c, rs)
				continue
			}
		}
		c.Ranges = rs
		x := &cand{Candidate: c, file: f, merged: 1}
		if c.Tokens > 0 {
			x.rate = float64(c.Tokens) / float64(ranges.Total(rs))
		}
		if c.ID != "" {
			byID[idKey] = x
		}
		out = append(out, x)
	}
	// A withheld candidate is omitted with the producer's reason, once per
	// ID, unless the same ID also came without the reason: then it is
	// that candidate's.
	omitted := map[string]bool{}
	for _, c := range withheld {
		idKey := c.ID + "\x00" + c.Path
		if c.ID != "" && (byID[idKey] != nil || omitted[idKey]) {
			continue
		}
		omitted[idKey] = true
		a.omit(&cand{Candidate: c, handle: Handle(c.Path, c.Ranges)}, c.Tokens, c.Withheld)
	}
	for _, c := range out {
		if st := a.stitch(c.file, c.Ranges); !ranges.Equal(st, c.Ranges) {
			c.Ranges, c.Tokens = st, 0
		}
		c.handle = Handle(c.Path, c.Ranges)
	}
	slices.SortFunc(out, comparePriority)
	for i, c := range out {
		c.prio = i
	}
	return out
}

// mergeSameID folds a second candidate with the same ID into the first one.
// The result does not depend on which came first.
func (a *assembly) mergeSameID(prev *cand, c Candidate, rs []ranges.Range) {
	u := ranges.Union(prev.Ranges, rs)
	if !ranges.Equal(u, prev.Ranges) || !ranges.Equal(u, rs) {
		prev.Tokens = 0
	} else {
		prev.Tokens = max(prev.Tokens, c.Tokens)
	}
	prev.Ranges = u
	if c.Tokens > 0 {
		prev.rate = max(prev.rate, float64(c.Tokens)/float64(ranges.Total(rs)))
	}
	prev.Score = max(prev.Score, c.Score)
	prev.Sources = sortedUnique(append(prev.Sources, c.Sources...))
	prev.Hits = sortedUniqueInts(append(prev.Hits, c.Hits...))
	prev.Symbol = minNonEmpty(prev.Symbol, c.Symbol)
	prev.Kind = minNonEmpty(prev.Kind, c.Kind)
	prev.TrackingHash = minNonEmpty(prev.TrackingHash, c.TrackingHash)
	prev.Reserve = minNonEmpty(prev.Reserve, c.Reserve)
	prev.Lead = prev.Lead || c.Lead
	if prev.Signature.Empty() || (!c.Signature.Empty() && ranges.Compare(c.Signature, prev.Signature) < 0) {
		prev.Signature = c.Signature
	}
	if prev.Doc.Empty() || (!c.Doc.Empty() && ranges.Compare(c.Doc, prev.Doc) < 0) {
		prev.Doc = c.Doc
	}
	prev.merged++
	a.stats.DedupRemoved++
}

// stitch joins a candidate's own ranges across small gaps that cost fewer
// tokens than a second part's header would.
func (a *assembly) stitch(f *fileText, rs []ranges.Range) []ranges.Range {
	if len(rs) < 2 || a.req.Policy.StitchGap < 0 {
		return rs
	}
	header := a.emptyPartCost(f.path)
	return ranges.Stitch(rs, a.req.Policy.StitchGap, header, func(g ranges.Range) int {
		return a.count(f.slice(g.Start, g.End))
	})
}

// comparePriority is the total order candidates are considered in: score
// descending, then path, then ranges, then the remaining fields, so that
// equal-looking candidates still have one order whatever the input order.
// (Written as early returns, not cmp.Or: it runs inside the sort of every
// request, and cmp.Or would evaluate every comparison.)
func comparePriority(x, y *cand) int {
	if c := cmp.Compare(y.Score, x.Score); c != 0 {
		return c
	}
	if c := strings.Compare(x.Path, y.Path); c != 0 {
		return c
	}
	if c := slices.CompareFunc(x.Ranges, y.Ranges, ranges.Compare); c != 0 {
		return c
	}
	for _, p := range [][2]string{{x.ID, y.ID}, {x.TrackingHash, y.TrackingHash}, {x.Symbol, y.Symbol}, {x.Kind, y.Kind}, {x.Reserve, y.Reserve}, {x.Language, y.Language}} {
		if c := strings.Compare(p[0], p[1]); c != 0 {
			return c
		}
	}
	if c := slices.Compare(x.Sources, y.Sources); c != 0 {
		return c
	}
	if c := slices.Compare(x.Hits, y.Hits); c != 0 {
		return c
	}
	if c := ranges.Compare(x.Signature, y.Signature); c != 0 {
		return c
	}
	return ranges.Compare(x.Doc, y.Doc)
}

func sortedUnique(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

func sortedUniqueInts(s []int) []int {
	if len(s) == 0 {
		return nil
	}
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

func minNonEmpty(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return min(a, b)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
