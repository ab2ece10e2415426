// Package runner runs the quality evaluation: for every case of
// eval/cases.json it rebuilds the case's source tree from the repository
// (eval/work/<owner+name>/<tree>, not committed), indexes it in memory once,
// and asks ctxls (package retrieve), its ablations (one channel's weight set
// to 0) and the BM25 baseline (package eval/baseline) for a context at each
// budget, scoring each context against the case's gold.
//
// Only the request is timed (retrieval and assembly), never the indexing.
// The command is eval/cmd/run; scripts/eval.sh wraps it.
package runner
