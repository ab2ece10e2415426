// Package tokens counts tokens the way a model's tokenizer does.
//
// A Counter is built once per encoding (building a BPE encoder costs tens of
// milliseconds and megabytes of tables) and shared by every request; use a
// Registry to get one by name. Known encodings are the tiktoken encodings
// cl100k_base and o200k_base, whose BPE data is embedded in the binary (no
// network is needed), and "approx", ceil(bytes/4), for tests and for callers
// that want a cheap estimate.
//
// This package does no I/O and knows nothing about files, ranges or LSP.
package tokens
