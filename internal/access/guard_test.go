package access

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const guardToken = "guard-token-0123456789abcdef"

// guardedServer serves "secret answer" behind Guard on a real loopback
// listener and counts the requests that got through.
func guardedServer(t *testing.T, opts GuardOptions) (srv *httptest.Server, reached *int, refusals *[]string) {
	t.Helper()
	reached, refusals = new(int), new([]string)
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*reached++
		io.WriteString(w, "secret answer")
	})
	opts.Logf = func(format string, args ...any) { *refusals = append(*refusals, fmt.Sprintf(format, args...)) }
	srv = httptest.NewServer(Guard(inner, opts))
	t.Cleanup(srv.Close)
	return srv, reached, refusals
}

type guardCase struct {
	name    string
	host    string // "" keeps the URL's host
	headers map[string]string
	method  string
	status  int
}

func runGuardCase(t *testing.T, srv *httptest.Server, c guardCase) *http.Response {
	t.Helper()
	method := c.method
	if method == "" {
		method = http.MethodPost
	}
	req, err := http.NewRequest(method, srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.host != "" {
		req.Host = c.host
	}
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != c.status {
		t.Errorf("%s: status %d, want %d (%s)", c.name, resp.StatusCode, c.status, body)
	}
	if c.status != http.StatusOK && strings.Contains(string(body), "secret answer") {
		t.Errorf("%s: a refused request got the answer", c.name)
	}
	for k := range resp.Header {
		if strings.HasPrefix(strings.ToLower(k), "access-control-") {
			t.Errorf("%s: CORS header %s set", c.name, k)
		}
	}
	return resp
}

func TestGuard(t *testing.T) {
	srv, reached, refusals := guardedServer(t, GuardOptions{Token: guardToken})
	auth := "Bearer " + guardToken
	cases := []guardCase{
		{name: "right token", headers: map[string]string{"Authorization": auth}, status: 200},
		{name: "scheme in lower case", headers: map[string]string{"Authorization": "bearer " + guardToken}, status: 200},
		{name: "Host localhost with a port", host: "localhost:1234", headers: map[string]string{"Authorization": auth}, status: 200},
		{name: "Host localhost without a port", host: "localhost", headers: map[string]string{"Authorization": auth}, status: 200},
		{name: "Host [::1]", host: "[::1]:80", headers: map[string]string{"Authorization": auth}, status: 200},
		{name: "Host 127.9.9.9", host: "127.9.9.9:80", headers: map[string]string{"Authorization": auth}, status: 200},
		{name: "loopback Origin", headers: map[string]string{"Authorization": auth, "Origin": "http://localhost:5173"}, status: 200},
		{name: "loopback Origin https [::1]", headers: map[string]string{"Authorization": auth, "Origin": "https://[::1]:8443"}, status: 200},

		{name: "no token", status: tokenRefusal},
		{name: "wrong token", headers: map[string]string{"Authorization": "Bearer " + guardToken + "x"}, status: tokenRefusal},
		{name: "token prefix", headers: map[string]string{"Authorization": "Bearer " + guardToken[:10]}, status: tokenRefusal},
		{name: "basic auth", headers: map[string]string{"Authorization": "Basic " + guardToken}, status: tokenRefusal},
		{name: "empty bearer", headers: map[string]string{"Authorization": "Bearer "}, status: tokenRefusal},

		// DNS rebinding: a page of evil.example resolved to 127.0.0.1
		// sends its own name as Host, with the right token even.
		{name: "foreign Host", host: "evil.example.com", headers: map[string]string{"Authorization": auth}, status: 403},
		{name: "foreign Host with a port", host: "evil.example.com:8080", headers: map[string]string{"Authorization": auth}, status: 403},
		{name: "Host that starts like a loopback address", host: "127.0.0.1.evil.example:80", headers: map[string]string{"Authorization": auth}, status: 403},
		{name: "Host localhost.evil", host: "localhost.evil.example", headers: map[string]string{"Authorization": auth}, status: 403},
		{name: "foreign Origin", headers: map[string]string{"Authorization": auth, "Origin": "https://evil.example.com"}, status: 403},
		{name: "foreign Origin, loopback port", headers: map[string]string{"Authorization": auth, "Origin": "http://evil.example.com:" + srv.Listener.Addr().String()[len("127.0.0.1:"):]}, status: 403},
		{name: "null Origin", headers: map[string]string{"Authorization": auth, "Origin": "null"}, status: 403},
		{name: "file Origin", headers: map[string]string{"Authorization": auth, "Origin": "file://"}, status: 403},
		{name: "foreign Origin preflight", method: http.MethodOptions, headers: map[string]string{"Origin": "https://evil.example.com", "Access-Control-Request-Method": "POST"}, status: 403},
		{name: "loopback Origin preflight without token", method: http.MethodOptions, headers: map[string]string{"Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST"}, status: tokenRefusal},
	}
	want := 0
	for _, c := range cases {
		resp := runGuardCase(t, srv, c)
		// No refusal invites OAuth (see tokenRefusal), and none keeps
		// the connection.
		if c.status != http.StatusOK && (resp.Header.Get("WWW-Authenticate") != "" || !resp.Close) {
			t.Errorf("%s: WWW-Authenticate %q, connection kept %v", c.name, resp.Header.Get("WWW-Authenticate"), !resp.Close)
		}
		if c.status == http.StatusOK {
			want++
		}
	}
	if *reached != want {
		t.Errorf("the inner handler ran %d times, want %d", *reached, want)
	}
	for _, line := range *refusals {
		if strings.Contains(line, guardToken[:10]) {
			t.Errorf("a refusal log line holds the token: %s", line)
		}
	}
	if len(*refusals) != len(cases)-want {
		t.Errorf("%d refusals logged, want %d", len(*refusals), len(cases)-want)
	}
}

func TestGuardConfigured(t *testing.T) {
	srv, _, _ := guardedServer(t, GuardOptions{
		Token:   guardToken,
		Hosts:   []string{"ctxls.lan", "Build-Box:8080"},
		Origins: []string{"https://IDE.example.com/"},
	})
	auth := "Bearer " + guardToken
	for _, c := range []guardCase{
		{name: "configured host, any port", host: "ctxls.lan:9999", headers: map[string]string{"Authorization": auth}, status: 200},
		{name: "configured host:port", host: "build-box:8080", headers: map[string]string{"Authorization": auth}, status: 200},
		{name: "configured host, other port", host: "build-box:8081", headers: map[string]string{"Authorization": auth}, status: 403},
		{name: "configured origin", headers: map[string]string{"Authorization": auth, "Origin": "https://ide.example.com"}, status: 200},
		{name: "configured origin, other scheme", headers: map[string]string{"Authorization": auth, "Origin": "http://ide.example.com"}, status: 403},
		{name: "configured host, no token", host: "ctxls.lan", status: tokenRefusal},
	} {
		runGuardCase(t, srv, c)
	}
}

// An empty token lets no one in.
func TestGuardEmptyToken(t *testing.T) {
	srv, reached, _ := guardedServer(t, GuardOptions{})
	for _, a := range []string{"", "Bearer ", "Bearer x"} {
		runGuardCase(t, srv, guardCase{name: "empty token " + a, headers: map[string]string{"Authorization": a}, status: tokenRefusal})
	}
	if *reached != 0 {
		t.Errorf("the inner handler ran %d times", *reached)
	}
}

func TestIsLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST": true, "localhost.": true, "127.0.0.1": true, "127.255.0.9": true,
		"::1": true, "::ffff:127.0.0.1": true,
		"": false, "0.0.0.0": false, "::": false, "10.0.0.1": false, "example.com": false,
		"localhost.example.com": false, "sub.localhost": false, "128.0.0.1": false,
	} {
		if got := IsLoopbackHost(host); got != want {
			t.Errorf("IsLoopbackHost(%q) = %v", host, got)
		}
	}
}
