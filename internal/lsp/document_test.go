package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/textpos"
)

func TestByteOffset(t *testing.T) {
	// "a😀b" is a, a surrogate pair (2 UTF-16 units, 4 bytes), b.
	text := "héllo\r\na😀b\rlast\n"
	for _, tc := range []struct {
		line, char, want int
	}{
		{0, 0, 0},
		{0, 1, 1},
		{0, 2, 3}, // é is 2 bytes, 1 unit
		{0, 5, 6},
		{0, 99, 6}, // past the end of the line: the line's end, before \r\n
		{1, 0, 8},
		{1, 1, 9},
		{1, 2, 9}, // inside the surrogate pair: its start
		{1, 3, 13},
		{1, 4, 14},
		{2, 0, 15}, // after a lone \r
		{2, 4, 19},
		{3, 0, 20}, // the empty last line
		{9, 0, 20}, // past the last line: the end
	} {
		got, err := byteOffset(text, Position{Line: tc.line, Character: tc.char})
		if err != nil || got != tc.want {
			t.Errorf("byteOffset(%d:%d) = %d, %v; want %d", tc.line, tc.char, got, err, tc.want)
		}
	}
	if _, err := byteOffset(text, Position{Line: -1}); err == nil {
		t.Error("negative line accepted")
	}
}

func TestApplyChanges(t *testing.T) {
	text := "line one\nπ = 3.14 😀 ok\nend\n"
	got, err := applyChanges(text, []TextDocumentContentChangeEvent{
		// Replace "ok" (after π, " = 3.14 ", the emoji and a space: 1+8+2+1 = 12 units).
		{Range: &Range{Start: Position{1, 12}, End: Position{1, 14}}, Text: "fine"},
		// Insert at the start of the file.
		{Range: &Range{Start: Position{0, 0}, End: Position{0, 0}}, Text: "// head\n"},
		// Delete "end\n" (now line 3) through the end.
		{Range: &Range{Start: Position{3, 0}, End: Position{4, 0}}, Text: ""},
	})
	if want := "// head\nline one\nπ = 3.14 😀 fine\n"; err != nil || got != want {
		t.Fatalf("got %q, %v; want %q", got, err, want)
	}
	got, err = applyChanges(got, []TextDocumentContentChangeEvent{{Text: "whole"}, {Range: &Range{Start: Position{0, 5}, End: Position{0, 5}}, Text: "!"}})
	if err != nil || got != "whole!" {
		t.Fatalf("full then incremental: %q %v", got, err)
	}
	if _, err := applyChanges("abc", []TextDocumentContentChangeEvent{{Range: &Range{Start: Position{0, 2}, End: Position{0, 1}}}}); err == nil {
		t.Error("end before start accepted")
	}
}

func TestLineCount(t *testing.T) {
	for text, want := range map[string]int{"": 1, "a": 1, "a\n": 2, "a\r\nb": 2, "a\rb\nc": 3} {
		if got := textpos.LineCount(text); got != want {
			t.Errorf("lineCount(%q) = %d, want %d", text, got, want)
		}
	}
}

// Open buffers override the disk, incremental edits in UTF-16 positions
// land where the client meant them, and each request sees every edit sent
// before it; didClose brings the disk content back.
func TestDocumentSync(t *testing.T) {
	files := map[string]string{"u/text.go": "package u\n\n// grüße 😀 marker\nfunc Alpha() {}\n"}
	e := newEnv(t, serverOptions(t, nil), files, nil)
	uri := e.uri("u/text.go")
	e.notify(methodDidOpen, map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "go", "version": 1, "text": files["u/text.go"],
	}})
	// Insert "zebraword " after "😀 " on line 2: "// grüße " is 9 units, the emoji 2, the space 1.
	e.notify(methodDidChange, map[string]any{
		"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{
			"range": map[string]any{"start": map[string]any{"line": 2, "character": 12}, "end": map[string]any{"line": 2, "character": 12}},
			"text":  "zebraword ",
		}},
	})
	r := e.assemble(map[string]any{"query": "zebraword"})
	if !r.hasText("// grüße 😀 zebraword marker\n") {
		t.Fatalf("the edit is not visible: %q", r.Rendered)
	}
	// A full-text change, then at once a request.
	e.notify(methodDidChange, map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 3},
		"contentChanges": []any{map[string]any{"text": "package u\n\nfunc Quokkafunc() {}\n"}},
	})
	r = e.assemble(map[string]any{"query": "Quokkafunc"})
	if !r.hasText("func Quokkafunc()") || r.hasText("zebraword") {
		t.Fatalf("full change not visible: %q", r.Rendered)
	}
	// The disk is untouched; after didClose the disk content is back.
	e.notify(methodDidClose, map[string]any{"textDocument": map[string]any{"uri": uri}})
	r = e.assemble(map[string]any{"query": "grüße marker Alpha"})
	if !r.hasText("func Alpha()") || r.hasText("Quokkafunc") {
		t.Fatalf("after didClose: %q", r.Rendered)
	}
}

// An unsaved new buffer is indexed; the disk knows nothing of it.
func TestUnsavedBuffer(t *testing.T) {
	e := newEnv(t, serverOptions(t, nil), nil, nil)
	uri := e.uri("fresh/new.go")
	e.notify(methodDidOpen, map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "go", "version": 0, "text": "package fresh\n\nfunc Platypus() {}\n",
	}})
	r := e.assemble(map[string]any{"query": "Platypus", "focus": map[string]any{"uri": uri, "position": map[string]any{"line": 2, "character": 5}}})
	if !r.hasText("func Platypus()") {
		t.Fatalf("unsaved buffer not in the answer: %v", r.paths())
	}
	if _, err := os.Stat(filepath.Join(e.root, "fresh")); err == nil {
		t.Error("the server wrote to disk")
	}
}

// The focus position is converted (0-based, UTF-16) and checked against
// the file.
func TestFocus(t *testing.T) {
	e := newEnv(t, serverOptions(t, nil), nil, nil)
	r := e.assemble(map[string]any{"focus": map[string]any{"uri": e.uri("ranges/stitch.go"), "position": map[string]any{"line": 6, "character": 3}}})
	if !r.hasText("func Stitch") {
		t.Fatalf("focus answer: %v", r.paths())
	}
	m := e.call(methodContextAssemble, map[string]any{"focus": map[string]any{"uri": e.uri("ranges/stitch.go"), "position": map[string]any{"line": 400, "character": 0}}})
	if err := mustError(t, m, CodeInvalidParams); err.field() != "focus.position.line" || !strings.Contains(err.Message, "past the end") {
		t.Errorf("line past the end: %s (%s)", err.Message, err.field())
	}
}
