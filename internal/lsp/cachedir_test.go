package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/workspace"
)

// A cache directory that cannot be written (here: below a file) gives an
// index in memory, and each session using it is told once, with a
// window/showMessage warning naming the directory — here two sessions of
// one process sharing the index. Before, only the server log said it.
func TestCacheDirNotWritableIsShown(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(blocker, "cache")
	opts := serverOptions(t, nil)
	opts.IndexOptions = func(string) index.Options { return index.Options{CacheDir: cache} }
	opts.Pool = workspace.NewPool(opts.Logf)
	root := writeTree(t, fixture)
	isWarning := func(p json.RawMessage) bool {
		var m ShowMessageParams
		return json.Unmarshal(p, &m) == nil && m.Type == messageTypeWarning
	}
	for i := range 2 {
		c := startServer(t, opts)
		c.initialize(map[string]any{"rootUri": pathToURI(root)})
		r := mustResult[assembleResultJSON](t, c.call(methodContextAssemble, map[string]any{"query": "Stitch"}))
		if !r.hasText("func Stitch") {
			t.Fatalf("session %d: the in-memory index does not answer: %v", i, r.paths())
		}
		var m ShowMessageParams
		if err := json.Unmarshal(c.waitFor(methodShowMessage, isWarning).Params, &m); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(m.Message, cache) || !strings.Contains(m.Message, "not a directory") || !strings.Contains(m.Message, "in memory") {
			t.Errorf("session %d: warning %q does not say where, why and what instead", i, m.Message)
		}
		// An answer after the warning: anything else sent by then is in.
		c.call(methodContextAssemble, map[string]any{"query": "Pack"})
		if n := c.count(methodShowMessage); n != 1 {
			t.Errorf("session %d: %d window/showMessage, want 1", i, n)
		}
	}
}
