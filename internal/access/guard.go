package access

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"time"
)

// GuardOptions configure Guard.
type GuardOptions struct {
	// Token is what "Authorization: Bearer TOKEN" must carry. Empty lets
	// no request through.
	Token string
	// Verify, when set, judges the bearer token instead of Token (a
	// server of an index store accepts the store's tokens): nil lets the
	// request through.
	Verify func(r *http.Request, token string) error
	// Hosts are Host header values accepted besides the loopback names
	// (for a server reached by name with --allow-remote): "name" accepts
	// that name with any port, "name:port" that port only. Compared
	// without regard to case.
	Hosts []string
	// Origins are Origin header values accepted besides the loopback
	// origins, as scheme://host[:port] (no path). Compared without regard
	// to case.
	Origins []string
	// Logf, when set, receives one line per refused request (never the
	// token).
	Logf func(format string, args ...any)
	// MaxBody is the largest request body a request with the token may
	// send; a larger one is refused with 413 naming the limit — before
	// any of it is read when Content-Length announces it. 0 means
	// DefaultMaxBody.
	MaxBody int64
	// BodyTimeout is how long a request with the token has, once its
	// headers are in, to send its whole body; a slower one is refused
	// with 408 and its connection closed. 0 means DefaultBodyTimeout.
	BodyTimeout time.Duration
}

// Defaults of GuardOptions.
const (
	// DefaultMaxBody bounds a request body: a JSON-RPC message of MCP is
	// a few KiB; 4 MiB is room for large arguments. A server whose tools
	// take larger ones sets MaxBody.
	DefaultMaxBody = 4 << 20
	// DefaultBodyTimeout bounds the time a body takes to arrive: a client
	// writes its request at once; 30 s carries megabytes over a slow
	// link, and a body dripped byte by byte is cut there.
	DefaultBodyTimeout = 30 * time.Second
)

// refusalDrain is how long net/http may read a refused request's unread
// body after the answer (it reads up to 256 KiB of it before closing,
// which without a deadline waits for ever on a client that withholds it).
const refusalDrain = time.Second

// Guard returns a handler that runs next only for requests that pass, in
// this order: a Host that is a loopback name or one of opts.Hosts (else
// 403 Forbidden); an Origin that is absent, a loopback origin or one of
// opts.Origins (else 403); "Authorization: Bearer TOKEN" with opts.Token,
// compared in constant time (else 403, see tokenRefusal); then a body of
// at most opts.MaxBody bytes (else 413) that arrives within
// opts.BodyTimeout (else 408). No body byte is read before the token has
// been checked. Every refusal closes the connection ("Connection: close":
// no keep-alive for a refused client) and its unread body is not waited
// for. Guard sets no CORS header, and a refusal carries no detail a
// browser page could use.
//
// The body is read by Guard, under a read deadline of its own, and next
// gets it from memory: only a request with the token has its body read
// at all, and a body too large or too slow is refused with a status and
// a line naming the limit (an http.Server ReadTimeout would make the read
// fail inside next, which answers a generic error). The deadline is
// lifted before next runs, so that next's answers may take as long as
// they need (a Streamable HTTP response stream); a server using Guard
// sets no WriteTimeout, which would end them.
func Guard(next http.Handler, opts GuardOptions) http.Handler {
	g := &guard{next: next, token: opts.Token, verify: opts.Verify, logf: opts.Logf, maxBody: opts.MaxBody, bodyTimeout: opts.BodyTimeout}
	if g.maxBody <= 0 {
		g.maxBody = DefaultMaxBody
	}
	if g.bodyTimeout <= 0 {
		g.bodyTimeout = DefaultBodyTimeout
	}
	for _, h := range opts.Hosts {
		g.hosts = append(g.hosts, strings.ToLower(strings.TrimSpace(h)))
	}
	for _, o := range opts.Origins {
		g.origins = append(g.origins, strings.ToLower(strings.TrimSuffix(strings.TrimSpace(o), "/")))
	}
	if g.logf == nil {
		g.logf = func(string, ...any) {}
	}
	return g
}

