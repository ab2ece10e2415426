package lsp

import (
	"encoding/json"
	"fmt"
)

// didChangeConfiguration handles "workspace/didChangeConfiguration". A
// client that supports workspace/configuration is asked for the "ctxls"
// section again (the pushed payload is often null in that model);
// otherwise the pushed settings — {"ctxls": {...}} or the section itself —
// replace the previous ones ({} resets them to the initializationOptions).
func (s *session) didChangeConfiguration(params json.RawMessage) error {
	var p DidChangeConfigurationParams
	if !isNull(params) {
		if err := json.Unmarshal(params, &p); err != nil {
			return fmt.Errorf("malformed params: %w", err)
		}
	}
	s.mu.Lock()
	pull := s.caps.Workspace.Configuration
	s.mu.Unlock()
	if pull {
		go s.fetchConfiguration()
		return nil
	}
	s.setConfig(p.Settings)
	return nil
}
