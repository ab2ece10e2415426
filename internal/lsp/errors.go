package lsp

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/ctxls/ctxls/internal/assemble"
)

// JSON-RPC and LSP error codes.
const (
	CodeInvalidRequest       = jsonrpc2.CodeInvalidRequest // -32600
	CodeMethodNotFound       = jsonrpc2.CodeMethodNotFound // -32601
	CodeInvalidParams        = jsonrpc2.CodeInvalidParams  // -32602
	CodeInternalError        = jsonrpc2.CodeInternalError  // -32603
	CodeServerNotInitialized = -32002
	CodeRequestFailed        = -32803
	CodeRequestCancelled     = -32800
)

// maxErrorMessage bounds an error message: one that quotes what the client
// sent (an encoding name of 1 MiB, say) is cut rather than echoed whole.
const maxErrorMessage = 1024

// rpcError builds a JSON-RPC error with an optional data member.
func rpcError(code int64, msg string, data any) *jsonrpc2.Error {
	if len(msg) > maxErrorMessage {
		cut := maxErrorMessage
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + fmt.Sprintf("… (%d bytes cut)", len(msg)-cut)
	}
	e := &jsonrpc2.Error{Code: code, Message: msg}
	if data != nil {
		e.SetError(data)
	}
	return e
}

// paramError is an InvalidParams error naming the field, as
// {"code": -32602, "message": "budget.maxTokens: …", "data": {"field": "budget.maxTokens"}}.
func paramError(field, format string, args ...any) *jsonrpc2.Error {
	return rpcError(CodeInvalidParams, field+": "+fmt.Sprintf(format, args...), map[string]string{"field": field})
}

// toRPCError turns a handler's error into the JSON-RPC error the client
// gets. ctx is the request's context: once it is cancelled, any error is
// reported as RequestCancelled.
func toRPCError(ctx context.Context, method string, err error) *jsonrpc2.Error {
	var rpcErr *jsonrpc2.Error
	var pe *assemble.ParamError
	switch {
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return rpcError(CodeRequestCancelled, method+": request cancelled", nil)
	case errors.As(err, &rpcErr):
		return rpcErr
	case errors.As(err, &pe):
		return rpcError(CodeInvalidParams, pe.Error(), map[string]string{"field": pe.Field})
	}
	return rpcError(CodeRequestFailed, method+": "+err.Error(), nil)
}
