package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/ctxls/ctxls/internal/access"
	"github.com/ctxls/ctxls/internal/workspace"
)

// Access is the admission policy of a session on a network face (`ctxls
// serve --listen`): the client proves it may connect with a token in
// initialize, and opens only the workspace folders the policy allows.
// Options.Access nil (stdio) admits the client as it is.
type Access struct {
	// Token is the secret initialize must carry as
	// initializationOptions.token (or initializationOptions.ctxls.token),
	// compared in constant time. A missing or wrong token is answered
	// with an InvalidParams error (data.field
	// "initializationOptions.token"), then the connection closes. Empty
	// admits no one.
	Token string
	// CheckRoot returns nil when the client may open the workspace folder
	// at path (absolute and clean, as the client named it), else an error
	// saying what is allowed; access.Roots.Check fits. Folders it refuses
	// fail initialize, or are not opened when added later. Nil allows
	// every folder.
	CheckRoot func(path string) error
	// AuthTimeout is how long a connection has to present the token (a
	// successful check of initialize's token) before it is closed; 0
	// means DefaultAuthTimeout. Until then frames are limited to
	// MaxUnauthenticatedMessageBytes.
	AuthTimeout time.Duration
	// FrameTimeout is how long a frame has to arrive once its first byte
	// has (plus a second per MiB of body), on a connection that takes
	// read deadlines; 0 means DefaultFrameTimeout. The time between
	// frames is not limited: an editor stays idle for hours.
	FrameTimeout time.Duration
	// Grant, when set, checks the token against an index store's tokens
	// instead of Token and returns what it grants (ctxls serve --listen
	// --store): the session reads only those repositories. It is asked
	// again before every context/assemble and context/expand (it is to
	// remember its answers a while: workspace.TokenChecker): an error
	// wrapping workspace.ErrBadToken (the token was revoked) ends the
	// session, and a grant that no longer covers a folder's repositories
	// closes that folder.
	Grant func(ctx context.Context, token string) (*workspace.Grant, error)
	// RefusalLogf, when set, receives the log line of each refused
	// client instead of the session's log (ctxls serve --listen --store
	// passes one that writes a line a second at most: refusals cost a
	// forger nothing).
	RefusalLogf func(format string, args ...any)
	// Admitted, when set, is called once, when the client has presented
	// the token (ctxls serve --listen counts the connections that have
	// not, against a cap). Set it on a copy of the policy per connection.
	Admitted func()
}

// Defaults of Access's timeouts.
const (
	// DefaultAuthTimeout: a client sends initialize first, at once; ten
	// seconds is ample on any link.
	DefaultAuthTimeout = 10 * time.Second
	// DefaultFrameTimeout: a frame is written at once by its sender; one
	// stalled for 30 s is not coming.
	DefaultFrameTimeout = 30 * time.Second
)

func (a *Access) authTimeout() time.Duration {
	if a.AuthTimeout > 0 {
		return a.AuthTimeout
	}
	return DefaultAuthTimeout
}

func (a *Access) frameTimeout() time.Duration {
	if a.FrameTimeout > 0 {
		return a.FrameTimeout
	}
	return DefaultFrameTimeout
}

// Field names of access errors (data.field).
const (
	fieldToken = "initializationOptions.token"
	tokenKey   = "token"
)

// refusalLinger bounds how long a refused connection is read (and its
// messages dropped) after the answer, before it is closed: closing a
// socket with unread input can make the kernel reset the connection, and
// the client lose the answer.
const refusalLinger = 2 * time.Second

// refusal is a handler error after whose answer the connection ends.
type refusal struct{ rpc *jsonrpc2.Error }

func (r *refusal) Error() string { return r.rpc.Message }
func (r *refusal) Unwrap() error { return r.rpc }

