package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxls/ctxls/internal/semantic"
)

// TestIndexWritesVectorDelta: after an edit, `ctxls index` keeps the
// vector cache file as it was and writes the changed file's vectors in a
// delta beside it; a question answered from the file with its delta is
// answered byte for byte as from the same store written whole (the
// delta folded in), and the next call with nothing changed writes
// nothing.
func TestIndexWritesVectorDelta(t *testing.T) {
	ws := workspace(t)
	for i := range 12 {
		src := fmt.Sprintf("package cart\n\n// Discount%d lowers the cart's subtotal by a coupon before tax at checkout.\nfunc Discount%d(c *Cart, couponCents int64) int64 {\n\treturn c.Subtotal() - couponCents\n}\n", i, i)
		if err := os.WriteFile(filepath.Join(ws, "cart", fmt.Sprintf("discount%d.go", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cache := t.TempDir()
	index := func() {
		t.Helper()
		if _, stderr, code := ctxls(t, "", "index", "--root", ws, "--cache-dir", cache); code != 0 {
			t.Fatalf("ctxls index: exit %d: %s", code, stderr)
		}
	}
	index()
	vp := filepath.Join(cache, semantic.CacheFile)
	whole, err := os.ReadFile(vp)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(ws, "cart", "discount3.go"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "\n// Zanzibarquota caps the discount of a cart.\nfunc Zanzibarquota(c *Cart) int64 { return c.Subtotal() / 2 }\n")
	f.Close()
	index()
	if now, _ := os.ReadFile(vp); !bytes.Equal(now, whole) {
		t.Error("the vector cache file was written again for a one-file edit")
	}
	delta, err := os.ReadFile(vp + semantic.DeltaSuffix)
	if err != nil {
		t.Fatalf("no vector delta after an edit: %v", err)
	}
	index() // nothing changed: nothing written
	if now, _ := os.ReadFile(vp + semantic.DeltaSuffix); !bytes.Equal(now, delta) {
		t.Error("the delta was written again with nothing changed")
	}

	ask := func(cache string) string {
		t.Helper()
		out, stderr, code := ctxls(t, "", "assemble", "--root", ws, "--cache-dir", cache, "--json", "--budget", "2000",
			"--query", "how is the checkout total computed with tax and coupons zanzibarquota")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		return out
	}
	folded := t.TempDir()
	if err := os.CopyFS(folded, os.DirFS(cache)); err != nil {
		t.Fatal(err)
	}
	if err := semantic.Fold(filepath.Join(folded, semantic.CacheFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(folded, semantic.CacheFile+semantic.DeltaSuffix)); !os.IsNotExist(err) {
		t.Fatalf("the folded copy kept its delta (%v)", err)
	}
	if a, b := stripTiming(t, ask(cache)), stripTiming(t, ask(folded)); a != b {
		t.Errorf("the answer from the file with its delta differs from the folded file's:\n%s\n---\n%s", a, b)
	}
}

// stripTiming returns a JSON answer without its timing (which differs
// from call to call).
func stripTiming(t *testing.T, out string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "timing")
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
