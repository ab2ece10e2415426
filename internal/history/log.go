package history

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
)

// Options bound the history that is read and used.
type Options struct {
	// MaxCommits is how many commits are kept, newest first (default 2000).
	MaxCommits int
	// MaxFiles: a commit changing more files than this says nothing about
	// which files belong together and is dropped (default 50).
	MaxFiles int
	// HalfLife is the recency prior's half-life, in commits (default 140):
	// a change that many commits ago counts half as much as the latest.
	HalfLife float64
}

// DefaultOptions returns the defaults (measured on the eval: docs/quality.md).
func DefaultOptions() Options {
	return Options{MaxCommits: 2000, MaxFiles: 50, HalfLife: 140}
}

func (o Options) withDefaults() Options {
	d := DefaultOptions()
	if o.MaxCommits <= 0 {
		o.MaxCommits = d.MaxCommits
	}
	if o.MaxFiles <= 0 {
		o.MaxFiles = d.MaxFiles
	}
	if o.HalfLife <= 0 {
		o.HalfLife = d.HalfLife
	}
	return o
}

// Log is a workspace's recent history: the commits kept, newest first,
// each as the files it changed. A Log is immutable once built and safe
// for concurrent use.
type Log struct {
	head    string
	shallow bool
	opts    Options
	paths   []string // path table, sorted
	commits []commit // the kept commits, newest first

	once     sync.Once
	byPath   map[string]int32
	touches  [][]int32            // path index → the commits that changed it, newest first
	recency  []float64            // path index → the recency prior in [0, 1]
	postings map[string][]posting // message term → the kept commits whose message has it, in order
	avgLen   float64              // the kept commits' mean message length, in terms
}

// posting is a kept commit (its index) whose message has a term, and how
// many times.
type posting struct {
	commit, tf int32
}

// commit is a kept commit: its position in the log (0 is HEAD, counting
// dropped commits too), the files it changed, as sorted indices into the
// path table, and its message's terms (messageTerms).
type commit struct {
	pos   int32
	files []int32
	terms []string
}

// Head is the commit the log was read at.
func (l *Log) Head() string { return l.head }

// Shallow reports whether the repository is a shallow clone (its history
// stops early).
func (l *Log) Shallow() bool { return l.shallow }

// Len is the number of commits kept.
func (l *Log) Len() int { return len(l.commits) }

// New returns a log of the given commits, newest first, each the paths it
// changed, as if read at head: for history that comes from elsewhere, and
// for tests. Commits are filtered as Read filters them (MaxFiles), but
// none is taken for a root commit.
func New(head string, commits [][]string, opts Options) *Log {
	cs := make([]Commit, len(commits))
	for i, fs := range commits {
		cs[i] = Commit{Files: fs}
	}
	return FromCommits(head, cs, opts)
}

// Commit is a commit given to FromCommits: its message and the paths it
// changed.
type Commit struct {
	Message string
	Files   []string
}

// FromCommits is New with the commits' messages (Log.MessageMatches).
func FromCommits(head string, commits []Commit, opts Options) *Log {
	opts = opts.withDefaults()
	raw := make([]rawCommit, len(commits))
	for i, c := range commits {
		raw[i] = rawCommit{parents: 1, files: c.Files, message: c.Message}
	}
	return build(head, false, opts, raw, nil)
}

// Read reads the history of the work tree at root.
func Read(ctx context.Context, root string, opts Options) (*Log, error) {
	return Refresh(ctx, root, nil, opts)
}

// Refresh brings old (nil: none) up to root's HEAD: old itself when HEAD
// has not moved, the new commits on top of old when HEAD moved forward
// along a chain without merges, a full read otherwise. The result is the
// same as a full read in every case.
func Refresh(ctx context.Context, root string, old *Log, opts Options) (*Log, error) {
	opts = opts.withDefaults()
	sha, shallow, err := head(ctx, root)
	if err != nil {
		return nil, err
	}
	if old != nil && old.opts == opts { // a log read with other bounds is read again
		if old.head == sha {
			return old, nil
		}
		ok, err := linearSince(ctx, root, old.head, sha)
		if err != nil {
			return nil, err
		}
		if ok {
			raw, err := readLog(ctx, root, old.head+".."+sha, opts.MaxCommits)
			if err != nil {
				return nil, err
			}
			return build(sha, shallow, opts, raw, old), nil
		}
	}
	raw, err := readLog(ctx, root, sha, opts.MaxCommits)
	if err != nil {
		return nil, err
	}
	return build(sha, shallow, opts, raw, nil), nil
}

// build makes a Log of the raw commits (newest first) followed by the
// commits of base, keeping the newest MaxCommits.
func build(sha string, shallow bool, opts Options, raw []rawCommit, base *Log) *Log {
	var kept []posFiles
	n := min(len(raw), opts.MaxCommits)
	for i, c := range raw[:n] {
		if keep(c, opts) {
			kept = append(kept, posFiles{int32(i), c.files, messageTerms(c.message)})
		}
	}
	if base != nil {
		for _, c := range base.commits {
			pos := int(c.pos) + n
			if pos >= opts.MaxCommits {
				break
			}
			fs := make([]string, len(c.files))
			for i, id := range c.files {
				fs[i] = base.paths[id]
			}
			kept = append(kept, posFiles{int32(pos), fs, c.terms})
		}
	}
	return fromFiles(sha, shallow, opts, kept)
}

