// Package eval holds the quality evaluation of ctxls on real commits of
// public repositories: the pinned cases (cases.json), the metrics that score
// one assembled context against a case's gold lines, and the tables that
// summarize them.
//
// A case is a commit of a public repository. In the query task the request
// is the commit message (cleaned) over the parent tree; in the diff task it
// is the diff of one changed file over the parent tree with that file at its
// new version. The gold is the other changed lines on the parent side.
//
// Subpackages: mine turns a repository's history into cases, baseline is the
// BM25 line-window retriever ctxls is compared with, runner runs both over
// the cases. The commands are eval/cmd/mine and eval/cmd/run; on a run's
// explanations, eval/cmd/fitrank fits the file model and eval/cmd/losses
// tells where the gold lines went and the ceilings of the candidates; see
// docs/quality.md for the method and the numbers.
//
// Nothing here is imported by the ctxls binary, and the full evaluation is
// not part of `go test` (it needs the repositories; scripts/eval.sh runs it).
package eval
