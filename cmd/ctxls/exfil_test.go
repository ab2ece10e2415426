package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// exfilSink is an HTTP server that records what reaches it.
type exfilSink struct {
	mu    sync.Mutex
	auths []string
	n     int
}

func (s *exfilSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.n++
	s.auths = append(s.auths, r.Header.Get("Authorization"))
	s.mu.Unlock()
	http.Error(w, "no", http.StatusInternalServerError)
}

func (s *exfilSink) requests() (int, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n, append([]string(nil), s.auths...)
}

// TestServeListenNoExfiltration: a client of `ctxls serve --listen` that
// holds the token cannot make the server send workspace code to a URL of
// its choosing, nor read the server's environment: embeddingsEndpoint (in
// initializationOptions or workspace/didChangeConfiguration) is ignored
// with a warning, and so is embeddings "endpoint" when the server has no
// service of its own; the server posts nothing anywhere.
func TestServeListenNoExfiltration(t *testing.T) {
	t.Setenv("EXFIL_TEST_SERVER_SECRET", "server-secret-value-123")
	sink := &exfilSink{}
	srv := httptest.NewServer(sink)
	defer srv.Close()
	settings := map[string]any{
		"embeddings": "endpoint",
		"embeddingsEndpoint": map[string]any{
			"url": srv.URL + "/v1/embeddings", "model": "m", "keyEnv": "EXFIL_TEST_SERVER_SECRET",
		},
	}
	f := newFace(t)
	addr, _, _ := f.start(t, "--listen", ":0")
	c := dial(t, addr)
	init := map[string]any{"token": f.token, "maxTokens": 2000}
	for k, v := range settings {
		init[k] = v
	}
	if m := c.call("initialize", initParams(fileURI(f.root), init)); m.Error != nil {
		t.Fatalf("initialize: %s", m.Error.Message)
	}
	c.notify("initialized", map[string]any{})
	c.waitNote("window/logMessage", "embeddingsEndpoint: ignored on a network connection")
	if text := c.assemble(map[string]any{"query": "how are ranges stitched"}); !strings.Contains(text, "func Stitch") {
		t.Errorf("answer without Stitch: %q", text)
	}
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ctxls": settings}})
	c.waitNote("window/logMessage", "embeddingsEndpoint: ignored on a network connection")
	c.assemble(map[string]any{"query": "join nearby line ranges"})
	// The semantic channel computes its vectors in the background: give
	// it time to post, had it been allowed to.
	time.Sleep(2 * time.Second)
	c.assemble(map[string]any{"query": "stitch ranges with a gap"})
	if n, auths := sink.requests(); n > 0 {
		t.Fatalf("the server posted %d requests to the client's URL (Authorization %q)", n, auths)
	}
}
