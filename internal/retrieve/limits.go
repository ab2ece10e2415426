package retrieve

import (
	"fmt"

	"github.com/ctxls/ctxls/internal/access"
	"github.com/ctxls/ctxls/internal/assemble"
)

// Size limits of a request's inputs. Every face passes its request through
// Engine.Plan, so these hold for the CLI, the language server and the
// MCP tools alike; a request over one is refused with an
// *assemble.ParamError naming the field and the limit. They are far above
// what a person or an assistant writes (a question with a pasted stack
// trace is a few KiB; the diff of a pull request of 10 000 changed lines
// is about 1 MiB) and keep one request from holding the server's memory or
// its time: the work on a question or a diff grows with its size.
const (
	// MaxQueryBytes bounds Query.
	MaxQueryBytes = 256 << 10
	// MaxConversationBytes bounds the earlier turns, all together.
	MaxConversationBytes = 256 << 10
	// MaxDiffBytes bounds Diff.
	MaxDiffBytes = 16 << 20
	// MaxGlobs bounds Include and Exclude together.
	MaxGlobs = 256
	// MaxPathBytes bounds a glob and the focus's path.
	MaxPathBytes = 4 << 10
)

// SizeText writes n bytes the way the limits are named: "256 KiB", "16 MiB"
// (access.SizeText, which every face's limit messages use).
func SizeText(n int) string { return access.SizeText(int64(n)) }

// checkSizes refuses a request whose inputs exceed the limits above.
func checkSizes(req *Request) error {
	over := func(field string, got, limit int) error {
		return &assemble.ParamError{Field: field, Msg: fmt.Sprintf("%s, more than the %s a request may hold", SizeText(got), SizeText(limit))}
	}
	if len(req.Query) > MaxQueryBytes {
		return over("query", len(req.Query), MaxQueryBytes)
	}
	if len(req.Diff) > MaxDiffBytes {
		return over("diff", len(req.Diff), MaxDiffBytes)
	}
	conv := 0
	for _, turn := range req.Conversation {
		conv += len(turn)
	}
	if conv > MaxConversationBytes {
		return over("history", conv, MaxConversationBytes)
	}
	if n := len(req.Include) + len(req.Exclude); n > MaxGlobs {
		return &assemble.ParamError{Field: "include", Msg: fmt.Sprintf("%d include and exclude globs, more than the %d a request may hold", n, MaxGlobs)}
	}
	for _, g := range req.Include {
		if len(g) > MaxPathBytes {
			return over("include", len(g), MaxPathBytes)
		}
	}
	for _, g := range req.Exclude {
		if len(g) > MaxPathBytes {
			return over("exclude", len(g), MaxPathBytes)
		}
	}
	if req.Focus != nil && len(req.Focus.Path) > MaxPathBytes {
		return over("focus", len(req.Focus.Path), MaxPathBytes)
	}
	return nil
}
