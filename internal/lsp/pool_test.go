package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/history/historytest"
	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/index/chunk"
	"github.com/ctxls/ctxls/internal/semantic"
	"github.com/ctxls/ctxls/internal/workspace"
)

// poolOptions are server options whose sessions share one pool and an
// on-disk cache (where a second, unshared index of the same root would
// find the first one's directory locked).
func poolOptions(t *testing.T) (Options, *workspace.Pool, *logLines) {
	opts := serverOptions(t, nil)
	cache := t.TempDir()
	opts.IndexOptions = func(root string) index.Options {
		return index.Options{CacheDir: index.CacheDirIn(cache, root), LockTimeout: 5 * time.Second, PrivateWhenLocked: true}
	}
	logs := &logLines{t: t}
	opts.Pool = workspace.NewPool(logs.logf)
	return opts, opts.Pool, logs
}

// logLines records a log.
type logLines struct {
	t     *testing.T
	mu    sync.Mutex
	lines []string
}

func (l *logLines) logf(format string, args ...any) {
	l.t.Logf(format, args...)
	l.mu.Lock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// openDoc opens rel in c with text.
func openDoc(c *fakeClient, root, rel, text string) string {
	uri := pathToURI(filepath.Join(root, filepath.FromSlash(rel)))
	c.notify(methodDidOpen, map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": 1, "text": text}})
	return uri
}

// changeDoc replaces the whole text of uri in c.
func changeDoc(c *fakeClient, uri string, version int, text string) {
	c.notify(methodDidChange, map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": version},
		"contentChanges": []any{map[string]any{"text": text}},
	})
}

// TestPoolSharesIndexNotBuffers: sessions of one process on the same root
// use one index (no second, private build), and each reads its own unsaved
// buffers, never another session's.
func TestPoolSharesIndexNotBuffers(t *testing.T) {
	opts, pool, logs := poolOptions(t)
	root := writeTree(t, fixture)
	a, stopA := newFakeClient(t, opts)
	a.initialize(map[string]any{"rootUri": pathToURI(root)})
	b := startServer(t, opts)
	b.initialize(map[string]any{"rootUri": pathToURI(root)})
	// A folder acquires its root in the background after initialize:
	// wait (bounded) for both sessions' folders to have done so.
	var n, users int
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		roots := pool.Roots()
		n, users = len(roots), 0
		for _, r := range roots {
			users = r.Users()
		}
		if n == 1 && users == 2 || time.Now().After(deadline) {
			break
		}
	}
	if n != 1 || users != 2 {
		t.Fatalf("pool: %d indexes, %d users; want 1 index used by both sessions", n, users)
	}

	uri := openDoc(a, root, "ranges/stitch.go", "package ranges\n\nfunc Wallabystitch() {}\n")
	changeDoc(a, uri, 2, "package ranges\n\nfunc Wombatstitch() {}\n")
	if r := mustResult[assembleResultJSON](t, a.call(methodContextAssemble, map[string]any{"query": "Wombatstitch"})); !r.hasText("func Wombatstitch()") {
		t.Fatalf("a does not read its own buffer: %v", r.paths())
	}
	r := mustResult[assembleResultJSON](t, b.call(methodContextAssemble, map[string]any{"query": "Wombatstitch Stitch"}))
	if r.hasText("Wombatstitch") || !r.hasText("func Stitch") {
		t.Fatalf("b reads a's unsaved buffer (or not the disk): %q", r.Rendered)
	}
	if !r.Stats.IndexComplete {
		t.Fatal("b answered from an incomplete index")
	}

	// a leaves: b, which still uses the index, is unchanged.
	stopA()
	select {
	case <-a.done:
	case <-time.After(testTimeout):
		t.Fatal("a did not end")
	}
	r = mustResult[assembleResultJSON](t, b.call(methodContextAssemble, map[string]any{"query": "Wombatstitch Stitch"}))
	if r.hasText("Wombatstitch") || !r.hasText("func Stitch") {
		t.Fatalf("after a left, b's answer: %q", r.Rendered)
	}
	if strings.Contains(logs.String(), "private") || strings.Count(logs.String(), "full build") != 1 {
		t.Fatalf("not one shared build:\n%s", logs)
	}
}

