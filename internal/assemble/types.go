package assemble

import (
	"fmt"
	"strings"

	"github.com/ctxls/ctxls/internal/ranges"
)

// Format is how the context is rendered.
type Format string

// Formats.
const (
	Markdown Format = "markdown"
	XML      Format = "xml"
	JSON     Format = "json"
)

// Formats lists the known formats, sorted.
func Formats() []string { return []string{string(JSON), string(Markdown), string(XML)} }

// Strategy is the order parts are admitted and rendered in.
type Strategy string

// Strategies: the orders a request may ask for (docs/protocol.md,
// `strategy`).
const (
	// Grouped admits parts by score and renders them grouped by file: files
	// by their best part's score, parts in line order.
	Grouped Strategy = "grouped"
	// Interleaved admits and renders parts round-robin across files (files
	// by best score, each file's parts by score).
	Interleaved Strategy = "interleaved"
	// ByScore admits and renders parts strictly by score.
	ByScore Strategy = "score"
)

// Strategies lists the known strategies, sorted.
func Strategies() []string { return []string{string(Grouped), string(Interleaved), string(ByScore)} }

// Level is how much of a candidate a part shows.
type Level string

// Detail levels, richest first.
const (
	LevelFull      Level = "full"      // every line of the candidate
	LevelTrimmed   Level = "trimmed"   // signature + windows around hit lines, the rest elided
	LevelSkeleton  Level = "skeleton"  // doc comment + signature
	LevelReference Level = "reference" // the declaration line only
	LevelOutline   Level = "outline"   // a file's dropped candidates reduced to their signatures (summary substitution)
)

// MaxBudget is the largest maxTokens accepted; larger budgets are a caller's
// mistake (no model reads ten million tokens).
const MaxBudget = 10_000_000

// Budget caps the rendered context. Zero caps (other than MaxTokens) mean
// "no cap".
type Budget struct {
	MaxTokens        int `json:"maxTokens"`
	PerFileMaxTokens int `json:"perFileMaxTokens,omitempty"`
	PerPartMaxTokens int `json:"perPartMaxTokens,omitempty"`
	// Reserves sets aside tokens for candidates whose Reserve names them:
	// those candidates are packed first into their reserve;
	// whatever a reserve does not use is released to everyone else.
	Reserves map[string]int `json:"reserves,omitempty"`
}

// Policy holds the knobs of the packer. The zero Policy is not the default:
// use DefaultPolicy.
type Policy struct {
	// StitchGap is the largest gap, in lines, that may be filled to join two
	// ranges of one file into one part (if the gap costs fewer tokens than a
	// part header). Negative disables stitching.
	StitchGap int
	// Levels lets a candidate that does not fit the remaining budget enter at
	// a lower detail level (trimmed, skeleton, reference) instead of being
	// skipped. (A candidate over the per-part cap is always trimmed or
	// reduced to a skeleton, whatever Levels says.)
	Levels bool
	// Outlines replaces a file's dropped candidates by one outline part (their
	// signature lines) when it fits (summary substitution).
	Outlines bool
	// HitContext is how many lines around each hit line a trimmed part keeps
	// at most (it shrinks to fit).
	HitContext int
	// CoverMerge is the share of a candidate's lines that, when already in a
	// kept part of the same file, makes it a duplicate merged into that part
	// (DefaultPolicy: 0.8).
	CoverMerge float64
}

// DefaultPolicy returns the packer defaults.
func DefaultPolicy() Policy {
	return Policy{StitchGap: 3, Levels: true, Outlines: false, HitContext: 4, CoverMerge: 0.8}
}

// Request is what to assemble, besides the candidates.
type Request struct {
	Budget   Budget
	Format   Format   // default Markdown
	Strategy Strategy // default Grouped
	Policy   Policy
}

