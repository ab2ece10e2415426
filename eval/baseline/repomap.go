package baseline

import (
	"cmp"
	"math"
	"path"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/ranges"
)

// Def is one named definition of a file: its name and the lines of its
// declaration (a one-line signature: Line).
type Def struct {
	Name string
	Line int
}

// MapFile is one file of a repository map's input: what it defines and
// how many of its units refer to each name.
type MapFile struct {
	Path string
	Defs []Def
	Refs map[string]int // name → units referring to it
}

// RepoMap is an aider-like repository map (aider's repomap.py, written
// again here): a graph of files where a file that refers to a name points
// to the files defining it, ranked by PageRank personalised by the chat
// file, each definition taking its definers' share of the rank that flows
// into it; the map is the best definitions' one-line signatures.
type RepoMap struct {
	paths   []string       // sorted
	pathIdx map[string]int // path → node
	defs    map[string][]int
	// defLines[node][name] are the definition lines of name in that file.
	defLines []map[string][]int
	edges    []mapEdge // by from, then name, then to
}

type mapEdge struct {
	from, to int
	name     string
	refs     int
}

// BuildRepoMap builds the graph of files (any order; paths unique).
func BuildRepoMap(files []MapFile) *RepoMap {
	m := &RepoMap{pathIdx: map[string]int{}, defs: map[string][]int{}}
	fs := slices.Clone(files)
	slices.SortFunc(fs, func(a, b MapFile) int { return strings.Compare(a.Path, b.Path) })
	for i, f := range fs {
		m.paths = append(m.paths, f.Path)
		m.pathIdx[f.Path] = i
		lines := map[string][]int{}
		for _, d := range f.Defs {
			if len(lines[d.Name]) == 0 {
				m.defs[d.Name] = append(m.defs[d.Name], i)
			}
			lines[d.Name] = append(lines[d.Name], d.Line)
		}
		for _, ls := range lines {
			slices.Sort(ls)
		}
		m.defLines = append(m.defLines, lines)
	}
	for i, f := range fs {
		names := make([]string, 0, len(f.Refs))
		for n := range f.Refs {
			if len(m.defs[n]) > 0 {
				names = append(names, n)
			}
		}
		slices.Sort(names)
		for _, n := range names {
			for _, to := range m.defs[n] {
				m.edges = append(m.edges, mapEdge{from: i, to: to, name: n, refs: f.Refs[n]})
			}
		}
	}
	return m
}

// Candidates ranks the definitions for a chat file and the identifiers
// mentioned in the message (×10, as aider weighs them) and returns them
// as assembler candidates, best first: each definition's line, scored by
// rank. The chat file's own definitions are left out (aider sends the
// chat file apart).
func (m *RepoMap) Candidates(chat string, mentioned []string, limit int) []assemble.Candidate {
	var chats []string
	if chat != "" {
		chats = []string{chat}
	}
	return m.Rank(MapQuery{Chat: chats, Mentioned: mentioned, Limit: limit})
}

// MapQuery is what a repository map is ranked for.
type MapQuery struct {
	// Chat are the files in the chat: PageRank starts from them, their
	// references weigh ×50 and their own definitions are left out.
	Chat []string
	// Mentioned are the identifiers of the message: references to them
	// weigh ×10.
	Mentioned []string
	// MentionedFiles are files the message names: PageRank starts from
	// them too.
	MentionedFiles []string
	// PathMatch also starts PageRank from every file one of whose path
	// components (a directory, the file name, the file name without its
	// extension) is a mentioned identifier, as aider does.
	PathMatch bool
	// Limit is how many ranked definitions to return (0: all).
	Limit int
}

