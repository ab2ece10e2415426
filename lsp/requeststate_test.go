package lsp

import (
	"context"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/index"
)

// gateLister lists once gate is closed: the folder's first build waits, and
// with it every request that waits for the build.
type gateLister struct {
	index.WalkLister
	gate chan struct{}
}

func (l *gateLister) List(ctx context.Context, root string) ([]index.Entry, []index.Skipped, error) {
	select {
	case <-l.gate:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	return l.WalkLister.List(ctx, root)
}

// A request is read against the buffers as they were when it arrived: an
// edit sent after it (here one that shortens the file) does not turn its
// focus into an error. Before, the focus was checked against the live
// buffer: "focus.position.line: line 8 is past the end … (4 lines)" (the
// soak's load met it a few times a minute).
func TestFocusReadsTheBufferAsItWasSent(t *testing.T) {
	gate := make(chan struct{})
	opts := serverOptions(t, nil)
	opts.IndexOptions = func(string) index.Options {
		return index.Options{InMemory: true, Lister: &gateLister{gate: gate}}
	}
	e := newEnv(t, opts, nil, nil)
	uri := e.uri("ranges/stitch.go")
	long := "package ranges\n\n" + strings.Repeat("// a line\n", 8) + "func Stitch() {}\n"
	e.notify(methodDidOpen, map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": 1, "text": long}})
	ch := e.send(1, methodContextAssemble, map[string]any{"focus": map[string]any{"uri": uri, "position": map[string]int{"line": 10, "character": 2}}})
	e.notify(methodDidChange, map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []map[string]any{{"text": "package ranges\n\nfunc Stitch() {}\n"}}})
	// An answer to a request sent after the edit shows the edit was read.
	mustError(t, e.call(methodContextExpand, map[string]any{}), CodeInvalidParams)
	close(gate)
	m := e.wait(ch, "the focused request")
	if m.Error != nil {
		t.Fatalf("a focus valid when sent was refused after a later edit: %d %s", m.Error.Code, m.Error.Message)
	}
}
