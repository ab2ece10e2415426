// Package retrieve answers "which code should the model read" for a request
// (a question, a cursor, a diff) over one index snapshot: it analyzes the
// query, runs the candidate channels (lexical, symbol, path, focus, diff,
// graph, neighbor), fuses their rankings deterministically (weighted
// reciprocal rank fusion, ties by path then line), ranks down what a code
// question rarely needs first — by a file's role (roles.go: tests,
// vendored or generated code, tooling), prose, and text constants
// (literals.go) — and hands the candidates to package assemble.
//
// It reads an *index.Snapshot and never writes the index; it knows nothing
// of LSP or of the command line.
package retrieve
