package retrieve

import (
	"cmp"
	"slices"
	"strings"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/index/chunk"
)

// PathOptions are the path channel's knobs.
type PathOptions struct {
	// PathStrength scales the path channel's share of each file by how
	// strongly the question names it: its path score / 3, between 0.5 and
	// PathStrength (0: by rank alone). Not for a diff, whose text names
	// paths and words that are not a question's (measured: a loss).
	PathStrength float64
}

// pathState is the path channel's per-request state.
type pathState struct {
	// pathStrength is the path channel's file score of each chunk it
	// ranked (Options.PathStrength).
	pathStrength map[index.ChunkID]float64
}

// path matches request words and paths against file paths; each matching
// file contributes its best chunk: the one that defines or mentions most
// request terms, else its header.
func (r *run) path() ([]index.ChunkID, error) {
	if len(r.q.Paths)+len(r.q.Words)+len(r.q.Identifiers) == 0 {
		return nil, nil
	}
	type fileScore struct {
		path  string
		score float64
	}
	var files []fileScore
	words := pathMatchWords(r.q)
	// Only paths that share a word with the query can score: the index
	// finds them (PathWords keys on a path's lower-cased stem, its parts
	// and its directory names, a superset of what pathScore rewards).
	keys := make([]string, 0, len(words)+len(r.q.Paths))
	for w := range words {
		keys = append(keys, w)
	}
	for _, qp := range r.q.Paths {
		base := qp[strings.LastIndexByte(qp, '/')+1:]
		keys = append(keys, lowerASCII(strings.TrimSuffix(base, pathExt(base))))
	}
	mentions := slices.Clone(r.q.Paths)
	if m, ok := subjectComponent(r.req.Query); ok && !slices.Contains(mentions, m) && !r.isDir(m) {
		mentions = append(mentions, m)
	}
	for _, id := range r.q.Identifiers {
		if m, ok := moduleMention(id); ok && !slices.Contains(mentions, m) {
			mentions = append(mentions, m)
		}
	}
	ms := newPathMentions(mentions)
	for _, p := range r.snap.PathsWithWords(keys) {
		if s := ms.score(p, words, r.req.Diff == ""); s > 0 && r.allowed(p) {
			files = append(files, fileScore{p, s})
		}
	}
	slices.SortStableFunc(files, func(a, b fileScore) int { return cmp.Compare(b.score, a.score) })
	if len(files) > 20 {
		files = files[:20]
	}
	ids := make([]index.ChunkID, 0, len(files))
	r.pathStrength = make(map[index.ChunkID]float64, len(files))
	for _, f := range files {
		if id, ok := r.bestChunk(f.path, words); ok {
			ids = append(ids, id)
			r.pathStrength[id] = f.score
		}
	}
	return ids, nil
}

func pathExt(p string) string {
	base := p[strings.LastIndexByte(p, '/')+1:]
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		return base[i:]
	}
	return ""
}

// bestChunk is the chunk of path that names most request words (by symbol
// and identifiers), else the header chunk, else the first chunk.
func (r *run) bestChunk(path string, words map[string]bool) (index.ChunkID, bool) {
	cs := r.files().ChunksOf(path)
	if len(cs) == 0 {
		return "", false
	}
	best, bestScore := -1, 0
	header := -1
	for i, c := range cs {
		if c.Kind == chunk.KindHeader && header < 0 {
			header = i
		}
		n := 0
		if words[strings.ToLower(c.Symbol)] {
			n += 3
		}
		for _, d := range c.Defines {
			if words[strings.ToLower(d)] {
				n++
			}
		}
		if n > bestScore {
			best, bestScore = i, n
		}
	}
	switch {
	case best >= 0:
		return cs[best].ID, true
	case header >= 0:
		return cs[header].ID, true
	}
	return cs[0].ID, true
}

// pathScore scores how well path p matches the request's paths and words:
// a whole path or suffix 10, the same path without extension 5, a base name
// equal to a word 3, a word part of the base name 1 (with camel, camel-case
// parts too: index.StemParts), a directory named by a word 0.5 each. A
// diff's words are its code's: camel-case parts of file names match them
// by accident (measured: the diff task's MRR −0.005 on the eval and the
// held-out check), a question's name the component it is about.
func pathScore(p string, qpaths []string, words map[string]bool, camel bool) float64 {
	return newPathMentions(qpaths).score(p, words, camel)
}

// pathMention is a path the request mentions, with the forms pathScore
// compares a file's path and stem with, made once per request rather
// than once per file scored (a diff mentions every changed file, and
// thousands of paths are scored against them).
type pathMention struct {
	path, stem string
	slashStem  string // "/" + stem
	// isPackageInit's forms of stem; bare: stem has no '/'.
	initExact, initSuffix, dunderSuffix, dunderExact string
	bare                                             bool
}

// pathMentions are the paths a request mentions, in order.
type pathMentions []pathMention

func newPathMentions(qpaths []string) pathMentions {
	ms := make(pathMentions, len(qpaths))
	for i, qp := range qpaths {
		qstem := strings.TrimSuffix(qp, pathExt(qp))
		ms[i] = pathMention{
			path: qp, stem: qstem, slashStem: "/" + qstem,
			initExact: qstem + "/__init__", initSuffix: "/" + qstem + "/__init__",
			dunderSuffix: "/__" + qstem + "__", dunderExact: "__" + qstem + "__",
			bare: !strings.Contains(qstem, "/"),
		}
	}
	return ms
}

