package retrieve

// Options tune an Engine. Each channel's and each step's knobs are in
// its own struct, beside its code (LexicalOptions in lexical.go, …),
// embedded here: their fields are promoted (Options.LexicalK), and the
// eval's -opts names them so.
type Options struct {
	// RRFK is the rank offset of reciprocal rank fusion: a channel's i-th
	// result (1-based) contributes weight/(RRFK+i).
	RRFK float64
	// MaxCandidates is how many fused candidates go to the assembler.
	MaxCandidates int
	// PerFileShare, when a request sets no per-file cap, caps each file at
	// this share of the budget (0: no cap), so one large file cannot
	// crowd out the others; CursorPerFileShare is the share for a request
	// with a cursor (the definitions the next line needs are in many
	// files; a question's or a diff's changed lines are deep in a few).
	PerFileShare, CursorPerFileShare float64
	// PerFileMinBudget: PerFileShare applies only to budgets of at least
	// this many tokens. Under a tight budget depth in the best file beats
	// breadth (line recall drops by 0.1 with a cap at 2 000 tokens); with
	// room, breadth wins (docs/quality.md).
	PerFileMinBudget int
	// Levels and Outlines set the assembler's policy flags (detail levels
	// under a tight budget; summary substitution of dropped candidates)
	// for requests that bring no Policy of their own.
	Levels, Outlines bool
	// CutShare: in the related mode and for a question, a unit longer
	// than this share of the budget is cut to its declaration and the
	// lines that matched the request, with cutContext lines around each
	// (a 1 600-token module, a class whose docstring holds its default
	// configuration): the rest of the budget goes to other units (0: a
	// unit is shown whole when it fits). Off by default: measured on
	// the eval, a quarter of the budget cost the question task 0.011 of
	// its line recall at 2 000 tokens and raised its noise 0.761 → 0.791,
	// half of it 0.005 and 0.761 → 0.769 (the room a cut frees goes to the
	// next units, mostly noise; the diff and review tasks unchanged).
	CutShare float64

	LexicalOptions
	SymbolOptions
	PathOptions
	FocusOptions
	DiffOptions
	OverviewOptions
	HistoryOptions
	SemanticOptions
	ActivityOptions
	NeighborOptions
	PriorOptions
	FileModelOptions
	QueryMapOptions
}

// DefaultOptions returns the tuned defaults (see docs/quality.md): every
// channel's and step's knobs, read from defaults.json (the channels'
// weights are there too).
func DefaultOptions() Options { return mustDefaults(namesOf(channelTable())).options }
