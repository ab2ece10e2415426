package lsp

import (
	"encoding/json"
	"fmt"
)

// didChangeWatchedFiles handles "workspace/didChangeWatchedFiles": each
// changed path is re-read from disk by its folder's index (created and
// changed files updated, deleted files and directories dropped), unless an
// open buffer overrides it.
func (s *session) didChangeWatchedFiles(params json.RawMessage) error {
	var p DidChangeWatchedFilesParams
	if err := json.Unmarshal(params, &p); err != nil {
		return fmt.Errorf("malformed params: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range p.Changes {
		path, err := uriToPath(c.URI)
		if err != nil {
			continue
		}
		if f, rel, ok := s.folderOfLocked(path); ok {
			f.queue.push(change{kind: changeDisk, rel: rel})
		}
	}
	return nil
}
