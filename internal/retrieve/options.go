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

// DefaultOptions returns the tuned defaults (see docs/quality.md): the
// one table of every channel's and step's knobs (the channels' weights
// are in the channel table, channels.go).
func DefaultOptions() Options {
	return Options{
		RRFK: 20, MaxCandidates: 150, PerFileShare: 0.6, CursorPerFileShare: 0.3, PerFileMinBudget: 4000, Levels: true,
		LexicalOptions:   LexicalOptions{LexicalK: 120, LexSymbolBoost: 2},
		SymbolOptions:    SymbolOptions{SymbolWords: false},
		PathOptions:      PathOptions{PathStrength: 3},
		FocusOptions:     FocusOptions{FocusNearest: true, FocusSkeletonBelow: 4000, FocusMapBelow: 10000, FocusMapFiles: 8, FocusMapLines: 12, FocusMapScore: 2, FocusImportMap: 0.5, FocusHop: 0.1, FocusBreadthFrom: 4000, FocusAbove: 1 << 20, FocusBelow: 1 << 20, CursorShare: 0.25},
		DiffOptions:      DiffOptions{DiffSelfPenalty: 0.3, DiffDirPrior: 0.3, DiffDirIndexPrior: 0.5, DiffGraphWeight: 1, ReviewCallerDefs: 12, DiffChangedShare: 0.3, DiffChangedFullFrom: 6000, DiffChangedFrom: 4000, DiffSignpostFrom: 4000, DiffSignpostContext: 6, DiffQueryComments: true},
		OverviewOptions:  OverviewOptions{OverviewMaxFiles: 3000},
		HistoryOptions:   HistoryOptions{CoChangeFiles: 20, CoChangeHalfLife: 150, CoChangeSeeds: 3, CoChangeSeedWeight: 0.3, MessageCommits: 20, MessageFiles: 20, MessageWeight: 0.2, MessageFilesFrom: 4000, HistoryPrior: 0.5},
		SemanticOptions:  SemanticOptions{SemanticDiffScale: 0, SemanticK: 50, SemanticFloor: 0.2},
		ActivityOptions:  ActivityOptions{ActivityPrior: 0.3},
		NeighborOptions:  NeighborOptions{Neighbors: 8},
		PriorOptions:     PriorOptions{TestPenalty: 0.3, ToolingPenalty: 0.4, LiteralPenalty: 0.7, LiteralShare: 0.8, DocPenalty: 0.6, LexicalFileOrder: 0.5},
		FileModelOptions: FileModelOptions{FileRank: 1, FileRankDiff: 1, FileDepth: 3, FileDepthFrom: 4000, FileHeaderShare: 0.6, FileHeaderMaxShare: 0.1},
		QueryMapOptions:  QueryMapOptions{QueryMapBelow: 10000, QueryMapFiles: 16, QueryMapLines: 1, QueryMapShare: 0.2, QueryMapScore: 0.1},
	}
}
