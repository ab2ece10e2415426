package semantic

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// Endpoint is an OpenAI-compatible embeddings service (POST
// {URL}/embeddings with {"model", "input": [...], "dimensions"}): Ollama,
// llama.cpp's server, vLLM, OpenAI. Only chunks of indexed files are sent
// (the walker's ignore rules and secret filter keep the rest out of the
// index), each text once per tracking hash: the store keeps its vector.
type Endpoint struct {
	// EndpointConfig: the service, the model, the vector size, the key's
	// environment variable (the key itself is never stored). A URL
	// already ending in /embeddings is used as it is; Dimensions 0 is the
	// model's own size; KeyEnv "" sends no key.
	EndpointConfig
	// BatchSize is how many texts one request carries (0: 64); Timeout
	// bounds one request (0: 60 s); Retries is how many times a failed
	// request (a network error, 429 or 5xx) is tried again, waiting 0.5 s,
	// 1 s, 2 s, … between (0: 3).
	BatchSize int
	Timeout   time.Duration
	Retries   int
	// Client sends the requests (nil: a client of its own).
	Client *http.Client
	// Warnf is told once when the service fails (nil: not told); the
	// other channels answer meanwhile.
	Warnf func(format string, args ...any)

	mu   sync.Mutex
	told bool
}

// id names what the vectors depend on: a store made for another service
// or model is not reused.
func (e *Endpoint) id() string {
	return fmt.Sprintf("%s|%s|%d", strings.TrimRight(e.URL, "/"), e.Model, e.Dimensions)
}

func (e *Endpoint) url() string {
	u := strings.TrimRight(e.URL, "/")
	if strings.HasSuffix(u, "/embeddings") {
		return u
	}
	return u + "/embeddings"
}

// Check reports a configuration that cannot work, naming the field.
func (e *Endpoint) Check() error {
	switch {
	case e.URL == "":
		return errors.New("embeddings endpoint: the URL is missing")
	case !strings.HasPrefix(e.URL, "http://") && !strings.HasPrefix(e.URL, "https://"):
		return fmt.Errorf("embeddings endpoint: %q is not an http(s) URL", e.URL)
	case e.Model == "":
		return errors.New("embeddings endpoint: the model is missing")
	case e.Dimensions < 0:
		return fmt.Errorf("embeddings endpoint: dimensions %d < 0", e.Dimensions)
	case e.KeyEnv != "" && os.Getenv(e.KeyEnv) == "":
		return fmt.Errorf("embeddings endpoint: the key's environment variable %s is empty", e.KeyEnv)
	}
	return nil
}

// warn tells Warnf about err once.
func (e *Endpoint) warn(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.told || e.Warnf == nil {
		return
	}
	e.told = true
	e.Warnf("embeddings endpoint %s: %v (going on without the semantic channel)", e.url(), err)
}

// ok records a success: a later failure is told again.
func (e *Endpoint) ok() {
	e.mu.Lock()
	e.told = false
	e.mu.Unlock()
}

// embed returns the vectors of texts, in order, in batches.
func (e *Endpoint) embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	size := cmp.Or(e.BatchSize, 64)
	for lo := 0; lo < len(texts); lo += size {
		vecs, err := e.batch(ctx, texts[lo:min(lo+size, len(texts))])
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// batch sends one request, retrying transient failures.
func (e *Endpoint) batch(ctx context.Context, texts []string) ([][]float32, error) {
	retries := cmp.Or(e.Retries, 3)
	wait := 500 * time.Millisecond
	for attempt := 0; ; attempt++ {
		vecs, retry, err := e.post(ctx, texts)
		if err == nil {
			return vecs, nil
		}
		if !retry || attempt >= retries || ctx.Err() != nil {
			return nil, err
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		wait *= 2
	}
}

// post sends one request; retry says whether the failure may pass.
func (e *Endpoint) post(ctx context.Context, texts []string) (vecs [][]float32, retry bool, err error) {
	body := map[string]any{"model": e.Model, "input": texts}
	if e.Dimensions > 0 {
		body["dimensions"] = e.Dimensions
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, false, err
	}
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(e.Timeout, 60*time.Second))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url(), bytes.NewReader(b))
	if err != nil {
		return nil, false, err
	}
	req.Header.Set("Content-Type", "application/json")
	if e.KeyEnv != "" {
		req.Header.Set("Authorization", "Bearer "+os.Getenv(e.KeyEnv))
	}
	client := e.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, true, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, true, err
	}
	if resp.StatusCode != http.StatusOK {
		msg := strings.TrimSpace(string(raw))
		if len(msg) > 200 {
			msg = msg[:200] + "…"
		}
		return nil, resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500, fmt.Errorf("HTTP %d: %s", resp.StatusCode, msg)
	}
	var r struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, false, fmt.Errorf("the answer is not an embeddings response: %w", err)
	}
	if len(r.Data) != len(texts) {
		return nil, false, fmt.Errorf("%d vectors for %d texts", len(r.Data), len(texts))
	}
	vecs = make([][]float32, len(texts))
	for _, d := range r.Data {
		if d.Index < 0 || d.Index >= len(texts) || vecs[d.Index] != nil {
			return nil, false, fmt.Errorf("bad index %d in the answer", d.Index)
		}
		if len(d.Embedding) == 0 || len(d.Embedding) != len(r.Data[0].Embedding) {
			return nil, false, errors.New("vectors of different sizes in the answer")
		}
		vecs[d.Index] = d.Embedding
	}
	return vecs, false, nil
}
