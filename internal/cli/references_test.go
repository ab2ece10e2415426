package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReferencesCommand(t *testing.T) {
	root := workspace(t)
	cache := filepath.Join(t.TempDir(), "cache")
	out, stderr, code := ctxls(t, "", "references", "--root", root, "--cache-dir", cache, "--symbol", "Cart.Add", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r ReferencesJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	var got []string
	for _, s := range r.References {
		got = append(got, s.Path+":"+itoa(s.Line)+" "+s.Kind+" "+s.Symbol)
	}
	if want := "cmd/shop/main.go:12 call main.main\ncmd/shop/main.go:13 call main.main"; strings.Join(got, "\n") != want || !r.Exact || r.Total != 2 {
		t.Errorf("references %q exact %v total %d, want %q", got, r.Exact, r.Total, want)
	}
	// The same by position, in text.
	out, stderr, code = ctxls(t, "", "references", "--root", root, "--cache-dir", cache, "--at", "cmd/shop/main.go:14:19")
	if code != 0 || !strings.HasPrefix(out, "References to Cart.Checkout (method at cart/cart.go:") || !strings.Contains(out, "cmd/shop/main.go:14:18 call in main.main") {
		t.Errorf("--at: exit %d\n%s%s", code, out, stderr)
	}
	// Bad input is named.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--symbol", "Nothing"}, "--symbol: no definition of Nothing"},
		{[]string{"--at", "cart/cart.go:999"}, "--at: cart/cart.go:999: past the end of the file"},
		{[]string{"--at", "cart/cart.go"}, "--at: \"cart/cart.go\": want PATH:LINE"},
		{[]string{}, "give --symbol or --at"},
	} {
		_, stderr, code := ctxls(t, "", append([]string{"references", "--root", root, "--cache-dir", cache}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d %q, want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

func TestImpactCommand(t *testing.T) {
	root := workspace(t)
	cache := filepath.Join(t.TempDir(), "cache")
	diff := "--- a/cart/cart.go\n+++ b/cart/cart.go\n@@ -40,3 +40,3 @@\n func (c *Cart) Subtotal() int64 {\n-\tvar sum int64\n+\tvar sum int64 // cents\n \tfor _, it := range c.Items {\n"
	f := filepath.Join(t.TempDir(), "d.diff")
	if err := os.WriteFile(f, []byte(diff), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := ctxls(t, "", "impact", "--root", root, "--cache-dir", cache, "--diff-file", f, "--depth", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r ImpactJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	var got []string
	for _, u := range r.Reached {
		got = append(got, itoa(u.Hop)+" "+u.Symbol+": "+u.Reason)
	}
	want := "0 Cart.Subtotal: changed (lines 41)\n1 Cart.Checkout: calls Cart.Subtotal\n2 main.main: calls Cart.Checkout"
	if strings.Join(got, "\n") != want {
		t.Errorf("reached:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
	_, stderr, code = ctxls(t, "", "impact", "--root", root, "--cache-dir", cache, "--diff-file", f, "--depth", "9")
	if code != 2 || !strings.Contains(stderr, "--depth: 9: want 0 to 5") {
		t.Errorf("--depth 9: exit %d %q", code, stderr)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
