package retrieve

import (
	"cmp"
	"fmt"
	"math"
	"path"
	"slices"

	"github.com/ctxls/ctxls/internal/index/chunk"
)

// PriorOptions are the priors' knobs: the steps after fusion that rank
// kinds of files and units down (penalize) and order a file's units
// (lexicalFileOrder).
type PriorOptions struct {
	// TestPenalty multiplies the fused score of test, vendored and
	// generated-looking files (zoekt ranks them down).
	TestPenalty float64
	// ToolingPenalty multiplies the fused score of build, CI and release
	// scripts and of code kept with the docs (0: none).
	ToolingPenalty float64
	// LiteralPenalty multiplies the fused score of a code unit whose
	// non-blank text is at least LiteralShare string literals (0 or 1:
	// none).
	LiteralPenalty, LiteralShare float64
	// DocPenalty multiplies the fused score of prose and configuration
	// files (Markdown, reStructuredText, HTML, YAML, …): the reader asked
	// about code.
	DocPenalty float64
	// LexicalFileOrder (w, 0 … 1): in a request without a cursor, each
	// file's chunks take the file's fused scores again, in an order that
	// weighs their lexical share by w and their fused score by 1 − w
	// (0: the fused order). Every channel decides which file; within a
	// file the others point at units the question is not about — the
	// path channel at the file's header, the graph and overview channels
	// at its most-referenced definitions (docs/tuning-log.md, "Which unit
	// of the right file": query lines at 2 000 0.468 → 0.488 at w 0.5).
	LexicalFileOrder float64
}

// priors are the steps after fusion that rank kinds of files and units
// up or down, in this order: the order within a file by the question's
// words, the penalties (tests, vendored code, tooling, prose, literals),
// the open buffers' prior and the diff's priors on its own files and
// directories.
func (r *run) priors() {
	if r.e.opts.LexicalFileOrder > 0 && r.req.Focus == nil {
		r.lexicalFileOrder()
	}
	r.penalize()
	if r.weights[ChanActivity] > 0 && r.req.Activity != nil {
		r.activityPrior()
	}
	if len(r.diffFiles) > 0 {
		r.diffPriors(r.diffFiles)
	}
}

// diffPriors ranks the chunks of the diff's own files down
// (Options.DiffSelfPenalty) and, when the history brought no file that
// changed with them, those of the other files in their directories up
// (Options.DiffDirPrior; a directory's module index by
// Options.DiffDirIndexPrior more), in one pass over the scored chunks.
func (r *run) diffPriors(diff []FileDiff) {
	o := r.e.opts
	self, dir := o.DiffSelfPenalty, o.DiffDirPrior
	if self <= 0 {
		self = 1
	}
	if r.diffCoChanged {
		dir = 0
	}
	if self == 1 && dir <= 0 {
		return
	}
	own, dirs := map[string]int{}, map[string]bool{}
	for _, fd := range diff {
		if fd.Path != "" {
			own[fd.Path]++ // a file a diff names twice is ranked down twice
			dirs[path.Dir(fd.Path)] = true
		}
	}
	for _, s := range r.scores {
		switch n := own[s.c.Path]; {
		case n > 0 && r.diffReached[s.id] && r.req.Mode == ModeReview:
			// Under review, the callers and definitions in the diff's own
			// files are what the reviewer needs most: no penalty.
		case n > 0 && r.diffReached[s.id]:
			// A caller of the change or a definition its lines use, in a
			// file the diff changes: a reviewer needs it, though less
			// than what the diff does not show at all (the fourth root
			// of the penalty; the square root cost the review task 0.05
			// of its line recall at 8 000 tokens, the diff task nothing).
			for range n {
				r.prior(s, math.Sqrt(math.Sqrt(self)), "a file the diff changes, reached by the change")
			}
		case n > 0:
			for range n {
				r.prior(s, self, "a file the diff changes")
			}
		case dir > 0 && dirs[path.Dir(s.c.Path)]:
			r.prior(s, 1+dir, "in a directory of the diff (no co-change known)")
			if q := o.DiffDirIndexPrior; q > 0 && isModuleIndex(s.c.Path) {
				r.prior(s, 1+q, "the directory's module index")
			}
		}
	}
}