type guard struct {
	next        http.Handler
	token       string
	verify      func(r *http.Request, token string) error
	hosts       []string
	origins     []string
	logf        func(format string, args ...any)
	maxBody     int64
	bodyTimeout time.Duration
}

// tokenRefusal is the status of a request without the right token: 403
// Forbidden, not 401. A 401 is what MCP clients answer with OAuth: the
// MCP authorization spec (2025-06-18, 2025-11-25, "Authorization Server
// Discovery") has a client respond to a 401 by fetching
// /.well-known/oauth-protected-resource and the authorization server's
// metadata, then register itself; the TypeScript SDK's
// StreamableHTTPClientTransport (src/client/streamableHttp.ts, send and
// _startOrAuthSse) runs auth() on every 401 when the client has an auth
// provider — whatever WWW-Authenticate says, error="invalid_token" or no
// resource_metadata included — and auth() (src/client/auth.ts,
// discoverOAuthServerInfo) falls back to the server's own origin and
// POSTs /register, so Claude Code and the MCP Inspector failed with
// "Dynamic Client Registration" errors instead of saying the token is
// missing. On a 403 the SDK starts OAuth only for
// error="insufficient_scope"; otherwise it throws StreamableHTTPError
// with the answer's text, which names what to send. This server does no
// OAuth: a 403 whose text says so (RFC 9110 §15.5.4: the server refuses
// the request, and credentials, if any, are insufficient), no
// WWW-Authenticate, and 404 at the OAuth discovery paths (NotFound).
// The text never holds "401" or "Unauthorized", which the MCP Inspector
// takes for a 401 by its message.
const tokenRefusal = http.StatusForbidden

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.hostAllowed(r.Host) {
		g.logf("refused %s %s from %s: Host %q is not a loopback name or a configured host", r.Method, r.URL.Path, r.RemoteAddr, r.Host)
		refuse(w, http.StatusForbidden, "forbidden: Host not allowed")
		return
	}
	if origins, ok := r.Header["Origin"]; ok && !g.originsAllowed(origins) {
		g.logf("refused %s %s from %s: Origin %q is not a loopback or configured origin", r.Method, r.URL.Path, r.RemoteAddr, strings.Join(origins, ", "))
		refuse(w, http.StatusForbidden, "forbidden: Origin not allowed")
		return
	}
	tok, ok := bearer(r.Header.Values("Authorization"))
	if !ok {
		g.logf("refused %s %s from %s: no bearer token", r.Method, r.URL.Path, r.RemoteAddr)
		refuse(w, tokenRefusal, "forbidden: no token: this server does no OAuth; send the header "+
			"\"Authorization: Bearer TOKEN\", TOKEN being the content of the token file the server printed at start (see docs/mcp.md)")
		return
	}
	if g.verify != nil {
		if err := g.verify(r, tok); err != nil {
			g.logf("refused %s %s from %s: %v", r.Method, r.URL.Path, r.RemoteAddr, err)
			refuse(w, tokenRefusal, "forbidden: "+err.Error())
			return
		}
	} else if !TokenEqual(tok, g.token) {
		g.logf("refused %s %s from %s: wrong bearer token", r.Method, r.URL.Path, r.RemoteAddr)
		refuse(w, tokenRefusal, "forbidden: wrong token: send the content of the token file the server printed at start "+
			"(a generated token changes at each start; see docs/mcp.md)")
		return
	}
	if r.ContentLength > g.maxBody {
		g.logf("refused %s %s from %s: a body of %d bytes, over the limit of %d", r.Method, r.URL.Path, r.RemoteAddr, r.ContentLength, g.maxBody)
		refuse(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body too large: %d bytes, over the limit of %d bytes (%s)",
			r.ContentLength, g.maxBody, SizeText(g.maxBody)))
		return
	}
	if r.Body != nil && r.Body != http.NoBody {
		body, status, err := g.readBody(w, r)
		if err != nil {
			g.logf("refused %s %s from %s: %v", r.Method, r.URL.Path, r.RemoteAddr, err)
			refuse(w, status, err.Error())
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	g.next.ServeHTTP(w, r)
}

// readBody reads r's body, at most g.maxBody bytes within g.bodyTimeout,
// and lifts the deadline afterwards. On failure it returns the status to
// answer and an error that says which limit was hit.
func (g *guard) readBody(w http.ResponseWriter, r *http.Request) ([]byte, int, error) {
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(g.bodyTimeout)) // http.ErrNotSupported: no deadline (a test recorder)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, g.maxBody))
	rc.SetReadDeadline(time.Time{}) // net/http lifts it too once the body is read to its end
	var tooLarge *http.MaxBytesError
	switch {
	case err == nil:
		return body, 0, nil
	case errors.As(err, &tooLarge):
		return nil, http.StatusRequestEntityTooLarge, fmt.Errorf("request body too large: over the limit of %d bytes (%s)", g.maxBody, SizeText(g.maxBody))
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, http.StatusRequestTimeout, fmt.Errorf("request body not received within %v", g.bodyTimeout)
	}
	return nil, http.StatusBadRequest, fmt.Errorf("reading the request body: %w", err)
}

