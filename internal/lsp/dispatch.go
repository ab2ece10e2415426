package lsp

import (
	"encoding/json"

	"github.com/sourcegraph/jsonrpc2"
)

// A requestFunc handles one request; its result is sent as the response's
// result, its error turned into a JSON-RPC error (see toRPCError).
type requestFunc func(s *session, ctx *requestCtx, params json.RawMessage) (any, error)

// A notificationFunc handles one notification, on the read goroutine, in
// arrival order. It must not wait for the client.
type notificationFunc func(s *session, params json.RawMessage) error

// requestHandler returns the handler of a request method, and whether it
// runs on the read goroutine (in order with the messages that follow it)
// rather than on a goroutine of its own. Each handler lives in the file
// named after its method.
func requestHandler(method string) (h requestFunc, ordered bool) {
	switch method {
	case methodInitialize:
		return (*session).initialize, true
	case methodShutdown:
		return (*session).shutdown, true
	case methodContextAssemble:
		return (*session).contextAssemble, false
	case methodContextExpand:
		return (*session).contextExpand, false
	case methodContextReferences:
		return (*session).contextReferences, false
	case methodContextImpact:
		return (*session).contextImpact, false
	}
	return nil, false
}

// notificationHandler returns the handler of a notification method.
func notificationHandler(method string) notificationFunc {
	switch method {
	case methodInitialized:
		return (*session).initialized
	case methodExit:
		return (*session).exit
	case methodCancelRequest:
		return (*session).cancelRequestNotification
	case methodDidOpen:
		return (*session).didOpen
	case methodDidChange:
		return (*session).didChange
	case methodDidClose:
		return (*session).didClose
	case methodDidChangeWorkspaceFolders:
		return (*session).didChangeWorkspaceFolders
	case methodDidChangeConfiguration:
		return (*session).didChangeConfiguration
	case methodDidChangeWatchedFiles:
		return (*session).didChangeWatchedFiles
	}
	return nil
}

// rawParams returns a message's params: nil when absent, "null" when null.
func rawParams(req *jsonrpc2.Request) json.RawMessage {
	if req.Params == nil {
		return nil
	}
	return *req.Params
}

// isNull reports whether params are absent or null.
func isNull(params json.RawMessage) bool {
	return len(params) == 0 || string(params) == "null"
}
