package history

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode"
)

// maxMessageTerms bounds the terms kept of one commit message (a release
// commit's message can list a whole changelog).
const maxMessageTerms = 200

// messageStopWords are left out of message terms: English function words,
// which say nothing about where a change went. Read only.
var messageStopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be but by can do for from has have if in into is it its
		no not of on or so that the their then there these this to was were when which will with without`) {
		m[w] = true
	}
	return m
}()

// messageTerms are the terms of a commit message or a question, sorted
// (repeats kept, for their frequency): each run of letters, digits and
// underscores split into its snake-case and camel-case parts, lower-cased
// (parseHTTPHeader → parse, http, header), and the whole run too when it
// has parts (parsehttpheader); parts of one letter, numbers and stop
// words left out. At most maxMessageTerms, the first ones.
func messageTerms(text string) []string {
	var out []string
	add := func(t string) {
		if len(out) < maxMessageTerms && len(t) > 1 && !messageStopWords[t] && strings.IndexFunc(t, unicode.IsLetter) >= 0 {
			out = append(out, t)
		}
	}
	for _, run := range strings.FieldsFunc(text, func(r rune) bool {
		return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r))
	}) {
		parts := 0
		for _, snake := range strings.Split(run, "_") {
			for rest := snake; rest != ""; {
				n := camelWord(rest)
				add(strings.ToLower(rest[:n]))
				rest = rest[n:]
				parts++
			}
		}
		if parts > 1 {
			add(strings.ToLower(strings.ReplaceAll(run, "_", "")))
		}
	}
	slices.Sort(out)
	return out
}

// camelWord is the byte length of s's first camel-case word: up to a
// lower-case letter or digit followed by an upper-case one (parseHTTP →
// parse), or up to the last of a run of upper-case letters that a
// lower-case one follows (HTTPHeader → HTTP).
func camelWord(s string) int {
	rs := []rune(s)
	n := 0
	for i := range rs {
		if i > 0 {
			prev, c := rs[i-1], rs[i]
			if unicode.IsUpper(c) && (unicode.IsLower(prev) || unicode.IsDigit(prev)) {
				return n
			}
			if unicode.IsUpper(prev) && unicode.IsUpper(c) && i+1 < len(rs) && unicode.IsLower(rs[i+1]) {
				return n
			}
		}
		n += len(string(rs[i]))
	}
	return n
}

// MessageMatches returns the files of the past commits whose messages
// read most like text (a question, a commit message being written), at
// most k, strongest first (ties by path): the kept commits' messages are
// scored against text's terms by BM25 (k1 1.2, b 0.75, document
// frequencies among the kept commits); each of the best `commits` of them
// gives each of its files its score / √(its files), so a commit of two
// files says more of each than one of forty. Scores are relative to the
// best file's (1). Nil with no history or no term in common.
func (l *Log) MessageMatches(text string, commits, k int) []Scored {
	if l == nil || commits <= 0 || k <= 0 {
		return nil
	}
	l.index()
	q := slices.Compact(messageTerms(text))
	if len(q) == 0 || l.avgLen == 0 {
		return nil
	}
	type hit struct {
		ci    int32
		score float64
	}
	n := float64(len(l.commits))
	acc := make([]float64, len(l.commits))
	for _, t := range q {
		ps := l.postings[t]
		if len(ps) == 0 {
			continue
		}
		df := float64(len(ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range ps {
			tf := float64(p.tf)
			dl := float64(len(l.commits[p.commit].terms))
			acc[p.commit] += idf * tf * 2.2 / (tf + 1.2*(0.25+0.75*dl/l.avgLen))
		}
	}
	var hits []hit
	for ci, score := range acc {
		if score > 0 {
			hits = append(hits, hit{int32(ci), score})
		}
	}
	// Newer first among equals: the commits are newest first.
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Compare(b.score, a.score) })
	score := map[int32]float64{}
	for _, h := range hits[:min(commits, len(hits))] {
		ids := l.commits[h.ci].files
		w := h.score / math.Sqrt(float64(len(ids)))
		for _, id := range ids {
			score[id] += w
		}
	}
	out := make([]Scored, 0, len(score))
	top := 0.0
	for id, s := range score {
		out = append(out, Scored{l.paths[id], s})
		top = max(top, s)
	}
	slices.SortFunc(out, func(a, b Scored) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Path, b.Path))
	})
	out = out[:min(k, len(out))]
	for i := range out {
		out[i].Score /= top
	}
	return out
}