// lexicalFileOrder gives each file's chunks the file's fused scores again
// (Options.LexicalFileOrder = w), best first in the order of
// w × lexical share / the file's best lexical share + (1 − w) × score /
// the file's best score: the file keeps its scores, and so its place in
// the ranking, while its best score goes to a unit the words match.
func (r *run) lexicalFileOrder() {
	w := min(1, r.e.opts.LexicalFileOrder)
	byFile := map[string][]*scored{}
	for _, s := range r.ranked() {
		byFile[s.c.Path] = append(byFile[s.c.Path], s)
	}
	for _, chunks := range byFile { // each file on its own: the order of files does not matter
		if len(chunks) < 2 {
			continue
		}
		scores := make([]float64, len(chunks)) // descending: chunks is ranked
		maxLex := 0.0
		for i, s := range chunks {
			scores[i] = s.score
			maxLex = max(maxLex, s.channels[ChanLexical])
		}
		if maxLex <= 0 || scores[0] <= 0 {
			continue
		}
		key := func(s *scored) float64 { return w*s.channels[ChanLexical]/maxLex + (1-w)*s.score/scores[0] }
		// Stable: equal keys keep the ranked order.
		slices.SortStableFunc(chunks, func(a, b *scored) int { return cmp.Compare(key(b), key(a)) })
		for i, s := range chunks {
			if r.req.Explain && s.score != scores[i] {
				s.priors = append(s.priors, fmt.Sprintf("ordered within its file by the question's words: the file's score %d of %d", i+1, len(chunks)))
			}
			s.score = scores[i]
		}
	}
}

// penalize ranks test, vendored and generated-looking files down — but for
// the unit under the cursor, which is what the request is about whatever
// its file.
func (r *run) penalize() {
	p := r.e.opts.TestPenalty
	if p <= 0 {
		p = 1
	}
	for id, s := range r.scores {
		if id == r.focusChunk {
			continue
		}
		switch pathRole(s.c.Path) {
		case roleTest:
			r.prior(s, p, "a test, fixture or example")
		case roleVendor:
			r.prior(s, p, "vendored or generated code")
		case roleTooling:
			if t := r.e.opts.ToolingPenalty; t > 0 {
				r.prior(s, t, "build, CI or docs tooling")
			}
		}
		if d := r.e.opts.DocPenalty; d > 0 && d != 1 && isProse(s.c) {
			r.prior(s, d, "prose or configuration")
		}
	}
	r.penalizeLiterals()
}

// literalMinLines: a unit shorter than this is not ranked down for its
// literals — a constant that small costs the budget little.
const literalMinLines = 16

// penalizeLiterals ranks down the best candidates that are mostly string
// literals (Options.LiteralPenalty): a license template or an embedded
// page matches many words of a question and takes the room of the code it
// is about. Only the candidates that can reach the assembler are read.
func (r *run) penalizeLiterals() {
	lp := r.e.opts.LiteralPenalty
	if lp <= 0 || lp == 1 {
		return
	}
	top := r.ranked()
	top = top[:min(len(top), r.e.opts.MaxCandidates)]
	for _, s := range top {
		c := s.c
		if s.id == r.focusChunk || isProse(c) || c.EndLine-c.StartLine+1 < literalMinLines {
			continue
		}
		text, ok := r.files().Text(c.Path)
		if !ok || c.StartByte < 0 || c.EndByte > len(text) || c.StartByte >= c.EndByte {
			continue
		}
		if literalShare(text[c.StartByte:c.EndByte]) >= r.e.opts.LiteralShare {
			r.prior(s, lp, "mostly string literals")
			s.literal = true
		}
	}
}

// isProse reports whether a chunk is from a prose, markup or configuration
// file rather than source code.
func isProse(c chunk.Chunk) bool { return !chunk.IsCode(c.Language) }

func isSecondary(path string) bool {
	r := pathRole(path)
	return r == roleTest || r == roleVendor
}