// isPackageInit reports whether file stem is the package file of the
// module path m.stem: Python's m/__init__ or, for a bare file name, its
// dunder form (init.py names __init__.py).
func (m *pathMention) isPackageInit(stem string) bool {
	return stem == m.initExact || strings.HasSuffix(stem, m.initSuffix) ||
		m.bare && strings.HasSuffix(stem, m.dunderSuffix) || stem == m.dunderExact
}

// score is pathScore(p, the mentioned paths, words, camel).
func (ms pathMentions) score(p string, words map[string]bool, camel bool) float64 {
	s := 0.0
	stem := strings.TrimSuffix(p, pathExt(p))
	for i := range ms {
		m := &ms[i]
		qp := m.path
		switch {
		case p == qp || (strings.HasSuffix(p, qp) && len(p) > len(qp) && p[len(p)-len(qp)-1] == '/'):
			s += 10
		case stem == m.stem || strings.HasSuffix(stem, m.slashStem) || m.isPackageInit(stem):
			s += 5
		}
	}
	slash := strings.LastIndexByte(p, '/')
	base := p[slash+1:]
	base = strings.TrimSuffix(base, pathExt(base))
	if lower := lowerASCII(base); words[lower] || words[strings.Trim(lower, "_")] {
		s += 3
	} else {
		index.StemParts(base, camel, func(part string) {
			if len(part) >= 4 && words[part] {
				s++
			}
		})
	}
	if slash > 0 {
		for dirs := p[:slash]; dirs != ""; {
			d, rest, _ := strings.Cut(dirs, "/")
			if words[lowerASCII(d)] {
				s += 0.5
			}
			dirs = rest
		}
	}
	return s
}

// moduleMention turns a dotted name of the question whose parts are all
// lower-case — a Python or Java module path such as sphinx.theming — into
// the slash path it names (sphinx/theming), for pathScore to match against
// file stems. Names with an upper-case part (pkg.Func, obj.Method) are
// members, not modules.
func moduleMention(id string) (string, bool) {
	if !strings.Contains(id, ".") || strings.ContainsAny(id, "/") || lowerASCII(id) != id {
		return "", false
	}
	return strings.ReplaceAll(id, ".", "/"), true
}

// subjectComponent is the component a question's first line is labelled
// with, by the convention of commit subjects and issue titles
// ("pytester: pop TOX_ENV_DIR", "net/http: …", "core.router: …"): a path
// or module name before a colon that ends the first word, or a
// Conventional Commits scope ("fix(http): …"); module dots become slashes.
func subjectComponent(q string) (string, bool) {
	line, _, _ := strings.Cut(strings.TrimSpace(q), "\n")
	word, rest, ok := strings.Cut(line, ":")
	if !ok || word == "" || strings.ContainsAny(word, " \t") || !strings.HasPrefix(rest, " ") {
		return "", false
	}
	// A Conventional Commits scope names the component: "perf(postgres): …".
	if kind, scope, ok := strings.Cut(strings.TrimSuffix(word, "!"), "("); ok && strings.HasSuffix(scope, ")") {
		if !conventionalTypes[strings.ToLower(kind)] {
			return "", false
		}
		word = strings.TrimSuffix(scope, ")")
		if word == "" {
			return "", false
		}
	}
	for _, c := range word {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_-./", c)) {
			return "", false
		}
	}
	if conventionalTypes[strings.ToLower(word)] {
		return "", false
	}
	if strings.Contains(word, ".") && !strings.Contains(word, "/") && !slices.Contains(pathExts, pathExt(word)) {
		word = strings.ReplaceAll(word, ".", "/")
	}
	return word, true
}

// conventionalTypes are the labels of Conventional Commits and their
// kind ("fix: …", "docs: …"): kinds of change, not components.
var conventionalTypes = map[string]bool{"feat": true, "feature": true, "fix": true, "bugfix": true, "hotfix": true, "bug": true,
	"chore": true, "docs": true, "doc": true, "refactor": true, "test": true, "tests": true, "style": true, "perf": true,
	"build": true, "ci": true, "revert": true, "release": true, "wip": true, "deps": true, "misc": true, "cleanup": true}

// isDir reports whether some indexed path has a directory that the slash
// path m ends (a component label that names a directory names many files,
// not the one whose stem it is).
func (r *run) isDir(m string) bool {
	lm := lowerASCII(m)
	base := lm[strings.LastIndexByte(lm, '/')+1:]
	for _, p := range r.snap.PathsWithWords([]string{base}) {
		if i := strings.LastIndexByte(p, '/'); i >= 0 {
			if d := lowerASCII(p[:i]); d == lm || strings.HasSuffix(d, "/"+lm) {
				return true
			}
		}
	}
	return false
}

// lowerASCII lower-cases s, without allocating when it has no upper-case
// ASCII letter.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' || c >= 0x80 {
			return strings.ToLower(s)
		}
	}
	return s
}

// pathScale scales the path channel's share of each file by how strongly
// the question names it (Options.PathStrength): a file the question names
// outright (sphinx.theming, init.py, a path) counts more than one whose
// name shares a word with it. Nil — by rank alone — for a diff.
func (r *run) pathScale() func(index.ChunkID) float64 {
	k := r.e.opts.PathStrength
	if k <= 0 || r.req.Diff != "" {
		return nil
	}
	return func(id index.ChunkID) float64 { return min(k, max(0.5, r.pathStrength[id]/3)) }
}
