package access

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// glimPost posts body to srv's /mcp with the token; chunked sends it
// without a Content-Length.
func glimPost(t *testing.T, srv *httptest.Server, body string, chunked bool) (int, string) {
	t.Helper()
	var r io.Reader = strings.NewReader(body)
	if chunked {
		r = io.MultiReader(r) // no length known: sent chunked
	}
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/mcp", r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+guardToken)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The body a request with the token sends reaches the handler whole; a
// body over MaxBody is refused with 413 naming the limit, announced or
// not, and the handler never runs for it.
func TestGuardBodyLimit(t *testing.T) {
	var got []string
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("the handler's body: %v", err)
		}
		got = append(got, string(b))
	})
	srv := httptest.NewServer(Guard(inner, GuardOptions{Token: guardToken, MaxBody: 1024}))
	defer srv.Close()
	for _, chunked := range []bool{false, true} {
		got = nil
		body := strings.Repeat("a", 1024)
		if status, _ := glimPost(t, srv, body, chunked); status != http.StatusOK || len(got) != 1 || got[0] != body {
			t.Errorf("chunked %v: a body at the limit: status %d, the handler got %d bodies", chunked, status, len(got))
		}
		got = nil
		status, text := glimPost(t, srv, body+"b", chunked)
		if status != http.StatusRequestEntityTooLarge || !strings.Contains(text, "over the limit of 1024 bytes (1 KiB)") {
			t.Errorf("chunked %v: a body over the limit: %d %q, want 413 naming the limit", chunked, status, text)
		}
		if len(got) != 0 {
			t.Errorf("chunked %v: the handler ran for a body over the limit", chunked)
		}
	}
}

// The body's deadline does not outlive the body: an answer that takes
// longer than BodyTimeout is not cut (a read deadline left on the
// connection would cancel the request when net/http's background read
// fails).
func TestGuardLongAnswerAfterBody(t *testing.T) {
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
			t.Errorf("the request was cancelled while answering: %v", r.Context().Err())
			return
		case <-time.After(600 * time.Millisecond):
		}
		io.WriteString(w, "late answer")
	})
	srv := httptest.NewServer(Guard(inner, GuardOptions{Token: guardToken, BodyTimeout: 200 * time.Millisecond}))
	defer srv.Close()
	for _, body := range []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, ""} {
		if status, text := glimPost(t, srv, body, false); status != http.StatusOK || text != "late answer" {
			t.Errorf("body %q: %d %q, want the late answer", body, status, text)
		}
	}
}

// NotFound answers 404 saying the server does no OAuth, and closes the
// connection.
func TestGuardNotFound(t *testing.T) {
	srv := httptest.NewServer(NotFound())
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + "/.well-known/oauth-protected-resource")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(b), "does no OAuth") || !resp.Close {
		t.Errorf("%d %q (connection kept: %v), want 404 saying the server does no OAuth, and the connection closed", resp.StatusCode, b, !resp.Close)
	}
}
