package lsp

import "encoding/json"

// initialized handles "initialized": the client has the initialize result,
// so the server may now call it. It registers for watched-file changes
// (when the client allows dynamic registration), pulls the "ctxls" settings
// (when the client supports workspace/configuration) and starts reporting
// indexing progress. The calls run on goroutines of their own: their
// answers arrive on the read goroutine.
func (s *session) initialized(json.RawMessage) error {
	s.mu.Lock()
	s.clientReady = true
	caps := s.caps
	folders := append([]*folder(nil), s.folders...)
	s.mu.Unlock()
	if caps.Workspace.DidChangeWatchedFiles.DynamicRegistration {
		go s.registerWatchers()
	}
	if caps.Workspace.Configuration {
		go s.fetchConfiguration()
	}
	for _, f := range folders {
		go s.reportIndexing(f)
	}
	return nil
}