// refuse answers a refused request with status and msg, and closes the
// connection after the answer without waiting for the request's unread
// body (refusalDrain).
func refuse(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Connection", "close")
	http.NewResponseController(w).SetReadDeadline(time.Now().Add(refusalDrain))
	http.Error(w, msg, status)
}

// NotFound answers 404 to every request, and closes the connection
// without reading its body. ctxls mcp --http serves it at every path but
// its endpoint, OAuth's discovery paths (/.well-known/oauth-protected-resource,
// /.well-known/oauth-authorization-server, /.well-known/openid-configuration)
// and registration (/register) among them: an MCP client that probes them
// learns that this server does no OAuth (see tokenRefusal).
func NotFound() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		refuse(w, http.StatusNotFound, "not found: this server does no OAuth; its endpoint takes the header "+
			"\"Authorization: Bearer TOKEN\", TOKEN being the content of the token file the server printed at start (see docs/mcp.md)")
	})
}

// SizeText writes n bytes the way limits are named to users: "64 KiB",
// "16 MiB" when n is a whole number of them, else "N bytes". Every face's
// limit messages use it.
func SizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// hostAllowed checks a Host header value (name or name:port).
func (g *guard) hostAllowed(hostport string) bool {
	hostport = strings.ToLower(hostport)
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	if host == "" {
		return false
	}
	if IsLoopbackHost(host) {
		return true
	}
	for _, h := range g.hosts {
		if h == hostport || h == host {
			return true
		}
	}
	return false
}

// originsAllowed checks the Origin header's values (one in practice).
func (g *guard) originsAllowed(origins []string) bool {
	if len(origins) == 0 {
		return false
	}
	for _, o := range origins {
		if !g.originAllowed(o) {
			return false
		}
	}
	return true
}

func (g *guard) originAllowed(origin string) bool {
	origin = strings.ToLower(strings.TrimSpace(origin))
	for _, o := range g.origins {
		if o == origin {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return false // "null", file:, chrome-extension:, …
	}
	return IsLoopbackHost(u.Hostname())
}

// bearer extracts the token of "Authorization: Bearer TOKEN" (the scheme
// without regard to case); more than one Authorization header is refused.
func bearer(values []string) (string, bool) {
	if len(values) != 1 {
		return "", false
	}
	scheme, tok, ok := strings.Cut(strings.TrimSpace(values[0]), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}

// IsLoopbackHost reports whether host (a name or IP address without port
// or brackets) names this machine's loopback interface: "localhost" (with
// or without a final dot), 127.0.0.0/8 or ::1 (IPv4-mapped forms too).
// Other names are not resolved.
func IsLoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}
