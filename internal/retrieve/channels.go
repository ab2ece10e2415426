package retrieve

import (
	"cmp"
	"slices"

	"github.com/ctxls/ctxls/internal/index"
)

// channel is one retrieval channel: a source of candidates whose ranking
// is fused into a request's scores at the channel's weight. Its code, its
// options struct (embedded in Options) and its per-request state
// (embedded in run) are in a file of its own; it is listed once, in the
// channel table (builtinChannels), with its default weight.
type channel struct {
	// name is the channel's name: the key of its weight (Request.Weights,
	// --weights), a part's source and a contribution in --explain.
	name string
	// weight is its default fusion weight (DefaultWeights).
	weight float64
	// shown is its place in --explain's listing (ExplainChannels): the
	// request's own code first, then the text's channels, then the rest.
	shown int
	// after: the channel runs after the priors and the file model (the
	// neighbor step, which reads the final order), not with the others.
	after bool
	// wants reports whether the request brings what the channel works on
	// (a cursor, a diff, vectors, …); nil: every request. A channel runs
	// only when it wants the request and its weight is above 0.
	wants func(r *run) bool
	// start, when set, starts the channel's work before any channel runs
	// (the semantic search, which reads every vector, runs beside the
	// others); it returns a function that waits for that work to end.
	start func(r *run) (wait func())
	// rank is the channel's ranking, best first, fused by reciprocal
	// rank at its weight (each entry's share times scale's, when set).
	rank  func(r *run) ([]index.ChunkID, error)
	scale func(r *run) func(index.ChunkID) float64
	// add, for a channel that is not one ranking (the conversation's two
	// searches, the history's several seeds, the neighbors), adds its
	// candidates to the scores itself. A channel has rank or add.
	add func(r *run) error
}

// builtinChannels is the channel table with each channel's default
// weight (defaults.json).
func builtinChannels() []channel {
	chans := channelTable()
	d := mustDefaults(namesOf(chans))
	for i := range chans {
		chans[i].weight = d.weights[chans[i].name]
	}
	return chans
}

// channelTable is every channel, in the order they run and are fused (the
// order is part of the ranking: fusion sums in it); their default weights
// and options are data (defaults.json). Adding a channel is a file with
// its code, options and state, a row here, and its entry in
// defaults.json.
func channelTable() []channel {
	return []channel{
		{name: ChanLexical, shown: 4, rank: (*run).lexical},
		// Symbol ranks the definitions of the names a request spells; at
		// the lexical channel's weight a name that several files define
		// put all of them ahead of the file the question is about (0.5:
		// MRR +0.005 … +0.012 on the eval and the held-out check,
		// docs/tuning-log.md, "The component a question names").
		{name: ChanSymbol, shown: 3, rank: (*run).symbol},
		{name: ChanPath, shown: 5, rank: (*run).path, scale: (*run).pathScale},
		{name: ChanFocus, shown: 1, wants: hasFocus, rank: (*run).focus},
		// Diff ranks the units a diff changes and their callers. The
		// changed units are the reviewer's own (ranked down further by
		// Options.DiffSelfPenalty); since the history channel brings the
		// files that change together, 2.0 put them first and cost the
		// diff task's MRR 0.07 (docs/tuning-log.md, the diff channel's
		// weight: 0.478 at 2.0, 0.546 at 0.25).
		{name: ChanDiff, shown: 2, wants: hasDiff, rank: (*run).diffChannel},
		{name: ChanGraph, shown: 6, rank: (*run).graph},
		// Overview fills what room the other channels leave with the
		// workspace's most-referenced definitions (a repo map).
		{name: ChanOverview, shown: 8, rank: (*run).overview},
		// Semantic is the workspace embedder's channel (when the request
		// brings vectors).
		{name: ChanSemantic, shown: 10, wants: hasVectors, start: (*run).startSemantic, rank: (*run).semanticChannel},
		// Conversation: earlier turns, searched like the query at this
		// weight.
		{name: ChanConversation, shown: 12, wants: hasConversation, add: (*run).conversation},
		// Activity: the edited ranges' chunks as candidates; times
		// Options.ActivityPrior, the open buffers' prior.
		{name: ChanActivity, shown: 11, wants: hasActivity, rank: (*run).activityEdits},
		// History weighs the co-change channel of a diff; times
		// Options.HistoryPrior it is the recency prior's strength.
		{name: ChanHistory, shown: 9, wants: hasHistory, add: (*run).history},
		// Neighbor is not a ranking: a neighbor of one of the best
		// candidates gets half of its fused score, times this weight
		// (0.5: the eval finds full weight crowds out other files).
		{name: ChanNeighbor, shown: 7, after: true, add: (*run).neighbors},
	}
}

// What a channel wants of a request (channel.wants).
func hasFocus(r *run) bool        { return r.req.Focus != nil }
func hasDiff(r *run) bool         { return len(r.diffFiles) > 0 }
func hasVectors(r *run) bool      { return r.req.Semantic != nil }
func hasConversation(r *run) bool { return len(r.req.Conversation) > 0 }
func hasActivity(r *run) bool     { return r.req.Activity != nil }
func hasHistory(r *run) bool      { return r.req.History != nil }

// DefaultWeights are the per-channel weights of the rank fusion (the
// channel table's).
func DefaultWeights() map[string]float64 { return weightsOf(builtinChannels()) }

func weightsOf(chans []channel) map[string]float64 {
	w := make(map[string]float64, len(chans))
	for _, ch := range chans {
		w[ch.name] = ch.weight
	}
	return w
}

// Channels are the channels' names in the order they run.
func Channels() []string { return namesOf(builtinChannels()) }

// ExplainChannels are the channels' names in --explain's order: the
// request's own code (focus, diff) first.
func ExplainChannels() []string {
	chans := builtinChannels()
	slices.SortStableFunc(chans, func(a, b channel) int { return cmp.Compare(a.shown, b.shown) })
	return namesOf(chans)
}

func namesOf(chans []channel) []string {
	out := make([]string, len(chans))
	for i, ch := range chans {
		out[i] = ch.name
	}
	return out
}
