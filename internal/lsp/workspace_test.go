package lsp

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/index"
)

// Folders added and removed at run time: requests focused in a folder
// answer from it; a removed folder's files are outside the workspace.
func TestWorkspaceFolders(t *testing.T) {
	a := writeTree(t, fixture)
	b := writeTree(t, map[string]string{"lib/wombat.go": "package lib\n\n// Wombat digs burrows.\nfunc Wombat() {}\n"})
	c := startServer(t, serverOptions(t, nil))
	c.initialize(map[string]any{"workspaceFolders": []any{
		map[string]any{"uri": pathToURI(a), "name": "a"},
		map[string]any{"uri": pathToURI(b), "name": "b"},
	}})
	bFocus := map[string]any{"query": "burrows", "focus": map[string]any{"uri": pathToURI(filepath.Join(b, "lib/wombat.go")), "position": map[string]any{"line": 3, "character": 0}}}
	r := mustResult[assembleResultJSON](t, c.call(methodContextAssemble, bFocus))
	if !r.hasText("func Wombat") || !strings.HasPrefix(r.Parts[0].URI, pathToURI(b)+"/") {
		t.Fatalf("focus in folder b: %v", r.paths())
	}
	// Without a focus, the first folder answers.
	r = mustResult[assembleResultJSON](t, c.call(methodContextAssemble, map[string]any{"query": "Stitch"}))
	if !r.hasText("func Stitch") {
		t.Fatalf("first folder: %v", r.paths())
	}

	d := writeTree(t, map[string]string{"x/numbat.go": "package x\n\nfunc Numbat() {}\n"})
	c.notify(methodDidChangeWorkspaceFolders, map[string]any{"event": map[string]any{
		"added":   []any{map[string]any{"uri": pathToURI(d), "name": "d"}},
		"removed": []any{map[string]any{"uri": pathToURI(b), "name": "b"}},
	}})
	m := c.call(methodContextAssemble, bFocus)
	if err := mustError(t, m, CodeInvalidParams); err.field() != "focus.uri" {
		t.Errorf("removed folder: %s", err.Message)
	}
	r = mustResult[assembleResultJSON](t, c.call(methodContextAssemble, map[string]any{"query": "Numbat", "focus": map[string]any{
		"uri": pathToURI(filepath.Join(d, "x/numbat.go")), "position": map[string]any{"line": 2, "character": 5}}}))
	if !r.hasText("func Numbat") {
		t.Fatalf("added folder: %v", r.paths())
	}
	c.waitFor(methodLogMessage, func(p json.RawMessage) bool { return strings.Contains(string(p), "workspace folder removed") })
}