// Candidate is a scored set of line ranges of one file, as a retrieval channel
// produced it.
type Candidate struct {
	// ID is the producer's identity for the candidate (e.g. a chunk id).
	// Candidates with the same non-empty ID are the same candidate: they are
	// merged (ranges united, best score, sources merged).
	ID     string
	Path   string         // slash path relative to the workspace root
	Ranges []ranges.Range // 1-based inclusive; normalized and clamped here
	Score  float64        // higher is better; NaN or ±Inf candidates are omitted
	// Sources are the channels that produced it ("lexical", "symbol", …).
	Sources []string
	Kind    string // "code", "doc", "header", "test", … (free-form)
	// Language names the fence language in markdown ("go", "python"); when
	// empty it is guessed from the path's extension.
	Language string
	Symbol   string // qualified symbol name, if it is one unit
	// TrackingHash identifies the unit's normalized content: candidates with
	// the same hash are one part, wherever they sit.
	TrackingHash string
	// Hits are lines that matched the request; a trimmed part keeps the lines
	// around them.
	Hits []int
	// Signature is the unit's declaration lines (zero if unknown); Doc its
	// doc comment lines. Both are used for trimmed and skeleton levels.
	Signature ranges.Range
	Doc       ranges.Range
	// Tokens, if > 0, is the token count of the candidate's full text in the
	// request's encoding (the index counts chunks once). It lets the packer
	// skip counting candidates that cannot fit; it is never trusted for the
	// final count.
	Tokens int
	// Reserve names the Budget.Reserves entry this candidate draws from.
	Reserve string
	// Lead renders the candidate's part before every other (grouped and
	// interleaved orders), apart from its file's other parts, which go
	// where their own scores put them: what the request is about (a
	// diff's changed code), not the best of the rest.
	Lead bool
	// Withheld, when set, keeps the candidate out of the context: it is
	// listed among the omitted with this text as its reason, its handle
	// ready for context/expand (a request that asks for less than every
	// candidate the retriever knows, as a review does).
	Withheld string
}

// Files gives the current text of a file by path.
type Files interface {
	// Text returns the file's content and whether the file is available.
	Text(path string) (string, bool)
}

// MapFiles is a Files backed by a map from path to content.
type MapFiles map[string]string

// Text implements Files.
func (m MapFiles) Text(path string) (string, bool) {
	s, ok := m[path]
	return s, ok
}

// Part is one piece of one file in the assembled context.
type Part struct {
	ID       string `json:"id"` // "p1", "p2", … in rendered order; rendered as [1], [2], …
	Path     string `json:"path"`
	Language string `json:"language,omitempty"`
	// Ranges are the lines actually included (elided lines excluded).
	Ranges       []ranges.Range `json:"ranges"`
	Kind         string         `json:"kind"`
	Level        Level          `json:"level"`
	Symbol       string         `json:"symbol,omitempty"`
	Text         string         `json:"text"`
	Tokens       int            `json:"tokens"` // tokens of this part's rendered block (header included)
	Score        float64        `json:"score"`
	Sources      []string       `json:"sources"`
	TrackingHash string         `json:"trackingHash,omitempty"`
	Truncated    bool           `json:"truncated"`
	// Handles are the handles of the candidates this part shows.
	Handles []string `json:"handles,omitempty"`
	// AlsoIn names the other paths where the part's content appears (the
	// same tracking hash: a copy in another repository of a union, a
	// vendored copy), sorted, at most MaxAlsoIn of them; AlsoInMore counts
	// the rest. The part's header names them too, within its tokens.
	AlsoIn     []string `json:"alsoIn,omitempty"`
	AlsoInMore int      `json:"alsoInMore,omitempty"`
}

// MaxAlsoIn is the most paths a part names in Part.AlsoIn and its header:
// content copied into hundreds of repositories must not fill the budget
// with their names.
const MaxAlsoIn = 8

// Omitted is a candidate that is not (whole) in the context, and why.
type Omitted struct {
	// Handle names the candidate stably: "path#L12-40" (ranges as given,
	// normalized). A client can ask for it later (context/expand).
	Handle string         `json:"handle"`
	Path   string         `json:"path"`
	Ranges []ranges.Range `json:"ranges"`
	Symbol string         `json:"symbol,omitempty"`
	// Tokens is the candidate's full cost (its block at full detail), or 0
	// when it was never counted (duplicates, invalid input).
	Tokens  int      `json:"tokens"`
	Score   float64  `json:"score"`
	Reason  string   `json:"reason"`
	Sources []string `json:"sources,omitempty"`
}