// admit checks initialize's token and the folders it names against the
// access policy, and removes the token from p's initializationOptions (so
// that it never reaches the settings). A token failure is a *refusal.
func (s *session) admit(p *InitializeParams) error {
	tok, rest, err := splitToken(p.InitializationOptions)
	p.InitializationOptions = rest
	switch {
	case err != nil:
		return &refusal{paramError(fieldToken, "%v", err)}
	case tok == "":
		return &refusal{paramError(fieldToken, "missing: this server listens on a socket and serves only clients that send its token "+
			"(the content of its token file, whose path it prints at start; see docs/security.md)")}
	case s.opts.Access.Grant != nil:
		g, err := s.opts.Access.Grant(s.ctx, tok)
		if err != nil {
			return &refusal{paramError(fieldToken, "%v", err)}
		}
		s.mu.Lock()
		s.grant, s.token = g, tok
		s.mu.Unlock()
		s.admitted()
		return nil // folders name repositories: storeFolderLocked checks them
	case !access.TokenEqual(tok, s.opts.Access.Token):
		return &refusal{paramError(fieldToken, "wrong token")}
	}
	s.admitted()
	if p.RootURI != nil && *p.RootURI != "" {
		if root, err := uriToPath(*p.RootURI); err == nil {
			if err := s.checkRoot(root); err != nil {
				return paramError("rootUri", "%v", err)
			}
		}
	}
	if p.RootPath != nil && *p.RootPath != "" {
		if root, err := rootPathOf(*p.RootPath); err == nil {
			if err := s.checkRoot(root); err != nil {
				return paramError("rootPath", "%v", err)
			}
		}
	}
	if _, refused := s.allowedFolders(p.WorkspaceFolders); len(refused) > 0 {
		return paramError("workspaceFolders", "%s", refused[0])
	}
	return nil
}

// admitted records that the client presented the token: its frames may
// be as large as MaxMessageBytes from now on, the authentication timeout
// no longer applies, and Access.Admitted is told (once).
func (s *session) admitted() {
	if !s.auth.CompareAndSwap(authPending, authAdmitted) {
		return // admitted before, or the timeout is closing the connection
	}
	s.stream.admitFrames()
	if f := s.opts.Access.Admitted; f != nil {
		f()
	}
}

// checkRoot applies the policy's CheckRoot, if any, to a folder root.
func (s *session) checkRoot(root string) error {
	if s.opts.Access == nil || s.opts.Access.CheckRoot == nil {
		return nil
	}
	return s.opts.Access.CheckRoot(root)
}

// allowedFolders splits folders into those the access policy allows and
// messages about those it refuses. Folders whose URI is not a local path
// are kept: initialFolders leaves them out with its own message.
func (s *session) allowedFolders(folders []WorkspaceFolder) (kept []WorkspaceFolder, refused []string) {
	for _, wf := range folders {
		if root, err := uriToPath(wf.URI); err == nil {
			if err := s.checkRoot(root); err != nil {
				refused = append(refused, fmt.Sprintf("workspace folder %s refused: %v", wf.URI, err))
				continue
			}
		}
		kept = append(kept, wf)
	}
	return kept, refused
}

// recheckGrant asks Access.Grant again what the session's token grants,
// before a request that reads repositories: a token revoked since
// initialize is a *refusal (the session ends after the answer); a grant
// that changed replaces the session's, and the folders it no longer
// covers are closed — rc's among them, which the request no longer
// reads.
func (s *session) recheckGrant(rc *requestCtx) error {
	if s.opts.Access == nil || s.opts.Access.Grant == nil {
		return nil
	}
	s.mu.Lock()
	tok, old := s.token, s.grant
	s.mu.Unlock()
	if tok == "" {
		return nil
	}
	g, err := s.opts.Access.Grant(rc, tok)
	if errors.Is(err, workspace.ErrBadToken) {
		return &refusal{rpcError(CodeRequestFailed, fmt.Sprintf("%s: %v", fieldToken, err), map[string]string{"field": fieldToken})}
	}
	if err != nil {
		return err
	}
	if old != nil && g.Name == old.Name && slices.Equal(g.Repos, old.Repos) {
		return nil
	}
	s.mu.Lock()
	s.grant = g
	var gone []*folder
	s.folders = slices.DeleteFunc(slices.Clone(s.folders), func(f *folder) bool {
		if f.repo != "" && !allowsAll(g, f.repos) {
			gone = append(gone, f)
			return true
		}
		return false
	})
	s.bg.Add(len(gone))
	s.mu.Unlock()
	rc.folders = slices.DeleteFunc(rc.folders, func(f *folder) bool {
		if slices.Contains(gone, f) {
			f.unpin()
			return true
		}
		return false
	})
	for _, f := range gone {
		s.logf("repository %s: closed (the token no longer grants it)", f.name)
		go func() {
			defer s.bg.Done()
			if err := f.close(); err != nil {
				s.logf("%v", err)
			}
		}()
	}
	return nil
}