// TestPoolSameFileInTwoSessions: when two sessions have the same file
// open, each reads its own buffer, whichever changed last; a session that
// closes it reads the disk, while the other still reads its buffer.
func TestPoolSameFileInTwoSessions(t *testing.T) {
	opts, _, _ := poolOptions(t)
	root := writeTree(t, fixture)
	a := startServer(t, opts)
	a.initialize(map[string]any{"rootUri": pathToURI(root)})
	b := startServer(t, opts)
	b.initialize(map[string]any{"rootUri": pathToURI(root)})
	ask := func(c *fakeClient, q string) assembleResultJSON {
		t.Helper()
		return mustResult[assembleResultJSON](t, c.call(methodContextAssemble, map[string]any{"query": q + " Alpacastitch Bisonstitch Camelstitch Stitch"}))
	}
	only := func(who string, r assembleResultJSON, want string) {
		t.Helper()
		for _, w := range []string{"Alpacastitch", "Bisonstitch", "Camelstitch", "func Stitch"} {
			if got := r.hasText(w); got != (w == want) {
				t.Fatalf("%s: %q shown %v; want only %q:\n%s", who, w, got, want, r.Rendered)
			}
		}
	}
	ua := openDoc(a, root, "ranges/stitch.go", "package ranges\n\nfunc Alpacastitch() {}\n")
	only("a after its open", ask(a, ""), "Alpacastitch")
	ub := openDoc(b, root, "ranges/stitch.go", "package ranges\n\nfunc Bisonstitch() {}\n")
	only("b after its open", ask(b, ""), "Bisonstitch")
	only("a after b's open", ask(a, ""), "Alpacastitch")
	changeDoc(a, ua, 2, "package ranges\n\nfunc Camelstitch() {}\n")
	only("a after its change", ask(a, ""), "Camelstitch")
	only("b after a's change", ask(b, ""), "Bisonstitch")
	a.notify(methodDidClose, map[string]any{"textDocument": map[string]any{"uri": ua}})
	only("a after it closed the file", ask(a, ""), "func Stitch")
	only("b after a closed the file", ask(b, ""), "Bisonstitch")
	b.notify(methodDidClose, map[string]any{"textDocument": map[string]any{"uri": ub}})
	only("b after it closed the file", ask(b, ""), "func Stitch")
}

// slowChunker is the default chunker, slowed down: a folder indexed with
// it is still being built while the test works.
type slowChunker struct {
	*chunk.Chunker
	delay time.Duration
}

func (c slowChunker) Chunk(path string, src []byte) ([]chunk.Chunk, error) {
	time.Sleep(c.delay)
	return c.Chunker.Chunk(path, src)
}

// TestEditWhileAnotherFolderBuilds: while one folder's index is being
// built, an edit — in another folder, or in the folder being built — is in
// the very next answer.
func TestEditWhileAnotherFolderBuilds(t *testing.T) {
	a := writeTree(t, fixture)
	big := map[string]string{}
	for i := range 150 {
		big[fmt.Sprintf("pkg/f%03d.go", i)] = fmt.Sprintf("package pkg\n\n// F%d does little.\nfunc F%d() int { return %d }\n", i, i, i)
	}
	b := writeTree(t, big)
	opts := serverOptions(t, nil)
	opts.IndexOptions = func(root string) index.Options {
		o := index.Options{InMemory: true}
		if root == b {
			o.Workers = 1
			o.NewChunker = func() (index.Chunker, error) {
				return slowChunker{chunk.NewChunker(chunk.Options{}), 20 * time.Millisecond}, nil
			}
		}
		return o
	}
	c := startServer(t, opts)
	c.initialize(map[string]any{"workspaceFolders": []any{
		map[string]any{"uri": pathToURI(a), "name": "a"},
		map[string]any{"uri": pathToURI(b), "name": "b"},
	}, "initializationOptions": map[string]any{"indexWaitMs": 0}}) // answer from a partial index at once
	ua := openDoc(c, a, "ranges/stitch.go", "package ranges\n\nfunc Stitch() {}\n")
	ub := openDoc(c, b, "pkg/f000.go", "package pkg\n\nfunc F0() int { return 0 }\n")
	focus := func(uri string) map[string]any {
		return map[string]any{"uri": uri, "position": map[string]any{"line": 2, "character": 5}}
	}
	for i := range 6 {
		name := fmt.Sprintf("Edited%dNow", i)
		changeDoc(c, ua, i+2, "package ranges\n\nfunc "+name+"() {}\n")
		r := mustResult[assembleResultJSON](t, c.call(methodContextAssemble, map[string]any{"focus": focus(ua)}))
		if !r.hasText("func " + name + "()") {
			t.Fatalf("edit %d in folder a while b builds: not in the next answer: %q", i, r.Rendered)
		}
		changeDoc(c, ub, i+2, "package pkg\n\nfunc "+name+"() int { return 0 }\n")
		r = mustResult[assembleResultJSON](t, c.call(methodContextAssemble, map[string]any{"focus": focus(ub)}))
		if !r.hasText("func " + name + "()") {
			t.Fatalf("edit %d in folder b while it builds: not in the next answer: %q", i, r.Rendered)
		}
		if i == 5 && r.Stats.IndexComplete {
			t.Fatal("folder b finished building before the test's last edit: make it slower")
		}
	}
}

