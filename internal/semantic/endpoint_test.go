package semantic

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fakeService serves the workspace embedder's vectors through the
// OpenAI embeddings API shape, on loopback, and records what it was sent.
type fakeService struct {
	t     *testing.T
	model *Model
	mu    sync.Mutex
	calls int
	sent  []string
	auth  []string
	fail  bool
}

func (f *fakeService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil || req.Model != "lsi-test" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.calls++
	f.sent = append(f.sent, req.Input...)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	fail := f.fail
	f.mu.Unlock()
	if fail {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
		return
	}
	type item struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	var data []item
	for i, text := range req.Input {
		v := f.model.embed(queryEntries(f.model, text), make([]float32, f.model.Dim))
		if v == nil {
			v = make([]float32, f.model.Dim)
			v[0] = 1
		}
		data = append(data, item{i, v})
	}
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
}

func (f *fakeService) took() (calls int, sent []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, s := f.calls, f.sent
	f.calls, f.sent = 0, nil
	return c, s
}

// TestEndpoint: every chunk's text is sent once, in batches, with the key
// from the named environment variable; a second load sends nothing, a
// changed file only its changed chunk; the search works on the service's
// vectors; files the walker keeps out are never sent.
func TestEndpoint(t *testing.T) {
	ctx := context.Background()
	files := topics()
	files["id_rsa"] = "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret cache eviction\n-----END OPENSSH PRIVATE KEY-----\n"
	x, root := indexFiles(t, files)
	snap := snapshot(t, x)
	lsi, _, err := Build(ctx, snap, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	svc := &fakeService{t: t, model: lsi.model}
	srv := httptest.NewServer(svc)
	defer srv.Close()
	t.Setenv("CTXLS_TEST_EMBED_KEY", "k-123")
	ep := &Endpoint{EndpointConfig: EndpointConfig{URL: srv.URL + "/v1", Model: "lsi-test", KeyEnv: "CTXLS_TEST_EMBED_KEY"}, BatchSize: 16}
	if err := ep.Check(); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir() + "/" + CacheFile
	s, st, err := LoadEndpoint(ctx, snap, cache, ep, nil)
	if err != nil {
		t.Fatal(err)
	}
	calls, sent := svc.took()
	if st.Embedded != len(snap.Paths()) || len(sent) == 0 || calls != (len(sent)+15)/16 {
		t.Fatalf("stats %+v: %d texts in %d calls (batches of 16)", st, len(sent), calls)
	}
	seen := map[string]bool{}
	for _, text := range sent {
		if seen[text] {
			t.Errorf("a text was sent twice: %q", text)
		}
		seen[text] = true
		if strings.Contains(text, "PRIVATE KEY") {
			t.Error("the secret file was sent")
		}
	}
	for _, a := range svc.auth {
		if a != "Bearer k-123" {
			t.Fatalf("Authorization %q", a)
		}
	}
	q, err := s.QueryVec(ctx, "eviction under memory pressure")
	if err != nil {
		t.Fatal(err)
	}
	hits := s.Search(snap, q, 5, -1, nil)
	if len(hits) == 0 || !strings.HasPrefix(string(hits[0].ID), "cache/") {
		t.Errorf("the service's vectors do not find the cache code: %v", hits)
	}
	svc.took()
	if _, st, err = LoadEndpoint(ctx, snap, cache, ep, nil); err != nil || st != (SyncStats{}) {
		t.Fatalf("second load: %v, %+v", err, st)
	}
	if calls, _ := svc.took(); calls != 0 {
		t.Errorf("the second load sent %d requests", calls)
	}
	write(t, x, root, "web/f2.go", strings.Replace(files["web/f2.go"], "return", "return 1 +", 1))
	if _, st, err = LoadEndpoint(ctx, snapshot(t, x), cache, ep, nil); err != nil || st.Embedded != 1 {
		t.Fatalf("load after a change: %v, %+v", err, st)
	}
	if _, sent := svc.took(); len(sent) != 1 {
		t.Errorf("after changing one chunk, %d texts were sent", len(sent))
	}
}

// TestEndpointFails: a failing service is tried again, then told once;
// the search gets no vector and the caller goes on.
func TestEndpointFails(t *testing.T) {
	ctx := context.Background()
	x, _ := indexFiles(t, topics())
	snap := snapshot(t, x)
	lsi, _, _ := Build(ctx, snap, testOptions())
	svc := &fakeService{t: t, model: lsi.model}
	srv := httptest.NewServer(svc)
	defer srv.Close()
	var warned []string
	ep := &Endpoint{EndpointConfig: EndpointConfig{URL: srv.URL + "/v1/embeddings", Model: "lsi-test"}, Retries: 1,
		Warnf: func(f string, a ...any) { warned = append(warned, f) }}
	s, _, err := BuildEndpoint(ctx, snap, ep)
	if err != nil {
		t.Fatal(err)
	}
	svc.mu.Lock()
	svc.fail = true
	svc.mu.Unlock()
	svc.took()
	for range 2 {
		if v, err := s.QueryVec(ctx, "cookies"); err == nil || v != nil {
			t.Fatal("a failing service gave a vector")
		}
	}
	if calls, _ := svc.took(); calls != 4 {
		t.Errorf("%d requests for two queries with one retry each", calls)
	}
	if len(warned) != 1 {
		t.Errorf("warned %d times, want once: %q", len(warned), warned)
	}
	for _, bad := range []EndpointConfig{{Model: "m"}, {URL: "ftp://x", Model: "m"}, {URL: "http://x"}, {URL: "http://x", Model: "m", KeyEnv: "CTXLS_TEST_UNSET_KEY"}} {
		if _, err := bad.Endpoint(); err == nil {
			t.Errorf("%+v passed the check", bad)
		}
	}
}
