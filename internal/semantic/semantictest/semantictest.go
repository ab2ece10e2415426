// Package semantictest serves, for tests, an OpenAI-compatible embeddings
// service on loopback whose vectors are the input's words hashed into 32
// buckets: enough for the plumbing (which texts are sent, what comes
// back), and it records what it was sent.
package semantictest

import (
	"encoding/json"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Service is a running fake embeddings service.
type Service struct {
	// URL is the API base to configure (…/v1).
	URL  string
	mu   sync.Mutex
	sent []string
}

// Start starts a service, stopped when the test ends.
func Start(t testing.TB) *Service {
	s := &Service{}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = srv.URL + "/v1"
	return s
}

// Sent returns every text sent so far.
func (s *Service) Sent() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.sent)
}

func (s *Service) serve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Input []string `json:"input"`
	}
	if r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.sent = append(s.sent, req.Input...)
	s.mu.Unlock()
	var data []map[string]any
	for i, text := range req.Input {
		v := make([]float32, 32)
		for _, word := range strings.Fields(strings.ToLower(text)) {
			h := fnv.New32a()
			h.Write([]byte(word))
			v[h.Sum32()%32]++
		}
		v[0] += 0.01
		data = append(data, map[string]any{"index": i, "embedding": v})
	}
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
}
