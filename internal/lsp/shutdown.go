package lsp

import "encoding/json"

// shutdown handles "shutdown" (params absent or null): later requests are
// refused, and every folder's index is closed (checkpointed to disk) before
// the answer, so that exit is immediate.
func (s *session) shutdown(ctx *requestCtx, _ json.RawMessage) (any, error) {
	s.mu.Lock()
	s.state = stateShutdown
	s.mu.Unlock()
	s.closeFolders()
	return nil, nil
}
