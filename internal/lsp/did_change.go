package lsp

import (
	"encoding/json"
	"fmt"
)

// didChange handles "textDocument/didChange", full (no range) and
// incremental (ranges in UTF-16 code units) changes alike. A change that
// cannot be applied leaves the buffer as it was and is reported: the
// client's state and ours have diverged, and a didClose/didOpen resyncs.
func (s *session) didChange(params json.RawMessage) error {
	var p DidChangeTextDocumentParams
	if err := json.Unmarshal(params, &p); err != nil {
		return fmt.Errorf("malformed params: %w", err)
	}
	path, err := uriToPath(p.TextDocument.URI)
	if err != nil {
		return nil // not a file: never indexed
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.docs[path]
	if !ok {
		return fmt.Errorf("%s is not open", p.TextDocument.URI)
	}
	text, err := applyChanges(old, p.ContentChanges)
	if err != nil {
		return fmt.Errorf("%s version %d: %w", p.TextDocument.URI, p.TextDocument.Version, err)
	}
	s.docs[path] = text
	s.lastDoc = path
	s.act.edited(path, old, text)
	s.syncDocumentLocked(path)
	return nil
}
