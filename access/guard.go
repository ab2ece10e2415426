package access

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// GuardOptions configure Guard.
type GuardOptions struct {
	// Token is what "Authorization: Bearer TOKEN" must carry. Empty lets
	// no request through.
	Token string
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
}

// Guard returns a handler that runs next only for requests that pass, in
// this order: a Host that is a loopback name or one of opts.Hosts (else
// 403 Forbidden); an Origin that is absent, a loopback origin or one of
// opts.Origins (else 403); "Authorization: Bearer TOKEN" with opts.Token,
// compared in constant time (else 401 Unauthorized with
// "WWW-Authenticate: Bearer"). Guard sets no CORS header, and a refusal
// carries no detail a browser page could use.
func Guard(next http.Handler, opts GuardOptions) http.Handler {
	g := &guard{next: next, token: opts.Token, logf: opts.Logf}
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
	next    http.Handler
	token   string
	hosts   []string
	origins []string
	logf    func(format string, args ...any)
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.hostAllowed(r.Host) {
		g.logf("refused %s %s from %s: Host %q is not a loopback name or a configured host", r.Method, r.URL.Path, r.RemoteAddr, r.Host)
		http.Error(w, "forbidden: Host not allowed", http.StatusForbidden)
		return
	}
	if origins, ok := r.Header["Origin"]; ok && !g.originsAllowed(origins) {
		g.logf("refused %s %s from %s: Origin %q is not a loopback or configured origin", r.Method, r.URL.Path, r.RemoteAddr, strings.Join(origins, ", "))
		http.Error(w, "forbidden: Origin not allowed", http.StatusForbidden)
		return
	}
	tok, ok := bearer(r.Header.Values("Authorization"))
	if !ok {
		g.logf("refused %s %s from %s: no bearer token", r.Method, r.URL.Path, r.RemoteAddr)
		w.Header().Set("WWW-Authenticate", `Bearer realm="ctxls"`)
		http.Error(w, "unauthorized: send Authorization: Bearer TOKEN (the content of the server's token file)", http.StatusUnauthorized)
		return
	}
	if !TokenEqual(tok, g.token) {
		g.logf("refused %s %s from %s: wrong bearer token", r.Method, r.URL.Path, r.RemoteAddr)
		w.Header().Set("WWW-Authenticate", `Bearer realm="ctxls", error="invalid_token"`)
		http.Error(w, "unauthorized: wrong token", http.StatusUnauthorized)
		return
	}
	g.next.ServeHTTP(w, r)
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
