package lsp

import (
	"context"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/index"
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

// gatedEnv starts a server whose folders' first build waits (a gate never
// opened: close cancels it) and whose requests would wait up to 60 s for
// it (longer than every wait of the tests), on the default fixture.
func gatedEnv(t *testing.T) *testEnv {
	t.Helper()
	gate := make(chan struct{})
	opts := serverOptions(t, nil)
	opts.IndexOptions = func(string) index.Options {
		return index.Options{InMemory: true, Lister: &gateLister{gate: gate}}
	}
	root := writeTree(t, fixture)
	c := startServer(t, opts)
	c.initialize(map[string]any{"rootUri": pathToURI(root), "initializationOptions": map[string]any{"indexWaitMs": 60000}})
	return &testEnv{fakeClient: c, root: root}
}

// A request sent just before shutdown is answered by the folder that was
// open when it arrived, and shutdown answers after it. Before, the request
// read the folders when it ran: shutdown (read right after it) had closed
// them, and it was answered "no workspace folder is open" or "the
// workspace folder was removed". Here the request waits for the folder's
// first build (gated), so shutdown always arrives while it runs; shutdown
// makes it stop waiting (both answered well before the 60 s indexWait)
// and answer from what is indexed.
func TestRequestBeforeShutdownIsAnswered(t *testing.T) {
	e := gatedEnv(t)
	assembled := e.send(1, methodContextAssemble, map[string]any{"query": "Stitch"})
	shut := e.send(2, methodShutdown, noParams)
	m := e.wait(assembled, "the request sent before shutdown")
	if m.Error != nil {
		t.Fatalf("a request sent before shutdown was refused: %d %s", m.Error.Code, m.Error.Message)
	}
	r := mustResult[assembleResultJSON](t, m)
	if r.Stats.IndexComplete {
		t.Errorf("the build was gated, yet the answer says the index is complete")
	}
	if m := e.wait(shut, "shutdown"); m.Error != nil {
		t.Fatalf("shutdown: %d %s", m.Error.Code, m.Error.Message)
	}
	// A request after shutdown is still refused.
	mustError(t, e.call(methodContextAssemble, map[string]any{"query": "Stitch"}), CodeInvalidRequest)
}

// The same for a folder removed by a workspace/didChangeWorkspaceFolders
// sent just after the request: the request (focused in that folder) is
// answered by it; a request sent after the removal finds no folder.
func TestRequestBeforeFolderRemovalIsAnswered(t *testing.T) {
	e := gatedEnv(t)
	uri := e.uri("ranges/stitch.go")
	focused := map[string]any{"query": "Stitch", "focus": map[string]any{"uri": uri, "position": map[string]int{"line": 2, "character": 0}}}
	before := e.send(1, methodContextAssemble, focused)
	e.notify(methodDidChangeWorkspaceFolders, map[string]any{"event": map[string]any{
		"added": []any{}, "removed": []any{map[string]any{"uri": pathToURI(e.root), "name": "root"}}}})
	after := e.send(2, methodContextAssemble, focused)
	m := e.wait(before, "the request sent before the folder was removed")
	if m.Error != nil {
		t.Fatalf("a request sent before its folder was removed was refused: %d %s", m.Error.Code, m.Error.Message)
	}
	mustResult[assembleResultJSON](t, m)
	if err := mustError(t, e.wait(after, "the request sent after the removal"), CodeInvalidParams); err.field() != "focus.uri" {
		t.Errorf("after the removal: %s (want focus.uri outside every folder)", err.Message)
	}
	if m := e.call(methodContextAssemble, map[string]any{"query": "Stitch"}); m.Error == nil || !strings.Contains(m.Error.Message, "no workspace folder is open") {
		t.Errorf("a request without focus after the removal: %+v, want no workspace folder is open", m.Error)
	}
}
