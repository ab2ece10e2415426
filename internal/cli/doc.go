// Package cli implements the ctxls command line: `ctxls assemble` (headless
// context assembly for bots and scripts) and `ctxls index` (build or refresh
// the on-disk index). It parses flags, opens the index and prints; the
// logic lives in index, retrieve and assemble. Exit status: 0 on success, 2
// on bad usage (with the usage line), 1 on other errors; messages go to
// stderr.
package cli
