package lsp

import (
	"encoding/json"
	"fmt"
)

// didChangeWorkspaceFolders handles "workspace/didChangeWorkspaceFolders":
// removed folders are closed in the background (after the requests
// reading them finish); added folders open and index in the background,
// but those the access policy refuses (Options.Access) are reported with
// window/showMessage and window/logMessage errors and not opened.
func (s *session) didChangeWorkspaceFolders(params json.RawMessage) error {
	var p DidChangeWorkspaceFoldersParams
	if err := json.Unmarshal(params, &p); err != nil {
		return fmt.Errorf("malformed params: %w", err)
	}
	for _, wf := range p.Event.Removed {
		root, err := uriToPath(wf.URI)
		if err != nil {
			s.logf("remove workspace folder: %v", err)
			continue
		}
		if s.removeFolder(root) {
			s.logMessage(messageTypeInfo, "ctxls: workspace folder removed: "+root)
		}
	}
	allowed, refused := s.allowedFolders(p.Event.Added)
	for _, msg := range refused {
		s.logf("%s", msg)
		s.showMessage(messageTypeError, "ctxls: "+msg)
		s.logMessage(messageTypeError, "ctxls: "+msg)
	}
	added, problems := initialFolders(InitializeParams{WorkspaceFolders: allowed})
	for _, msg := range problems {
		s.logMessage(messageTypeWarning, "ctxls: "+msg)
	}
	s.mu.Lock()
	for _, wf := range added {
		s.addFolderLocked(wf)
	}
	s.mu.Unlock()
	for _, wf := range added {
		s.logMessage(messageTypeInfo, "ctxls: workspace folder added: "+wf.URI)
	}
	return nil
}
