package lsp

import (
	"encoding/json"
	"fmt"
	"strings"
)

// didChangeWatchedFiles handles "workspace/didChangeWatchedFiles": each
// changed path goes to its folder's Root (one queue of disk changes per
// root, workspace.Root.Changed) and is re-read from disk by the shared index (created
// and changed files updated, deleted files and directories dropped, a new
// directory listed); a session's open buffer of the path still overrides
// the disk in that session's answers.
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
		if f, rel, ok := s.folderOfLocked(path); ok && !inVCSDir(rel) {
			f.diskChanged(rel)
		}
	}
	return nil
}

// inVCSDir reports whether rel lies in version-control metadata, which is
// never indexed (a commit changes hundreds of files there), except
// .git/info/exclude, whose rules decide what is indexed.
func inVCSDir(rel string) bool {
	if rel == ".git/info/exclude" {
		return false
	}
	for _, seg := range strings.Split(rel, "/") {
		switch seg {
		case ".git", ".hg", ".svn", ".jj", ".bzr":
			return true
		}
	}
	return false
}
