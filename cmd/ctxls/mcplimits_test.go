package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The answers, limits and deadlines of `ctxls mcp --http`, against the
// real binary (this test binary run as ctxls).

// mcpLimServer is a `ctxls mcp --http` child process.
type mcpLimServer struct {
	url    string // http://127.0.0.1:PORT/mcp
	host   string // 127.0.0.1:PORT
	token  string
	stderr *syncBuffer
}

// mcpLimStart starts `ctxls mcp --http 127.0.0.1:0` on a small root with
// a token file of its own and the extra environment variables env, and
// stops it with the test.
func mcpLimStart(t *testing.T, env ...string) *mcpLimServer {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	token := "mcp-limits-token-0123456789"
	for name, content := range map[string]string{
		"root/shop.go": "package shop\n\n// Checkout totals a cart.\nfunc Checkout(items []int) int { return len(items) }\n",
		"token":        token + "\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(os.Args[0], "mcp", "--http", "127.0.0.1:0", "--root", root,
		"--cache-dir", filepath.Join(dir, "cache"), "--token-file", filepath.Join(dir, "token"))
	cmd.Env = append(append(os.Environ(), runAsMain+"=1"), env...)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(faceTimeout):
			cmd.Process.Kill()
			<-exited
			t.Errorf("ctxls mcp --http did not stop on an interrupt; stderr:\n%s", stderr.String())
		}
	})
	listening := regexp.MustCompile(`listening on (http://(\S+)/mcp)`)
	deadline := time.Now().Add(faceTimeout)
	for time.Now().Before(deadline) {
		if m := listening.FindStringSubmatch(stderr.String()); m != nil {
			return &mcpLimServer{url: m[1], host: m[2], token: token, stderr: stderr}
		}
		select {
		case <-exited:
			t.Fatalf("ctxls mcp --http exited before listening:\n%s", stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("ctxls mcp --http did not listen:\n%s", stderr.String())
	return nil
}

// mcpLimInitialize is an MCP initialize request's body.
const mcpLimInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// mcpLimDo sends one request on a new connection and returns the
// response with its body read.
func mcpLimDo(t *testing.T, method, url, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: faceTimeout}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// mcpLimRaw opens a TCP connection to the server for hand-written HTTP.
func mcpLimRaw(t *testing.T, s *mcpLimServer) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", s.host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, bufio.NewReader(c)
}

// mcpLimClosed checks that the server closes c (after what it sends,
// read from r) within d.
func mcpLimClosed(t *testing.T, c net.Conn, r *bufio.Reader, d time.Duration, what string) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, r)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Errorf("%s: the connection is still open after %v", what, d)
	}
}

// TestMCPHTTPNoOAuth: a request without the token, or with a wrong one,
// is answered 403 with a text that says what to send — no
// WWW-Authenticate, no "401" or "Unauthorized", nothing an MCP client
// takes for the start of OAuth — and OAuth's discovery and registration
// paths are 404.
func TestMCPHTTPNoOAuth(t *testing.T) {
	s := mcpLimStart(t)
	for _, c := range []struct {
		name   string
		header map[string]string
		want   string
	}{
		{"no token", nil, `send the header "Authorization: Bearer TOKEN"`},
		{"another scheme", map[string]string{"Authorization": "Basic " + s.token}, `send the header "Authorization: Bearer TOKEN"`},
		{"wrong token", map[string]string{"Authorization": "Bearer wrong-token-0123456789"}, "wrong token"},
	} {
		resp, body := mcpLimDo(t, "POST", s.url, mcpLimInitialize, c.header)
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, c.want) || !strings.Contains(body, "token file") {
			t.Errorf("%s: %d %q, want 403 saying %q and naming the token file", c.name, resp.StatusCode, body, c.want)
		}
		if h := resp.Header.Values("WWW-Authenticate"); len(h) > 0 {
			t.Errorf("%s: WWW-Authenticate %q invites OAuth", c.name, h)
		}
		if strings.Contains(body, "401") || strings.Contains(body, "Unauthorized") {
			t.Errorf("%s: the text %q reads as a 401 to the MCP Inspector", c.name, body)
		}
		if !resp.Close {
			t.Errorf("%s: the refusal keeps the connection", c.name)
		}
	}
	for _, p := range []string{
		"/.well-known/oauth-protected-resource",
		"/.well-known/oauth-protected-resource/mcp",
		"/.well-known/oauth-authorization-server",
		"/.well-known/oauth-authorization-server/mcp",
		"/.well-known/openid-configuration",
	} {
		resp, body := mcpLimDo(t, "GET", "http://"+s.host+p, "", nil)
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "does no OAuth") {
			t.Errorf("GET %s: %d %q, want 404 saying the server does no OAuth", p, resp.StatusCode, body)
		}
	}
	if resp, _ := mcpLimDo(t, "POST", "http://"+s.host+"/register", `{"redirect_uris":["http://localhost/cb"]}`, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST /register: %d, want 404", resp.StatusCode)
	}
	if resp, body := mcpLimDo(t, "POST", s.url, mcpLimInitialize, map[string]string{"Authorization": "Bearer " + s.token}); resp.StatusCode != http.StatusOK {
		t.Errorf("with the token: %d %q", resp.StatusCode, body)
	}
}

