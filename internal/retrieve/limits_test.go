package retrieve

import (
	"errors"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/tokens"
)

// TestRequestSizeLimits: each input at its limit is accepted, one byte
// over is a ParamError naming the field and the limit.
func TestRequestSizeLimits(t *testing.T) {
	e := NewEngine(tokens.NewRegistry())
	base := func() Request {
		return Request{Query: "q", Budget: assemble.Budget{MaxTokens: 100}}
	}
	diffOf := func(n int) string {
		head := "--- a/x.go\n+++ b/x.go\n@@ -1,1 +1,1 @@\n-a\n+"
		return head + strings.Repeat("b", n-len(head)-1) + "\n"
	}
	globs := func(n int) []string {
		g := make([]string, n)
		for i := range g {
			g[i] = "*.go"
		}
		return g
	}
	for _, c := range []struct {
		field string
		set   func(r *Request, over int)
		limit int
	}{
		{"query", func(r *Request, n int) { r.Query = strings.Repeat("a", n) }, MaxQueryBytes},
		{"diff", func(r *Request, n int) { r.Diff = diffOf(n) }, MaxDiffBytes},
		{"history", func(r *Request, n int) {
			r.Conversation = []string{strings.Repeat("a", n/2), strings.Repeat("b", n-n/2)}
		}, MaxConversationBytes},
		{"include", func(r *Request, n int) { r.Include = []string{strings.Repeat("a", n)} }, MaxPathBytes},
		{"exclude", func(r *Request, n int) { r.Exclude = []string{strings.Repeat("a", n)} }, MaxPathBytes},
		{"focus", func(r *Request, n int) { r.Focus = &Focus{Path: strings.Repeat("a", n), Line: 1} }, MaxPathBytes},
		{"include", func(r *Request, n int) { r.Include = globs(n) }, MaxGlobs},
	} {
		r := base()
		c.set(&r, c.limit)
		if err := validate(e, &r); err != nil {
			t.Errorf("%s at its limit %d: %v", c.field, c.limit, err)
		}
		r = base()
		c.set(&r, c.limit+1)
		err := validate(e, &r)
		var pe *assemble.ParamError
		if !errors.As(err, &pe) || pe.Field != c.field || !strings.Contains(pe.Msg, "a request may hold") {
			t.Errorf("%s one over its limit %d: %v; want a ParamError naming the field and the limit", c.field, c.limit, err)
		}
	}
}
