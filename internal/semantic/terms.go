package semantic

import (
	"hash/maphash"
	"slices"
	"unsafe"

	"github.com/ctxls/ctxls/internal/index/analysis"
)

// dict numbers the terms one goroutine has seen, in the order it saw
// them. Its lookup is an open-addressing table over the terms' bytes (a
// workspace's every term passes through here: a Go map keyed by string
// cost a third of the bagging), with each term's stopword verdict kept so
// that it is judged once.
type dict struct {
	terms  []string
	stop   []bool   // per id: a stopword, never counted
	hashes []uint32 // per id
	slots  []int32  // id+1; 0: empty. Its length is a power of two.
	seed   maphash.Seed
}

func newDict() *dict { return &dict{slots: make([]int32, 1<<12), seed: maphash.MakeSeed()} }

// id returns term's id, numbering it when it is new.
func (d *dict) id(term []byte) int32 {
	h := uint32(maphash.Bytes(d.seed, term))
	mask := len(d.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		s := d.slots[i]
		if s == 0 {
			id := int32(len(d.terms))
			d.terms = append(d.terms, string(term))
			d.stop = append(d.stop, stopword(term))
			d.hashes = append(d.hashes, h)
			d.slots[i] = id + 1
			if 2*len(d.terms) > len(d.slots) {
				d.grow()
			}
			return id
		}
		if d.hashes[s-1] == h && d.terms[s-1] == string(term) {
			return s - 1
		}
	}
}

// grow doubles the table.
func (d *dict) grow() {
	slots := make([]int32, 2*len(d.slots))
	mask := len(slots) - 1
	for id, h := range d.hashes {
		i := int(h) & mask
		for slots[i] != 0 {
			i = (i + 1) & mask
		}
		slots[i] = int32(id) + 1
	}
	d.slots = slots
}

// release drops the lookup (the terms stay): bagging is over.
func (d *dict) release() { d.slots, d.hashes, d.stop = nil, nil, nil }

// modelIDs maps the dictionary's ids to m's vocabulary (-1: unknown).
func (d *dict) modelIDs(m *Model) []int32 {
	out := make([]int32, len(d.terms))
	for i, t := range d.terms {
		out[i] = -1
		if id, ok := m.id(t); ok {
			out[i] = int32(id)
		}
	}
	return out
}

// bag is a chunk's distinct terms (ids of its file's dict, in order of
// first occurrence) with their counts: a view of its fileBags.
type bag struct {
	ids    []int32
	counts []int32
	total  int32 // terms counted, stopwords excluded
}

// bagger turns texts into bags; one per goroutine, with its own dict.
type bagger struct {
	d *dict
	// ids and counts are scratch space for a file's bags (bagFile), buf
	// for the analyzer's terms (add).
	ids, counts []int32
	buf         []byte
	cnt         []int32 // per dict id, of the current bag
	touched     []int32 // dict ids of the current bag, in order
}

func newBagger() *bagger { return &bagger{d: newDict()} }

// add counts the terms of text. The text is read in place (the analyzer
// does not write its input) and the terms go to the bagger's one buffer:
// the texts of a whole workspace pass through here.
func (g *bagger) add(text string) {
	g.buf = analysis.VisitBuf(unsafe.Slice(unsafe.StringData(text), len(text)), g.buf, func(term []byte, _, _ int, numeric bool) {
		if numeric {
			return
		}
		id := g.d.id(term)
		if g.d.stop[id] {
			return
		}
		for int(id) >= len(g.cnt) {
			g.cnt = append(g.cnt, 0)
		}
		if g.cnt[id] == 0 {
			g.touched = append(g.touched, id)
		}
		g.cnt[id]++
	})
}

// take appends to f the bag of what was added since the last take.
func (g *bagger) take(f *fileBags) {
	var total int32
	for _, id := range g.touched {
		f.ids = append(f.ids, id)
		f.counts = append(f.counts, g.cnt[id])
		total += g.cnt[id]
		g.cnt[id] = 0
	}
	f.ends = append(f.ends, int32(len(f.ids)))
	f.totals = append(f.totals, total)
	g.touched = g.touched[:0]
}

// fileBags are the bags of one file's chunks, in chunk order, in flat
// slices: a build holds the bags of every chunk of the workspace while it
// trains, and two small slices per chunk cost their headers and their
// allocations' rounding on top of the entries.
type fileBags struct {
	hash        string
	dict        *dict   // the dict of the bags' ids
	ids, counts []int32 // the bags, one after another
	ends        []int32 // bag i is [ends[i-1], ends[i])
	totals      []int32 // per bag: the terms counted, stopwords excluded
}

// len is the number of bags.
func (f *fileBags) len() int { return len(f.ends) }

// bag returns bag i.
func (f *fileBags) bag(i int) bag {
	var start int32
	if i > 0 {
		start = f.ends[i-1]
	}
	return bag{ids: f.ids[start:f.ends[i]], counts: f.counts[start:f.ends[i]], total: f.totals[i]}
}

// entry is a term of a bag in a model's vocabulary.
type entry struct {
	id    int32 // model id
	count int32
}

// entries returns b's terms that m knows, by model id (ascending: a fixed
// order for the floating-point sums), given its dict's table (modelIDs),
// and how many occurrences they have.
func (b bag) entries(table []int32, dst []entry) ([]entry, int32) {
	dst = dst[:0]
	var known int32
	for i, id := range b.ids {
		if m := table[id]; m >= 0 {
			dst = append(dst, entry{m, b.counts[i]})
			known += b.counts[i]
		}
	}
	slices.SortFunc(dst, func(x, y entry) int { return int(x.id - y.id) })
	return dst, known
}

// known is how many of b's term occurrences m knows (entries' second
// result, without the entries).
func (b bag) known(table []int32) int32 {
	var n int32
	for i, id := range b.ids {
		if table[id] >= 0 {
			n += b.counts[i]
		}
	}
	return n
}

// queryEntries are the distinct terms of a query that m knows, each
// counted once.
func queryEntries(m *Model, text string) []entry {
	g := newBagger()
	g.add(text)
	var f fileBags
	g.take(&f)
	b := f.bag(0)
	for i := range b.counts {
		b.counts[i] = 1
	}
	e, _ := b.entries(g.d.modelIDs(m), nil)
	return e
}

// stopword reports whether term carries no topic: English function words
// and the keywords every language repeats.
func stopword(term []byte) bool {
	switch string(term) {
	case "a", "an", "and", "are", "as", "at", "be", "but", "by", "can", "do", "does", "for", "from",
		"has", "have", "if", "in", "into", "is", "it", "its", "no", "not", "of", "on", "or", "so",
		"than", "that", "the", "then", "there", "these", "this", "those", "to", "was", "were", "when",
		"which", "while", "will", "with", "would", "we", "you", "your", "our", "they", "he", "she",
		"his", "her", "them", "us", "me", "my", "i", "func", "return", "else", "var", "const", "type",
		"struct", "interface", "package", "import", "go", "defer", "range", "nil", "true", "false",
		"def", "self", "cls", "none", "elif", "pass", "lambda", "class", "public", "private",
		"protected", "static", "final", "void", "new", "super", "let", "fn", "pub", "impl",
		"mut", "use", "mod", "crate", "match", "loop", "break", "continue", "switch", "case", "default",
		"try", "catch", "throw", "throws", "function", "export", "extends", "implements", "typeof",
		"instanceof", "undefined", "null", "int", "string", "bool", "err", "error":
		return true
	}
	return false
}