// allowsAll reports whether g grants every one of repos.
func allowsAll(g *workspace.Grant, repos []string) bool {
	for _, r := range repos {
		if !g.Allows(r) {
			return false
		}
	}
	return true
}

// splitToken takes the token out of initializationOptions: its "token"
// member, else that of its "ctxls" object (the settings nesting). It
// returns the token ("" when absent) and the options without it. A token
// that is not a string is an error.
func splitToken(raw json.RawMessage) (string, json.RawMessage, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return "", raw, nil
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(trimmed, &top) != nil {
		return "", raw, nil
	}
	tok, found, err := takeToken(top)
	if err != nil {
		return "", raw, err
	}
	if inner, ok := top[configSection]; ok {
		var nested map[string]json.RawMessage
		if json.Unmarshal(inner, &nested) == nil {
			t, ok, err := takeToken(nested)
			if err != nil {
				return "", raw, err
			}
			if ok {
				if !found {
					tok, found = t, true
				}
				b, err := json.Marshal(nested)
				if err != nil {
					return "", raw, fmt.Errorf("initializationOptions: %w", err)
				}
				top[configSection] = b
			}
		}
	}
	if !found {
		return "", raw, nil
	}
	rest, err := json.Marshal(top)
	if err != nil {
		return "", raw, fmt.Errorf("initializationOptions: %w", err)
	}
	return tok, rest, nil
}

// takeToken removes the "token" member of m and returns its string value.
func takeToken(m map[string]json.RawMessage) (tok string, found bool, err error) {
	v, ok := m[tokenKey]
	if !ok {
		return "", false, nil
	}
	delete(m, tokenKey)
	if err := json.Unmarshal(v, &tok); err != nil || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
		return "", true, errors.New("must be a string")
	}
	return tok, true, nil
}

// refuse ends a session whose client was refused, once the refusal has
// been answered: later messages are dropped, the write side is closed so
// the client reads the answer and then the end of the stream, and Serve
// closes the connection when the client does or after refusalLinger (at
// once when the connection cannot be half-closed).
func (s *session) refuse(reason string) {
	s.mu.Lock()
	first := s.refused == ""
	if first {
		s.refused = reason
	}
	s.mu.Unlock()
	if !first {
		return
	}
	logf := s.logf
	if a := s.opts.Access; a != nil && a.RefusalLogf != nil {
		logf = a.RefusalLogf
	}
	logf("client refused: %s", reason)
	if s.stream.closeWrite() {
		close(s.refusedC) // Serve lingers, then closes
		return
	}
	// No half-close (a pipe, whose writes complete when read): close now.
	if c := s.conn.Load(); c != nil {
		c.Close()
	}
}

// restrictSettings drops the settings a client of a network face may not
// set: those that name where the server writes or sends data, or what it
// reads from its own environment. cacheDir would have the server write
// indexes of its folders wherever the client says, readable there by
// others; embeddingsEndpoint names a URL the server would post workspace
// code to, with a bearer key read from an environment variable the client
// names (keyEnv: GITHUB_TOKEN would send the server's token to the
// client's URL). On a network face the embeddings service comes only from
// the server's own flags: the mode "endpoint" is kept only when the server
// was started with one (--embeddings-endpoint), and then it is the
// server's.
func (s *session) restrictSettings(st Settings) (Settings, []string) {
	if s.opts.Access == nil {
		return st, nil
	}
	var dropped []string
	if st.CacheDir != "" {
		st.CacheDir = ""
		dropped = append(dropped, "setting cacheDir: ignored on a network connection (the server's --cache-dir applies)")
	}
	if st.EmbeddingsEndpoint != nil {
		st.EmbeddingsEndpoint = nil
		dropped = append(dropped, "setting embeddingsEndpoint: ignored on a network connection (only the server's --embeddings-endpoint applies)")
	}
	if st.Embeddings == workspace.EmbeddingsEndpoint && s.opts.EmbeddingsEndpoint == nil {
		st.Embeddings = ""
		dropped = append(dropped, `setting embeddings "endpoint": ignored on a network connection (the server was started without --embeddings-endpoint)`)
	}
	return st, dropped
}