// TestOpenBuffersSameAsDiskChangeNothing: a context does not depend on
// which files are open when their buffers hold the disk's text — the same
// state gives the same answer, whether the index holds a file as a buffer
// (in a snapshot's delta) or from disk (in its base).
func TestOpenBuffersSameAsDiskChangeNothing(t *testing.T) {
	src, err := filepath.Abs("testdata/workspace")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(src, p)
			files[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	root := writeTree(t, files)
	opts := serverOptions(t, nil)
	plain := startServer(t, opts)
	plain.initialize(map[string]any{"rootUri": pathToURI(root)})
	edited := startServer(t, opts)
	edited.initialize(map[string]any{"rootUri": pathToURI(root)})
	for _, rel := range []string{"cart/cart.go", "pricing/tax.go"} {
		if _, ok := files[rel]; !ok {
			t.Fatalf("the workspace has no %s", rel)
		}
		openDoc(edited, root, rel, files[rel])
	}
	params := map[string]any{
		"query":  "func (c *Cart) Total() int64 { sub := c.Subtotal() return sub + pricing.Tax(c.Region, sub)",
		"focus":  map[string]any{"uri": pathToURI(filepath.Join(root, "cart", "cart.go")), "position": map[string]any{"line": 44, "character": 0}},
		"budget": map[string]any{"maxTokens": 300},
		// Open buffers are also the session's activity, a prior by design
		// (TestActivity); here only the index's content is compared.
		"activity": false,
	}
	a := mustResult[assembleResultJSON](t, plain.call(methodContextAssemble, params))
	b := mustResult[assembleResultJSON](t, edited.call(methodContextAssemble, params))
	if a.Rendered != b.Rendered {
		t.Fatalf("with the same text open the context differs:\n--- files from disk\n%s\n--- the same files open\n%s", a.Rendered, b.Rendered)
	}
}

// TestTrackersPerRoot: sessions sharing a root's index share its history
// and vector trackers: three sessions asking questions and diffs start one
// of each, not one per session.
func TestTrackersPerRoot(t *testing.T) {
	opts, pool, _ := poolOptions(t)
	opts.Embeddings = semantic.ModeWorkspace
	root := historytest.Repo(t)
	for i := range 3 {
		c := startServer(t, opts)
		c.initialize(map[string]any{"rootUri": pathToURI(root)})
		mustResult[assembleResultJSON](t, c.call(methodContextAssemble, map[string]any{"query": fmt.Sprintf("serve a request %d", i)}))
		mustResult[assembleResultJSON](t, c.call(methodContextAssemble, map[string]any{"diff": historytest.Diff}))
	}
	roots := pool.Roots()
	if len(roots) != 1 {
		t.Fatalf("%d indexes for one root", len(roots))
	}
	for _, r := range roots {
		if h, s := r.TrackersStarted(); h != 1 || s != 1 {
			t.Errorf("trackers started: history %d, vectors %d; want 1 and 1 for three sessions", h, s)
		}
	}
}
