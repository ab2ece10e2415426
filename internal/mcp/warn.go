package mcp

//lint:file-ignore SA1019 the logging feature, deprecated as of the protocol version 2026-07-28 but kept for at least a year, is how an MCP client hears a server's warnings (docs/mcp.md)

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The server's warnings (a root's cache directory cannot be written, so
// its index is kept in memory) reach each client once as
// notifications/message, at level warning.

// capabilities are the server's: tools, and logging for the warnings.
func capabilities() *sdk.ServerCapabilities {
	return &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}, Logging: &sdk.LoggingCapabilities{}}
}

// tellWarnings sends, at the end of a tool call, the warnings of the
// session's roots' indexes (the cache directory cannot be written) the
// client was not sent yet, as notifications/message at level warning,
// before the call's result — when the client listens at that level (see
// callLogLevel), so that each client hears each warning once.
// index_status lists them too. It also records each session's
// logging/setLevel.
func (s *Server) tellWarnings(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		ss, ok := req.GetSession().(*sdk.ServerSession)
		if !ok || err != nil {
			return res, err
		}
		switch method {
		case "logging/setLevel":
			if p, ok := req.GetParams().(*sdk.SetLoggingLevelParams); ok && p != nil {
				s.mu.Lock()
				s.client(ss).level = p.Level
				s.mu.Unlock()
			}
		case "tools/call":
			if !admitsWarning(s.callLogLevel(ss, req)) {
				break
			}
			for _, msg := range s.untold(ctx, ss) {
				if lerr := ss.Log(ctx, &sdk.LoggingMessageParams{Level: "warning", Logger: "ctxls", Data: "ctxls: " + msg}); lerr != nil {
					s.opts.Logf("tell a client: %v", lerr)
				}
			}
		}
		return res, err
	}
}

// clientState is what the server keeps of one client session.
type clientState struct {
	level sdk.LoggingLevel // the last logging/setLevel
	told  map[string]bool  // warnings sent
}

// client returns ss's state, created on first use (and forgotten when
// the session ends). Its fields are guarded by s.mu: callers lock it.
func (s *Server) client(ss *sdk.ServerSession) *clientState {
	c, ok := s.clients[ss]
	if !ok {
		c = &clientState{told: map[string]bool{}}
		s.clients[ss] = c
		go func() {
			ss.Wait()
			s.mu.Lock()
			delete(s.clients, ss)
			s.mu.Unlock()
		}()
	}
	return c
}

// callLogLevel is the level at which the client of a call hears
// notifications/message, as the SDK decides it: a call of the 2026-07-28
// protocol names it in its _meta (none: no messages); an older client sets
// it for the session with logging/setLevel (none: no messages).
func (s *Server) callLogLevel(ss *sdk.ServerSession, req sdk.Request) sdk.LoggingLevel {
	if p := req.GetParams(); p != nil {
		if m := p.GetMeta(); m != nil {
			if v, _ := m[sdk.MetaKeyProtocolVersion].(string); v >= "2026-07-28" {
				l, _ := m[sdk.MetaKeyLogLevel].(string)
				return sdk.LoggingLevel(l)
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.client(ss).level
}

// admitsWarning reports whether a client listening at level hears a
// warning.
func admitsWarning(level sdk.LoggingLevel) bool {
	switch level {
	case "", "error", "critical", "alert", "emergency":
		return false
	}
	return true
}

// untold returns the warnings of ss's roots not sent to ss yet, and
// records them as sent.
func (s *Server) untold(ctx context.Context, ss *sdk.ServerSession) []string {
	roots, err := s.roots(ctx, ss)
	if err != nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range roots {
		w := s.spaces[r]
		if w == nil {
			continue
		}
		for _, msg := range w.warned() {
			if c := s.client(ss); !c.told[msg] {
				c.told[msg] = true
				out = append(out, msg)
			}
		}
	}
	return out
}
