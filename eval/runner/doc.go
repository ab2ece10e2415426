// Package runner runs the quality evaluation: for every case of
// eval/cases.json it rebuilds the case's source tree from the repository
// (eval/work/<owner+name>/<tree>, not committed), indexes it in memory once,
// and asks ctxls (package retrieve), its ablations (one channel's weight set
// to 0) and the BM25 baseline (package eval/baseline) for a context at each
// budget, scoring each context against the case's gold.
//
// With Config.ModelAges, ctxls answers too with the semantic vectors a CLI
// call would use had its index cache been made N commits earlier: the
// model trained on that commit's tree, loaded for the case's tree by
// semantic.Load (reused, or trained again past the drift thresholds).
//
// Only the request is timed (retrieval and assembly), never the indexing.
// The command is eval/cmd/run; scripts/eval.sh wraps it.
package runner
