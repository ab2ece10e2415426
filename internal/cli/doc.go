// Package cli implements the ctxls command line: `ctxls assemble` (headless
// context assembly for bots and scripts) and `ctxls index` (build or refresh
// the on-disk index). It parses flags, opens the index and prints; the
// logic lives in retrieve and assemble, and what a call reads (the index,
// the history, the vectors, a store's checkout) in workspace (call.go):
// the CLI imports nothing below the workspace. Exit status: 0 on success, 2
// on bad usage (with the usage line), 1 on other errors; messages go to
// stderr.
package cli