// Files changed outside the editor are seen through
// workspace/didChangeWatchedFiles, which the server registers for
// dynamically; an open buffer still wins over the disk.
func TestWatchedFiles(t *testing.T) {
	caps := map[string]any{"workspace": map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}}}
	e := newEnv(t, serverOptions(t, nil), nil, caps)
	reg := e.waitFor(methodRegisterCapability, nil)
	if !strings.Contains(string(reg.Params), `"method":"workspace/didChangeWatchedFiles"`) || !strings.Contains(string(reg.Params), `"globPattern":"**/*"`) {
		t.Errorf("registration %s", reg.Params)
	}
	write := func(rel, content string) {
		p := filepath.Join(e.root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	event := func(rel string, typ int) {
		e.notify(methodDidChangeWatchedFiles, map[string]any{"changes": []any{map[string]any{"uri": e.uri(rel), "type": typ}}})
	}
	write("zoo/koala.go", "package zoo\n\nfunc Koala() {}\n")
	event("zoo/koala.go", fileChangeTypeCreated)
	if r := e.assemble(map[string]any{"query": "Koala"}); !r.hasText("func Koala") {
		t.Fatalf("created file not seen: %v", r.paths())
	}
	write("zoo/koala.go", "package zoo\n\nfunc Kangaroo() {}\n")
	event("zoo/koala.go", fileChangeTypeChanged)
	if r := e.assemble(map[string]any{"query": "Kangaroo Koala"}); !r.hasText("func Kangaroo") || r.hasText("func Koala") {
		t.Fatalf("changed file not seen: %q", r.Rendered)
	}
	// An ignored path (hidden directory) is not indexed.
	write(".git/objects/Kangaroo.txt", "Kangaroo Kangaroo")
	event(".git/objects/Kangaroo.txt", fileChangeTypeCreated)
	// A deleted directory drops every file below it.
	if err := os.RemoveAll(filepath.Join(e.root, "zoo")); err != nil {
		t.Fatal(err)
	}
	event("zoo", fileChangeTypeDeleted)
	if r := e.assemble(map[string]any{"query": "Kangaroo"}); r.hasText("Kangaroo") {
		t.Fatalf("deleted or ignored file still answers: %v", r.paths())
	}
	// An open buffer wins over a change on disk.
	uri := e.uri("budget/pack.go")
	e.notify(methodDidOpen, map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": 1, "text": "package budget\n\nfunc Bilby() {}\n"}})
	write("budget/pack.go", "package budget\n\nfunc Dingo() {}\n")
	event("budget/pack.go", fileChangeTypeChanged)
	if r := e.assemble(map[string]any{"query": "Bilby Dingo"}); !r.hasText("func Bilby") || r.hasText("Dingo") {
		t.Fatalf("open buffer lost to the disk: %q", r.Rendered)
	}
}

// gatedLister lists the files of a root like the index's default lister,
// but only once release is closed: the initial build stays in progress as
// long as the test wants.
type gatedLister struct {
	release chan struct{}
}

func (g gatedLister) List(ctx context.Context, root string) ([]index.Entry, []index.Skipped, error) {
	select {
	case <-g.release:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	var out []index.Entry
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out = append(out, index.Entry{Path: filepath.ToSlash(rel), Size: info.Size(), ModTime: info.ModTime()})
		return nil
	})
	return out, nil, err
}

// While a folder indexes, the server reports work-done progress, and
// requests answer at once from what is indexed with indexComplete false.
func TestIndexingProgress(t *testing.T) {
	release := make(chan struct{})
	opts := serverOptions(t, nil)
	opts.IndexOptions = func(string) index.Options {
		return index.Options{InMemory: true, Lister: gatedLister{release}}
	}
	caps := map[string]any{"window": map[string]any{"workDoneProgress": true}}
	root := writeTree(t, fixture)
	c := startServer(t, opts)
	c.initialize(map[string]any{"rootUri": pathToURI(root), "capabilities": caps, "initializationOptions": map[string]any{"indexWaitMs": 50}})
	create := c.waitFor(methodWorkDoneProgressCreate, nil)
	var tok struct {
		Token string `json:"token"`
	}
	json.Unmarshal(create.Params, &tok)
	c.waitFor(methodProgress, func(p json.RawMessage) bool {
		return strings.Contains(string(p), `"kind":"begin"`) && strings.Contains(string(p), tok.Token)
	})
	start := time.Now()
	r := mustResult[assembleResultJSON](t, c.call(methodContextAssemble, map[string]any{"query": "Stitch"}))
	if r.Stats.IndexComplete || time.Since(start) > 5*time.Second {
		t.Errorf("during indexing: indexComplete %v after %v", r.Stats.IndexComplete, time.Since(start))
	}
	close(release)
	c.waitFor(methodProgress, func(p json.RawMessage) bool {
		return strings.Contains(string(p), `"kind":"end"`) && strings.Contains(string(p), tok.Token)
	})
	r = mustResult[assembleResultJSON](t, c.call(methodContextAssemble, map[string]any{"query": "Stitch"}))
	if !r.Stats.IndexComplete || !r.hasText("func Stitch") {
		t.Errorf("after indexing: complete %v, parts %v", r.Stats.IndexComplete, r.paths())
	}
	c.waitFor(methodLogMessage, func(p json.RawMessage) bool { return strings.Contains(string(p), "indexed") })
}

// A client without work-done progress support gets log messages instead.
func TestIndexingWithoutProgressSupport(t *testing.T) {
	release := make(chan struct{})
	opts := serverOptions(t, nil)
	opts.IndexOptions = func(string) index.Options {
		return index.Options{InMemory: true, Lister: gatedLister{release}}
	}
	root := writeTree(t, fixture)
	c := startServer(t, opts)
	c.initialize(map[string]any{"rootUri": pathToURI(root)})
	c.waitFor(methodLogMessage, func(p json.RawMessage) bool { return strings.Contains(string(p), "indexing") })
	close(release)
	c.waitFor(methodLogMessage, func(p json.RawMessage) bool { return strings.Contains(string(p), "indexed") })
	if n := c.count(methodWorkDoneProgressCreate) + c.count(methodProgress); n != 0 {
		t.Errorf("%d progress messages to a client that does not support them", n)
	}
}

// context/expand returns omitted candidates in full, from the state of the
// assemble that listed them while it is held, else from the current one.
func TestExpand(t *testing.T) {
	e := newEnv(t, serverOptions(t, nil), nil, nil)
	r := e.assemble(map[string]any{"query": "budget parts ranges Stitch Pack", "budget": map[string]any{"maxTokens": 60}})
	if len(r.Omitted) == 0 {
		t.Fatalf("nothing omitted at 60 tokens: %v", r.paths())
	}
	h := r.Omitted[0].Handle
	// Change the file on disk and in a buffer: the held state still has the old text.
	uri := e.uri(r.Omitted[0].Path)
	e.notify(methodDidOpen, map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": 1, "text": strings.Repeat("changed\n", 40)}})
	x := mustResult[assembleResultJSON](t, e.call(methodContextExpand, map[string]any{"handles": []any{h}, "budget": map[string]any{"maxTokens": 4000}}))
	// The expand reads the held content (no model: its state is the
	// content's part of the assemble's, index.ContentState).
	if x.FromHeldState == nil || !*x.FromHeldState || x.Stats.IndexState != index.ContentState(r.Stats.IndexState) || len(x.Parts) == 0 || x.hasText("changed") {
		t.Fatalf("expand from the held state: held %v state %s (want %s), parts %v", x.FromHeldState, x.Stats.IndexState, r.Stats.IndexState, x.paths())
	}
	if x.Parts[0].URI != uri {
		t.Errorf("uri %s", x.Parts[0].URI)
	}
	// An unknown state: answered from the current one, and said so.
	x = mustResult[assembleResultJSON](t, e.call(methodContextExpand, map[string]any{"handles": []any{h}, "indexState": "feed"}))
	if *x.FromHeldState || x.Stats.IndexState == index.ContentState(r.Stats.IndexState) || !strings.Contains(x.Stats.Note, "no longer held") || !x.hasText("changed") {
		t.Fatalf("expand from the current state: held %v, note %q, parts %q", *x.FromHeldState, x.Stats.Note, x.Rendered)
	}
	e.notify(methodDidClose, map[string]any{"textDocument": map[string]any{"uri": uri}})
	// A uri and an LSP range; a uri and 1-based lines.
	x = mustResult[assembleResultJSON](t, e.call(methodContextExpand, map[string]any{"uri": e.uri("ranges/stitch.go"),
		"range": map[string]any{"start": map[string]any{"line": 4, "character": 0}, "end": map[string]any{"line": 5, "character": 0}}}))
	if len(x.Parts) != 1 || strings.TrimSpace(x.Parts[0].Text) != "func Stitch(rs []Range, gap int) []Range {" {
		t.Fatalf("expand by LSP range: %q", x.Rendered)
	}
	x = mustResult[assembleResultJSON](t, e.call(methodContextExpand, map[string]any{"uri": e.uri("ranges/stitch.go"), "range": map[string]any{"start": 5, "end": 5}}))
	if len(x.Parts) != 1 || strings.TrimSpace(x.Parts[0].Text) != "func Stitch(rs []Range, gap int) []Range {" {
		t.Fatalf("expand by lines: %q", x.Rendered)
	}
}

func TestInVCSDir(t *testing.T) {
	for rel, want := range map[string]bool{
		".git/objects/ab/cd": true, "sub/.hg/store": true, ".git/info/exclude": false,
		"src/main.go": false, ".github/workflows/ci.yml": false, "a.git/x": false,
	} {
		if got := inVCSDir(rel); got != want {
			t.Errorf("inVCSDir(%q) = %v", rel, got)
		}
	}
}
