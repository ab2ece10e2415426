package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpHTTP runs `ctxls mcp --http 127.0.0.1:0` in process on a small root
// and returns its URL and its token; it stops with the test.
func mcpHTTP(t *testing.T) (url, token string) {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "shop.go"), []byte("package shop\n\n// Checkout totals a cart.\nfunc Checkout(items []int) int { return len(items) }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir()) // the generated token file goes there
	var stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	rc := make(chan int, 1)
	go func() {
		rc <- runMCP(ctx, []string{"--http", "127.0.0.1:0", "--root", root, "--cache-dir", t.TempDir()}, strings.NewReader(""), io.Discard, &stderr)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-rc:
		case <-time.After(10 * time.Second):
			t.Error("ctxls mcp --http did not stop")
		}
	})
	listening := regexp.MustCompile(`listening on (http://\S+)`)
	tokenFile := regexp.MustCompile(`token file: (\S+)`)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		log := stderr.String()
		if m := listening.FindStringSubmatch(log); m != nil {
			tf := tokenFile.FindStringSubmatch(log)
			if tf == nil {
				t.Fatalf("no token file printed:\n%s", log)
			}
			b, err := os.ReadFile(tf[1])
			if err != nil {
				t.Fatal(err)
			}
			if st, err := os.Stat(tf[1]); err != nil || st.Mode().Perm() != 0o600 {
				t.Fatalf("token file mode %v, %v", st.Mode(), err)
			}
			return m[1], strings.TrimSpace(string(b))
		}
		select {
		case code := <-rc:
			t.Fatalf("ctxls mcp --http exited with %d:\n%s", code, log)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("ctxls mcp --http did not listen:\n%s", stderr.String())
	return "", ""
}

// TestMCPHTTPRefusals: each refusal of the HTTP face, against the real
// server on loopback, and the accepted path.
func TestMCPHTTPRefusals(t *testing.T) {
	url, token := mcpHTTP(t)
	post := func(header map[string]string) int {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
		req, err := http.NewRequest("POST", url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range header {
			if k == "Host" {
				req.Host = v
				continue
			}
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("a CORS header was sent: %v", resp.Header)
		}
		return resp.StatusCode
	}
	bearer := "Bearer " + token
	for _, tc := range []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"no token", nil, 403},
		{"wrong token", map[string]string{"Authorization": "Bearer nope"}, 403},
		{"token without Bearer", map[string]string{"Authorization": token}, 403},
		{"foreign Origin", map[string]string{"Authorization": bearer, "Origin": "https://evil.example"}, 403},
		{"null Origin", map[string]string{"Authorization": bearer, "Origin": "null"}, 403},
		{"foreign Host (DNS rebinding)", map[string]string{"Authorization": bearer, "Host": "evil.example.com"}, 403},
		{"the right token", map[string]string{"Authorization": bearer}, 200},
		{"the right token from a loopback page", map[string]string{"Authorization": bearer, "Origin": "http://localhost:5173"}, 200},
	} {
		if got := post(tc.header); got != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, got, tc.want)
		}
	}

	// The accepted path: a real client with the token calls a tool.
	client := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil)
	hc := &http.Client{Transport: bearerTransport{token}}
	cs, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "find_symbol", Arguments: map[string]any{"name": "Checkout"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "shop.go:3-4") {
		t.Fatalf("find_symbol over HTTP: %v %+v", err, res)
	}
}

// bearerTransport adds the token to every request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestMCPHTTPUsage: a non-loopback address without --allow-remote, and the
// network flags without --http, are usage errors.
func TestMCPHTTPUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--http", "0.0.0.0:0"},
		{"--http", "192.0.2.1:8080"},
		{"--token-file", "/tmp/x"},
		{"--allow-remote"},
	} {
		var stderr syncBuffer
		code := runMCP(context.Background(), args, strings.NewReader(""), io.Discard, &stderr)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, code, stderr.String())
		}
		if strings.Contains(args[0], "http") && !strings.Contains(stderr.String(), "--allow-remote") {
			t.Errorf("%v: the refusal does not name --allow-remote: %s", args, stderr.String())
		}
	}
}
