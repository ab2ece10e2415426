package lsp

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// An error message that quotes a huge value the client sent is cut, on a
// character boundary, and still names the field first.
func TestErrorMessagesBounded(t *testing.T) {
	huge := strings.Repeat("é", 1<<19) // 1 MiB
	e := paramError("encoding", "unknown encoding %q", huge)
	if len(e.Message) > maxErrorMessage+64 || !strings.HasPrefix(e.Message, "encoding: ") || !utf8.ValidString(e.Message) {
		t.Fatalf("message of %d bytes, valid UTF-8 %v: %.80s…", len(e.Message), utf8.ValidString(e.Message), e.Message)
	}
	if !strings.Contains(e.Message, "bytes cut)") {
		t.Errorf("the message does not say it was cut: …%s", e.Message[len(e.Message)-40:])
	}
	if short := paramError("format", "unknown format %q", "yaml"); short.Message != `format: unknown format "yaml"` {
		t.Errorf("a short message changed: %q", short.Message)
	}
}