// Omission reasons.
const (
	ReasonDuplicate    = "duplicate"   // same tracking hash, same ranges, or ≥ CoverMerge covered; see Omitted.Reason text
	ReasonOverBudget   = "over budget" // did not fit the remaining total budget
	ReasonOverPerFile  = "over per-file cap"
	ReasonOverPerPart  = "over per-part cap" // not even its skeleton fits the per-part cap
	ReasonReduced      = "reduced"           // included at a lower detail level; the rest is omitted
	ReasonNoFile       = "file not available"
	ReasonEmptyRange   = "empty range"
	ReasonInvalidScore = "invalid score"
	ReasonExactRecount = "over budget after exact count"
)

// Stats summarizes an assembly.
type Stats struct {
	TotalTokens    int    `json:"totalTokens"` // tokens of Result.Rendered
	MaxTokens      int    `json:"maxTokens"`
	Files          int    `json:"files"`
	Parts          int    `json:"parts"`
	Candidates     int    `json:"candidates"`
	DedupRemoved   int    `json:"dedupRemoved"`
	TruncatedParts int    `json:"truncatedParts"`
	DroppedParts   int    `json:"droppedParts"`
	Encoding       string `json:"encoding"`
	IndexState     string `json:"indexState,omitempty"`
	IndexComplete  bool   `json:"indexComplete"`
	// Note says why the context is empty or smaller than asked, if it is.
	Note string `json:"note,omitempty"`
}

// Result is an assembled context.
type Result struct {
	Parts    []Part    `json:"parts"`
	Rendered string    `json:"rendered"`
	Stats    Stats     `json:"stats"`
	Omitted  []Omitted `json:"omitted"`
}

// ParamError is a bad request parameter; Field names it as the protocol
// spells it (e.g. "budget.maxTokens").
type ParamError struct {
	Field string
	Msg   string
}

func (e *ParamError) Error() string { return e.Field + ": " + e.Msg }

// ParseFormat checks a format name; "" means Markdown.
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case "":
		return Markdown, nil
	case Markdown, XML, JSON:
		return Format(s), nil
	}
	return "", &ParamError{"format", fmt.Sprintf("unknown format %q (known: %s)", s, strings.Join(Formats(), ", "))}
}

// ParseStrategy checks a strategy name; "" means Grouped.
func ParseStrategy(s string) (Strategy, error) {
	switch Strategy(s) {
	case "":
		return Grouped, nil
	case Grouped, Interleaved, ByScore:
		return Strategy(s), nil
	}
	return "", &ParamError{"strategy", fmt.Sprintf("unknown strategy %q (known: %s)", s, strings.Join(Strategies(), ", "))}
}

// Validate checks a budget.
func (b Budget) Validate() error {
	switch {
	case b.MaxTokens <= 0:
		return &ParamError{"budget.maxTokens", fmt.Sprintf("must be a positive number of tokens, got %d", b.MaxTokens)}
	case b.MaxTokens > MaxBudget:
		return &ParamError{"budget.maxTokens", fmt.Sprintf("%d is over the limit of %d", b.MaxTokens, MaxBudget)}
	case b.PerFileMaxTokens < 0:
		return &ParamError{"budget.perFileMaxTokens", fmt.Sprintf("must be ≥ 0 (0 = no cap), got %d", b.PerFileMaxTokens)}
	case b.PerPartMaxTokens < 0:
		return &ParamError{"budget.perPartMaxTokens", fmt.Sprintf("must be ≥ 0 (0 = no cap), got %d", b.PerPartMaxTokens)}
	}
	for _, name := range sortedKeys(b.Reserves) {
		if n := b.Reserves[name]; n < 0 || n > b.MaxTokens {
			return &ParamError{"budget.reserves." + name, fmt.Sprintf("must be between 0 and maxTokens, got %d", n)}
		}
	}
	return nil
}
