package lsp

import (
	"encoding/json"
	"fmt"
)

// didOpen handles "textDocument/didOpen": the buffer's text overrides the
// file on disk in every answer until didClose. Non-file URIs (untitled
// buffers) are kept out of the index.
func (s *session) didOpen(params json.RawMessage) error {
	var p DidOpenTextDocumentParams
	if err := json.Unmarshal(params, &p); err != nil {
		return fmt.Errorf("malformed params: %w", err)
	}
	path, err := uriToPath(p.TextDocument.URI)
	if err != nil {
		s.logf("didOpen: %v (not indexed)", err)
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.docs[path] = p.TextDocument.Text
	s.lastDoc = path
	s.act.touch(path)
	s.syncDocumentLocked(path)
	return nil
}

// syncDocumentLocked queues the index update of the document at path, in
// the folder that contains it. s.mu is held.
func (s *session) syncDocumentLocked(path string) {
	if f, rel, ok := s.folderOfLocked(path); ok {
		f.queue.push(change{kind: changeDocument, rel: rel})
	}
}