// TestMCPHTTPRefusalCloses: a refused request's connection is closed after
// the answer — no idle keep-alive, and no waiting for a body the client
// withholds (net/http drained up to 256 KiB of it for ever).
func TestMCPHTTPRefusalCloses(t *testing.T) {
	s := mcpLimStart(t)
	for _, c := range []struct {
		name, request string
	}{
		{"keep-alive after a refusal", fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
			s.host, len(mcpLimInitialize), mcpLimInitialize)},
		{"a withheld body", fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\"",
			s.host)},
		{"a withheld body at an OAuth path", fmt.Sprintf("POST /register HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{",
			s.host)},
	} {
		conn, r := mcpLimRaw(t, s)
		conn.SetDeadline(time.Now().Add(faceTimeout))
		io.WriteString(conn, c.request)
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: status %d", c.name, resp.StatusCode)
		}
		if !resp.Close {
			t.Errorf("%s: no Connection: close", c.name)
		}
		mcpLimClosed(t, conn, r, 3*time.Second, c.name)
	}
}

// TestMCPHTTPBodyLimits: a request with the token whose body is over
// 32 MiB is refused with 413 naming the limit (before it is read when
// Content-Length announces it); a body dripped slower than
// $CTXLS_READ_DEADLINE allows is cut with 408 and the connection closed;
// headers that do not arrive within $CTXLS_AUTH_DEADLINE close the
// connection; an event stream stays open past both deadlines.
func TestMCPHTTPBodyLimits(t *testing.T) {
	s := mcpLimStart(t, envReadDeadline+"=1s", envAuthDeadline+"=1s")
	auth := "Authorization: Bearer " + s.token + "\r\n"
	head := func(extra string) string {
		return fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\n%sContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n%s\r\n",
			s.host, auth, extra)
	}
	readStatus := func(name string, r *bufio.Reader) (*http.Response, string) {
		t.Helper()
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}

	// Announced over the limit: refused before any of it is sent.
	conn, r := mcpLimRaw(t, s)
	conn.SetDeadline(time.Now().Add(faceTimeout))
	io.WriteString(conn, head(fmt.Sprintf("Content-Length: %d\r\n", 33<<20)))
	resp, body := readStatus("announced 33 MiB", r)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, "over the limit of 33554432 bytes (32 MiB)") {
		t.Errorf("announced 33 MiB: %d %q, want 413 naming the limit", resp.StatusCode, body)
	}
	mcpLimClosed(t, conn, r, 3*time.Second, "announced 33 MiB")

	// Chunked, no length announced: refused once the limit is passed —
	// on a server whose read deadline leaves the 32 MiB time to arrive on
	// a loaded machine (under -race beside other jobs, 1 s did not).
	roomy := mcpLimStart(t, envReadDeadline+"=60s")
	pr, pw := io.Pipe()
	go func() {
		chunk := strings.Repeat(" ", 1<<20)
		for range 40 {
			if _, err := io.WriteString(pw, chunk); err != nil {
				return
			}
		}
		pw.Close()
	}()
	req, _ := http.NewRequest("POST", roomy.url, pr)
	req.Header.Set("Authorization", "Bearer "+roomy.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: faceTimeout}
	if resp, err := hc.Do(req); err != nil {
		t.Errorf("a chunked body of 40 MiB: %v", err)
	} else {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(b), "over the limit of 33554432 bytes") {
			t.Errorf("a chunked body of 40 MiB: %d %q, want 413 naming the limit", resp.StatusCode, b)
		}
	}
	pr.Close()

	// Dripped: cut at the deadline.
	conn, r = mcpLimRaw(t, s)
	conn.SetDeadline(time.Now().Add(faceTimeout))
	io.WriteString(conn, head("Content-Length: 1000\r\n"))
	start := time.Now()
	stop := make(chan struct{})
	defer close(stop)
	go func(dripping net.Conn) {
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			if _, err := dripping.Write([]byte(" ")); err != nil {
				return
			}
		}
	}(conn)
	conn.SetReadDeadline(time.Now().Add(8 * time.Second))
	resp, body = readStatus("a dripped body", r)
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(body, "request body not received within 1s") {
		t.Errorf("a dripped body: %d %q, want 408 naming the deadline", resp.StatusCode, body)
	}
	if d := time.Since(start); d < 900*time.Millisecond {
		t.Errorf("a dripped body was cut after %v, before the deadline", d)
	}
	mcpLimClosed(t, conn, r, 3*time.Second, "a dripped body")

	// Headers that stop coming.
	conn, r = mcpLimRaw(t, s)
	io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: "+s.host+"\r\n")
	mcpLimClosed(t, conn, r, 4*time.Second, "headers that stop coming")

	// An event stream outlives both deadlines.
	resp, _ = mcpLimDo(t, "POST", s.url, mcpLimInitialize, map[string]string{"Authorization": "Bearer " + s.token})
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize with the token: %d, session %q", resp.StatusCode, session)
	}
	conn, r = mcpLimRaw(t, s)
	conn.SetDeadline(time.Now().Add(faceTimeout))
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\n%sMcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-06-18\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s",
		s.host, auth, session, len(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if resp, _ := readStatus("initialized", r); resp.StatusCode/100 != 2 {
		t.Fatalf("notifications/initialized: %d", resp.StatusCode)
	}
	fmt.Fprintf(conn, "GET /mcp HTTP/1.1\r\nHost: %s\r\n%sMcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-06-18\r\nAccept: text/event-stream\r\n\r\n", s.host, auth, session)
	resp, err := http.ReadResponse(r, nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET event stream: %v %v", err, resp)
	}
	conn.SetReadDeadline(time.Now().Add(2500 * time.Millisecond))
	_, err = io.Copy(io.Discard, resp.Body)
	if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
		t.Errorf("the event stream ended within 2.5 s (%v), want it open past the 1 s deadlines", err)
	}
}
