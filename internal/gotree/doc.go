// Package gotree gives tests and benchmarks Go's own source tree, the
// project's reference corpus: real, large, and pinned by the Go version
// that runs the tests. It is test support; nothing in ctxls's binary
// imports it.
package gotree
