// Package lsp is the ctxls language server: one session per connection,
// speaking the LSP base protocol (JSON-RPC 2.0 with Content-Length framing)
// over stdio or a socket.
//
// It decodes messages, keeps the per-connection state (workspace folders,
// open buffers, settings, in-flight requests), picks the index snapshot a
// request reads and dispatches to the engine; the retrieval and assembly
// logic lives in packages retrieve and assemble, and the roots in package
// workspace, which never import this one (nor does this package import
// what lies below the workspace: index, pgstore, history, semantic). Each LSP method has its handler in the file named after it
// (context_assemble.go, did_change.go, …); dispatch.go lists them.
//
// Ordering: notifications, initialize, shutdown and $/cancelRequest are
// handled on the connection's read goroutine in arrival order; other
// requests run on goroutines of their own, so a slow request never blocks
// a cancellation or an edit, and a handler may call the client. Edits of
// open buffers are applied to the session by one worker per folder; disk
// changes (didChangeWatchedFiles) go to the folder's workspace Root, whose
// one queue every session of the root shares; a request waits until the
// edits and disk changes sent before it are applied, then reads one
// immutable snapshot. See docs/protocol.md for what a client sees.
//
// On a network face (ctxls serve --listen) Options.Access admits a
// session: initialize must carry the token, and every workspace folder the
// client names must pass the allowed-roots check (access.go; the policy
// itself is package access). Until the token has been presented frames
// are limited to MaxUnauthenticatedMessageBytes and the connection to
// Access.AuthTimeout; a frame must arrive within Access.FrameTimeout once
// it has started, while the time between frames is not limited (stream.go).
// On stdio it is nil and nothing is checked.
package lsp