// Rank ranks the definitions for q and returns them as assembler
// candidates, best first: each definition's line, scored by rank.
// PageRank is personalised by the chat, mentioned and path-matched files
// (uniform when there are none).
func (m *RepoMap) Rank(q MapQuery) []assemble.Candidate {
	n := len(m.paths)
	if n == 0 {
		return nil
	}
	ment := map[string]bool{}
	for _, x := range q.Mentioned {
		ment[x] = true
	}
	chat := make([]bool, n)
	pers := make([]float64, n)
	personal := false
	for _, p := range q.Chat {
		if i, ok := m.pathIdx[p]; ok {
			chat[i], pers[i], personal = true, 1, true
		}
	}
	for _, p := range q.MentionedFiles {
		if i, ok := m.pathIdx[p]; ok {
			pers[i], personal = 1, true
		}
	}
	if q.PathMatch && len(ment) > 0 {
		for i, p := range m.paths {
			if pathMentioned(p, ment) {
				pers[i], personal = 1, true
			}
		}
	}
	if personal {
		sum := 0.0
		for _, v := range pers {
			sum += v
		}
		for i := range pers {
			pers[i] /= sum
		}
	} else {
		for i := range pers {
			pers[i] = 1 / float64(n)
		}
	}
	weights := make([]float64, len(m.edges))
	out := make([]float64, n)
	for i, e := range m.edges {
		mul := 1.0
		if ment[e.name] {
			mul *= 10
		}
		if len(e.name) >= 8 && (strings.Contains(e.name, "_") || hasUpperAfterLower(e.name)) {
			mul *= 10
		}
		if strings.HasPrefix(e.name, "_") {
			mul *= 0.1
		}
		if len(m.defs[e.name]) > 5 {
			mul *= 0.1
		}
		if chat[e.from] {
			mul *= 50
		}
		weights[i] = mul * math.Sqrt(float64(e.refs))
		out[e.from] += weights[i]
	}
	// Personalised PageRank (alpha 0.85; dangling mass goes by the
	// personalisation, as networkx does with dangling=personalization).
	rank := slices.Clone(pers)
	next := make([]float64, n)
	for range 100 {
		dangling := 0.0
		for i := range rank {
			if out[i] == 0 {
				dangling += rank[i]
			}
		}
		for i := range next {
			next[i] = (0.15 + 0.85*dangling) * pers[i]
		}
		for i, e := range m.edges {
			next[e.to] += 0.85 * rank[e.from] * weights[i] / out[e.from]
		}
		diff := 0.0
		for i := range rank {
			diff += math.Abs(next[i] - rank[i])
		}
		rank, next = next, rank
		if diff < 1e-8*float64(n) {
			break
		}
	}
	type key struct {
		file int
		name string
	}
	defRank := map[key]float64{}
	for i, e := range m.edges {
		defRank[key{e.to, e.name}] += rank[e.from] * weights[i] / out[e.from]
	}
	type ranked struct {
		key
		v float64
	}
	all := make([]ranked, 0, len(defRank))
	for k, v := range defRank {
		if chat[k.file] {
			continue
		}
		all = append(all, ranked{k, v})
	}
	slices.SortFunc(all, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(b.v, a.v), strings.Compare(m.paths[a.file], m.paths[b.file]), strings.Compare(a.name, b.name))
	})
	var cands []assemble.Candidate
	for i, r := range all {
		if q.Limit > 0 && len(cands) >= q.Limit {
			break
		}
		for _, l := range m.defLines[r.file][r.name] {
			cands = append(cands, assemble.Candidate{
				Path: m.paths[r.file], Ranges: []ranges.Range{{Start: l, End: l}},
				Score: 1 / float64(i+1), Sources: []string{"repomap"}, Kind: "code", Symbol: r.name,
			})
		}
	}
	return cands
}

// pathMentioned tells whether a directory of p, its file name or its file
// name without the extension is in ment.
func pathMentioned(p string, ment map[string]bool) bool {
	parts := strings.Split(p, "/")
	base := parts[len(parts)-1]
	if ment[strings.TrimSuffix(base, path.Ext(base))] {
		return true
	}
	for _, c := range parts {
		if ment[c] {
			return true
		}
	}
	return false
}

// Paths are the map's files, sorted.
func (m *RepoMap) Paths() []string { return m.paths }

func hasUpperAfterLower(s string) bool {
	lower := false
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= 'A' && r <= 'Z' && lower:
			return true
		}
	}
	return false
}
