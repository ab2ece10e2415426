package lsp

import "encoding/json"

// exit handles "exit" (params absent or null): it closes the connection,
// which ends Serve; Serve's result says whether shutdown came first.
func (s *session) exit(json.RawMessage) error {
	s.mu.Lock()
	s.exited = true
	s.mu.Unlock()
	if c := s.conn.Load(); c != nil {
		c.Close()
	}
	return nil
}
