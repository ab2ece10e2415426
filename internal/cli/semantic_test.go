package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/retrieve"
	"github.com/ctxls/ctxls/internal/semantic"
	"github.com/ctxls/ctxls/internal/semantic/semantictest"
)

// TestAssembleEmbeddings: --embeddings workspace computes the vectors
// beside the index (ctxls index, or the first assemble) and the semantic
// channel brings candidates; off leaves no vectors and no channel; a bad
// mode is a usage error naming the flag.
func TestAssembleEmbeddings(t *testing.T) {
	ws := workspace(t)
	cache := t.TempDir()
	if _, stderr, code := ctxls(t, "", "index", "--root", ws, "--cache-dir", cache, "--embeddings", "workspace"); code != 0 {
		t.Fatalf("ctxls index: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(cache, semantic.CacheFile)); err != nil {
		t.Fatalf("ctxls index --embeddings workspace wrote no vectors: %v", err)
	}
	run := func(cache, mode string) *retrieve.Response {
		t.Helper()
		out, stderr, code := ctxls(t, "", "assemble", "--root", ws, "--cache-dir", cache, "--budget", "3000", "--json", "--explain",
			"--embeddings", mode, "--query", "how is the checkout total computed with tax")
		if code != 0 || stderr != "" {
			t.Fatalf("%s: exit %d: %s", mode, code, stderr)
		}
		var r retrieve.Response
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		return &r
	}
	bySemantic := func(r *retrieve.Response) (paths []string) {
		for _, e := range r.Explain {
			if e.Channels[retrieve.ChanSemantic] > 0 {
				paths = append(paths, e.Path)
			}
		}
		return paths
	}
	paths := bySemantic(run(cache, "workspace"))
	if len(paths) == 0 {
		t.Fatal("no candidate from the semantic channel")
	}
	for _, p := range paths {
		if strings.HasPrefix(p, "secrets/") || p == "id_rsa" || p == "debug.log" {
			t.Errorf("the semantic channel brought %s, which the walker keeps out", p)
		}
	}
	fresh := t.TempDir()
	if paths := bySemantic(run(fresh, "off")); len(paths) != 0 {
		t.Errorf("--embeddings off: semantic candidates %v", paths)
	}
	if _, err := os.Stat(filepath.Join(fresh, semantic.CacheFile)); err == nil {
		t.Error("--embeddings off computed vectors")
	}
	_, stderr, code := ctxls(t, "", "assemble", "--root", ws, "--cache-dir", fresh, "--embeddings", "cloud", "--query", "tax")
	if code != 2 || !strings.Contains(stderr, "--embeddings") {
		t.Errorf("a bad mode: exit %d, %q", code, stderr)
	}
}

// TestAssembleEmbeddingsEndpoint: --embeddings endpoint asks the service
// for the chunks' vectors (never a file the walker keeps out) and the
// question's, and the semantic channel brings candidates; missing service
// flags are a usage error; an unreachable service is one warning and an
// answer all the same.
func TestAssembleEmbeddingsEndpoint(t *testing.T) {
	ws := workspace(t)
	svc := semantictest.Start(t)
	url, texts := svc.URL, svc.Sent
	cache := t.TempDir()
	out, stderr, code := ctxls(t, "", "assemble", "--root", ws, "--cache-dir", cache, "--json", "--explain", "--budget", "3000",
		"--embeddings", "endpoint", "--embeddings-endpoint", url, "--embeddings-model", "hashed",
		"--query", "how is the checkout total computed with tax")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r retrieve.Response
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range r.Explain {
		if e.Channels[retrieve.ChanSemantic] > 0 {
			n++
		}
	}
	if n == 0 {
		t.Error("no candidate from the semantic channel")
	}
	sent := texts()
	if len(sent) < 2 {
		t.Fatalf("%d texts sent", len(sent))
	}
	for _, s := range sent {
		if strings.Contains(s, "PRIVATE KEY") || strings.Contains(s, "checkout tax secret") || strings.Contains(s, "checkout tax log") {
			t.Errorf("a file the walker keeps out was sent: %q", s)
		}
	}
	if _, stderr, code := ctxls(t, "", "assemble", "--root", ws, "--cache-dir", cache, "--embeddings", "endpoint", "--query", "tax"); code != 2 || !strings.Contains(stderr, "--embeddings-endpoint") {
		t.Errorf("no service given: exit %d, %q", code, stderr)
	}
	out, stderr, code = ctxls(t, "", "assemble", "--root", ws, "--cache-dir", t.TempDir(), "--budget", "500",
		"--embeddings", "endpoint", "--embeddings-endpoint", "http://127.0.0.1:1/v1", "--embeddings-model", "hashed", "--query", "tax")
	if code != 0 || out == "" || strings.Count(stderr, "warning") != 1 {
		t.Errorf("unreachable service: exit %d, %d bytes out, stderr %q", code, len(out), stderr)
	}
}