// posFiles is a kept commit's position, files (by path) and message
// terms.
type posFiles struct {
	pos   int32
	files []string
	terms []string
}

// keep reports whether a commit says which files change together: it has
// a parent (a root commit, or a shallow clone's boundary, lists every file
// as added) and changes at most MaxFiles files.
func keep(c rawCommit, opts Options) bool {
	return c.parents > 0 && len(c.files) > 0 && len(c.files) <= opts.MaxFiles
}

// fromFiles builds a Log of the commits' files, newest first.
func fromFiles(sha string, shallow bool, opts Options, kept []posFiles) *Log {
	set := map[string]bool{}
	for _, c := range kept {
		for _, f := range c.files {
			set[f] = true
		}
	}
	l := &Log{head: sha, shallow: shallow, opts: opts, paths: make([]string, 0, len(set))}
	for p := range set {
		l.paths = append(l.paths, p)
	}
	slices.Sort(l.paths)
	idx := make(map[string]int32, len(l.paths))
	for i, p := range l.paths {
		idx[p] = int32(i)
	}
	l.commits = make([]commit, len(kept))
	for i, c := range kept {
		ids := make([]int32, 0, len(c.files))
		for _, f := range c.files {
			ids = append(ids, idx[f])
		}
		slices.Sort(ids)
		l.commits[i] = commit{c.pos, slices.Compact(ids), c.terms}
	}
	return l
}

// index builds the per-file tables once.
func (l *Log) index() {
	l.once.Do(func() {
		l.byPath = make(map[string]int32, len(l.paths))
		for i, p := range l.paths {
			l.byPath[p] = int32(i)
		}
		l.touches = make([][]int32, len(l.paths))
		l.recency = make([]float64, len(l.paths))
		decay := math.Ln2 / l.opts.HalfLife
		top := 0.0
		for ci, c := range l.commits {
			w := math.Exp(-decay * float64(c.pos))
			for _, id := range c.files {
				l.touches[id] = append(l.touches[id], int32(ci))
				l.recency[id] += w
				top = max(top, l.recency[id])
			}
		}
		if top > 0 {
			for i := range l.recency {
				l.recency[i] = math.Log1p(l.recency[i]) / math.Log1p(top)
			}
		}
		l.postings = map[string][]posting{}
		total := 0
		for ci, c := range l.commits {
			total += len(c.terms)
			for i, t := range c.terms { // sorted: a term's repeats together
				if i > 0 && t == c.terms[i-1] {
					ps := l.postings[t]
					ps[len(ps)-1].tf++
					continue
				}
				l.postings[t] = append(l.postings[t], posting{int32(ci), 1})
			}
		}
		if len(l.commits) > 0 {
			l.avgLen = float64(total) / float64(len(l.commits))
		}
	})
}

// Recency is path's change prior in [0, 1]: the sum of its changes, each
// weighted by how recent it is (Options.HalfLife), log-scaled relative to
// the file that changed most (log(1+s)/log(1+max): a file changed a few
// times lately is not dwarfed by a changelog changed in every commit); 0
// for a file the kept commits never changed.
func (l *Log) Recency(path string) float64 {
	if l == nil {
		return 0
	}
	l.index()
	if i, ok := l.byPath[path]; ok {
		return l.recency[i]
	}
	return 0
}

// Scored is a file and how strongly it changed together with the given
// files.
type Scored struct {
	Path  string
	Score float64
}

// CoChanged returns the files that changed in the same commits as any of
// paths, at most k, strongest first (ties by path): each shared commit
// adds 1/log2(1+n) for a commit of n files, so a two-file commit says more
// than a forty-file one, times 2^(−age/halfLife) for a commit age commits
// back when halfLife > 0 (a pair that changed together lately says more).
// The given paths themselves are left out.
func (l *Log) CoChanged(paths []string, k int, halfLife float64) []Scored {
	if l == nil || k <= 0 {
		return nil
	}
	l.index()
	given := map[int32]bool{}
	seen := map[int32]bool{}
	var commits []int32
	for _, p := range paths {
		i, ok := l.byPath[p]
		if !ok || given[i] {
			continue
		}
		given[i] = true
		for _, ci := range l.touches[i] {
			if !seen[ci] {
				seen[ci] = true
				commits = append(commits, ci)
			}
		}
	}
	slices.Sort(commits)
	score := map[int32]float64{}
	for _, ci := range commits {
		ids := l.commits[ci].files
		w := 1 / math.Log2(1+float64(len(ids)))
		if halfLife > 0 {
			w *= math.Exp(-math.Ln2 / halfLife * float64(l.commits[ci].pos))
		}
		for _, id := range ids {
			if !given[id] {
				score[id] += w
			}
		}
	}
	out := make([]Scored, 0, len(score))
	for id, s := range score {
		out = append(out, Scored{l.paths[id], s})
	}
	slices.SortFunc(out, func(a, b Scored) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Path, b.Path))
	})
	return out[:min(k, len(out))]
}

// Unavailable reports whether err means there is no history to read (as
// opposed to a failure reading it).
func Unavailable(err error) bool { return errors.Is(err, ErrUnavailable) }

// String describes the log for logs and --explain.
func (l *Log) String() string {
	if l == nil {
		return "no history"
	}
	s := fmt.Sprintf("%d commits, %d files, at %.12s", len(l.commits), len(l.paths), l.head)
	if l.shallow {
		s += " (shallow clone)"
	}
	return s
}
