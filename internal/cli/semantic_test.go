package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/index"
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

// modelOf is the model part of an answer's index state ("": none).
func modelOf(t *testing.T, r *retrieve.Response) string {
	t.Helper()
	root, model, ok := strings.Cut(r.Stats.IndexState, index.ModelSep)
	if !ok || root == "" || model == "" {
		t.Fatalf("index state %q names no model", r.Stats.IndexState)
	}
	return model
}

// TestAssembleReusesModel: after an edit, a CLI call reuses the model the
// cache holds and embeds only the changed file with it; the answer finds
// the edit's new word, and its index state names the content and the
// model, so the same state gives byte-identical output. Past the files
// threshold, or with ctxls index --retrain, the model is trained again:
// the same model as a fresh index of the same tree trains.
func TestAssembleReusesModel(t *testing.T) {
	ws := workspace(t)
	// Enough code for the edits below to stay within the vocabulary's
	// drift threshold.
	for i := range 12 {
		src := fmt.Sprintf("package cart\n\n// Discount%d lowers the cart's subtotal by a coupon before tax at checkout.\nfunc Discount%d(c *Cart, couponCents int64) int64 {\n\treturn c.Subtotal() - couponCents\n}\n", i, i)
		if err := os.WriteFile(filepath.Join(ws, "cart", fmt.Sprintf("discount%d.go", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cache := t.TempDir()
	if _, stderr, code := ctxls(t, "", "index", "--root", ws, "--cache-dir", cache); code != 0 {
		t.Fatalf("ctxls index: exit %d: %s", code, stderr)
	}
	question := []string{"--budget", "3000", "--query", "how is the checkout total computed with tax and coupons"}
	ask := func(cache string, args ...string) (*retrieve.Response, string) {
		t.Helper()
		r := assembleJSON(t, append([]string{"--root", ws, "--cache-dir", cache}, args...)...)
		out, stderr, code := ctxls(t, "", append([]string{"assemble", "--root", ws, "--cache-dir", cache}, args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		return r, out
	}
	before, _ := ask(cache, question...)
	m0 := modelOf(t, before)

	// One file of 19 changed, a word written nowhere else.
	f, err := os.OpenFile(filepath.Join(ws, "cart", "discount3.go"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "\n// Zanzibarquota caps the discount of a cart.\nfunc Zanzibarquota(c *Cart) int64 { return c.Subtotal() / 2 }\n")
	f.Close()
	found, _ := ask(cache, "--budget", "1000", "--query", "zanzibarquota")
	if !strings.Contains(found.Rendered, "Zanzibarquota caps") {
		t.Errorf("the edit's new word is not found:\n%s", found.Rendered)
	}
	after, out1 := ask(cache, question...)
	if m := modelOf(t, after); m != m0 {
		t.Fatalf("the model was trained again after a one-file edit: %s → %s", m0, m)
	}
	if after.Stats.IndexState == before.Stats.IndexState {
		t.Error("the index state did not change with the content")
	}
	// The same state, the same output.
	again, out2 := ask(cache, question...)
	if again.Stats.IndexState != after.Stats.IndexState || out1 != out2 {
		t.Errorf("the same state answered differently:\n%s\n---\n%s", out1, out2)
	}

	// A fresh index of the same tree trains on it: another model, so
	// another index state for the same content.
	fresh, freshOut := ask(t.TempDir(), question...)
	m1 := modelOf(t, fresh)
	if m1 == m0 || index.ContentState(fresh.Stats.IndexState) != index.ContentState(after.Stats.IndexState) {
		t.Fatalf("fresh %s, kept %s", fresh.Stats.IndexState, after.Stats.IndexState)
	}
	// --retrain trains the kept cache's model on the tree as it is: the
	// fresh one, byte for byte.
	if _, stderr, code := ctxls(t, "", "index", "--root", ws, "--cache-dir", cache, "--retrain"); code != 0 {
		t.Fatalf("ctxls index --retrain: exit %d: %s", code, stderr)
	}
	retrained, out3 := ask(cache, question...)
	if retrained.Stats.IndexState != fresh.Stats.IndexState || out3 != freshOut {
		t.Errorf("--retrain: state %s, fresh %s; same output %v", retrained.Stats.IndexState, fresh.Stats.IndexState, out3 == freshOut)
	}
	if _, stderr, code := ctxls(t, "", "index", "--root", ws, "--cache-dir", cache, "--retrain", "--embeddings", "off"); code != 2 || !strings.Contains(stderr, "--retrain") {
		t.Errorf("--retrain with --embeddings off: exit %d, %q", code, stderr)
	}

	// Past the files threshold (a quarter of the files not as trained),
	// the next call trains again.
	for i := range 6 {
		p := filepath.Join(ws, "cart", fmt.Sprintf("discount%d.go", i+4))
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b = []byte(strings.Replace(string(b), "lowers the cart's subtotal by a coupon", "applies a coupon to the cart's subtotal", 1))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	drifted, _ := ask(cache, question...)
	fresh2, _ := ask(t.TempDir(), question...)
	if m := modelOf(t, drifted); m == m1 || drifted.Stats.IndexState != fresh2.Stats.IndexState {
		t.Errorf("past the files threshold: %s, want a model trained on the tree (%s)", drifted.Stats.IndexState, fresh2.Stats.IndexState)
	}
}
