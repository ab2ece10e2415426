// Package soak is ctxls's load harness (docs/reliability.md): it runs
// real `ctxls serve --listen` and `ctxls mcp --http` processes under many
// concurrent clients on a real tree and checks every answer.
//
// A run (Run) has these steps:
//
//  1. PrepareTree copies part of Go's source (`go env GOROOT`/src: the
//     packages of Config.Packages, .go files only) into Config.Tree, and
//     `ctxls index --cache-dir` indexes it.
//  2. One `ctxls serve --listen 127.0.0.1:0 --token-file F --root TREE
//     --root EXTRA --cache-dir C` starts; its address is read from the
//     "listening on ADDR" line of its stderr, its RSS sampled every second
//     from /proc/PID/status, its goroutines counted by sending SIGUSR1
//     (the server prints "goroutines: N").
//  3. Idle: one LSP session alone runs the workload; its context/assemble
//     latencies are the idle reference.
//  4. Load: Config.Sessions sessions run the workload at once for
//     Config.Duration. Each session opens its own files, edits them
//     (incremental and full didChange, some edits leaving a syntax error,
//     some requests sent before an edit and answered after it), asks
//     context/assemble by query, focus and diff, context/expand of the
//     handles left out, cancels some requests right after sending them,
//     and adds and removes small workspace folders under the EXTRA root.
//  5. MCP: Config.MCPClients clients of one `ctxls mcp --http` (bearer
//     token) on the same tree call assemble_context, expand_context,
//     find_symbol and index_status while each rewrites a file of its own
//     on disk.
//
// Every answer is checked (see check.go): no JSON-RPC error but
// RequestCancelled for a cancelled request; stats.totalTokens ≤ the
// budget asked; every part's path inside the folder that answered; and
// every part's text (elision markers aside) equal to the lines of the text
// the client had last given the file — the session's latest buffer for a
// file it has open, the disk for any other — where a request in flight
// while the text changed may show any text from the one current when it
// was sent to the one current when it was answered. A part with an older
// buffer text is a "stale buffer part": a broken promise (a buffer's
// latest text is what the next request sees, docs/reliability.md). The
// sessions of one server share one index but never each other's buffers
// (docs/protocol.md): a part that shows another session's buffer is
// counted and is a failure.
//
// The report (Report) gives requests and errors per method, latency p50 and
// p95 of context/assemble idle and under load — split by
// stats.indexComplete — RSS over time, goroutines after the idle session
// and at the end, the check counts and the first failures. Report.Problems
// lists every promise that failed; cmd/soak exits 1 when there is one.
//
// `make soak` runs the long version (8 sessions × 60 s on ≈ 550 files);
// TestSoakShort, in `make test`, a short one. The package's other tests
// are the fault tests (faults_test.go: processes killed at random points,
// damaged index files, a folder deleted while indexed, 100 000 files, a
// 10 MB line; `make faults` runs their long mode) and 1 000 generated bad
// requests (hostile_test.go). docs/reliability.md has the figures.
package soak
