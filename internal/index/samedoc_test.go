package index

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestEditRewritesOnlyChangedDocuments: an edit inside one function
// writes that chunk's document only, and the index then answers exactly
// (same hits, same scores) as an index built from scratch on the new
// content.
func TestEditRewritesOnlyChangedDocuments(t *testing.T) {
	var b strings.Builder
	b.WriteString("package shop\n")
	for i := range 12 {
		fmt.Fprintf(&b, "\n// Handler%d serves cart page %d.\nfunc Handler%d(cart Cart) error {\n\treturn render(cart, %d)\n}\n", i, i, i, i)
	}
	before := b.String()
	after := strings.Replace(before, "return render(cart, 5)", "zebra := checkout(cart)\n\treturn render(zebra, 5)", 1)
	ctx := context.Background()
	root := t.TempDir()
	writeTree(t, root, map[string]string{"shop/cart.go": before, "shop/other.go": "package shop\n\nfunc render(c Cart, n int) error { return nil }\n"})
	x, err := Open(ctx, root, Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	x.mu.Lock()
	written := x.docsWritten
	x.mu.Unlock()
	if err := x.SetOverlay(ctx, "shop/cart.go", []byte(after)); err != nil {
		t.Fatal(err)
	}
	x.mu.Lock()
	written = x.docsWritten - written
	x.mu.Unlock()
	if written != 1 {
		t.Errorf("the edit wrote %d documents, want 1 (the changed function's)", written)
	}

	root2 := t.TempDir()
	writeTree(t, root2, map[string]string{"shop/cart.go": after, "shop/other.go": "package shop\n\nfunc render(c Cart, n int) error { return nil }\n"})
	fresh, err := Open(ctx, root2, Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	s1, r1 := x.Snapshot()
	defer r1()
	s2, r2 := fresh.Snapshot()
	defer r2()
	for _, q := range []string{"zebra checkout", "Handler5 cart", "render cart page", "Handler11"} {
		h1, err1 := s1.Search(ctx, Query{Text: q}, 20)
		h2, err2 := s2.Search(ctx, Query{Text: q}, 20)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if fmt.Sprint(h1) != fmt.Sprint(h2) {
			t.Errorf("%q after the edit:\n%v\nfrom scratch:\n%v", q, h1, h2)
		}
	}
	if h, _ := s1.Search(ctx, Query{Text: "zebra"}, 5); len(h) != 1 || h[0].StartLine != 28 {
		t.Errorf("zebra: %v", h)
	}
}
