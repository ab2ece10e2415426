// Package mcp is the ctxls Model Context Protocol server: the context engine
// as tools for coding assistants (`ctxls mcp`), on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk).
//
// Tools:
//
//   - assemble_context: a question, a cursor (path:line[:col]), a diff or a
//     git revision → a ranked, deduplicated, budgeted context (text content,
//     never over the budget) and the result object (structured content:
//     parts, omitted candidates with handles, stats).
//   - expand_context: handles from an earlier result, or a path and line
//     ranges → their text in full, under a budget.
//   - find_symbol: a name or qualified name → its definitions (and, when
//     asked, the chunks that reference it) from the index's symbol table
//     (workspace.FindSymbol).
//   - index_status: per root, what is indexed and whether it is complete.
//
// A Server keeps one workspace per root: the same on-disk index that
// `ctxls serve` and `ctxls assemble` use (one writer per root; another
// process holding it makes this one index privately), opened in the
// background. A call waits for the index to be open, then at most
// Options.IndexWait for its first build, and otherwise answers from the
// partial index (stats.indexComplete false). Files changed on disk are seen
// by the next call: each root is watched (inotify / kqueue through
// fsnotify) and a call first applies the changes seen so far; where a root
// cannot be watched, a call refreshes the index first (a stat walk).
//
// The roots are the ones the server was started with; without any, the
// client's roots (roots/list) when it offers them, else the working
// directory. Paths outside the roots are refused.
//
// The retrieval and assembly logic lives in packages retrieve and
// assemble, the roots and find_symbol's search in package workspace; this
// package decodes tool arguments, picks the workspace's target and
// snapshot, has the engine check the request once (its plan), and shapes
// results. It imports nothing below the workspace (index, pgstore,
// history, semantic).
package mcp
