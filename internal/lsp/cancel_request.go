package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/sourcegraph/jsonrpc2"
)

// cancelRequestNotification handles "$/cancelRequest" with a numeric or a
// string id: the request's context is cancelled, its work stops and it
// answers RequestCancelled. Unknown ids (requests already answered) are
// ignored, as the protocol asks.
func (s *session) cancelRequestNotification(params json.RawMessage) error {
	var p CancelParams
	if err := json.Unmarshal(params, &p); err != nil {
		return fmt.Errorf("malformed params: %w", err)
	}
	id, err := parseID(p.ID)
	if err != nil {
		return err
	}
	s.cancelRequest(id)
	return nil
}

// parseID reads a request id the way the transport does: a string, or a
// non-negative integer.
func parseID(raw json.RawMessage) (jsonrpc2.ID, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return jsonrpc2.ID{}, fmt.Errorf("malformed id %s: %w", raw, err)
		}
		return jsonrpc2.ID{Str: s, IsString: true}, nil
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return jsonrpc2.ID{}, fmt.Errorf("malformed id %s: want a string or an integer", raw)
	}
	return jsonrpc2.ID{Num: uint64(n)}, nil
}
