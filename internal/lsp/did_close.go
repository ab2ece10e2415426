package lsp

import (
	"encoding/json"
	"fmt"
)

// didClose handles "textDocument/didClose": the file on disk is indexed
// again in place of the buffer.
func (s *session) didClose(params json.RawMessage) error {
	var p DidCloseTextDocumentParams
	if err := json.Unmarshal(params, &p); err != nil {
		return fmt.Errorf("malformed params: %w", err)
	}
	path, err := uriToPath(p.TextDocument.URI)
	if err != nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.docs, path)
	s.act.closed(path)
	if s.lastDoc == path {
		s.lastDoc = ""
	}
	s.syncDocumentLocked(path)
	return nil
}
