package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/tokens"
)

var ctx = context.Background()

func TestSearchFindsSymbolByParts(t *testing.T) {
	for _, mem := range []bool{true, false} {
		t.Run(fmt.Sprintf("inMemory=%v", mem), func(t *testing.T) {
			opts := testOptions(t)
			opts.InMemory = mem
			x, _ := openFixture(t, opts)
			for _, q := range []Query{
				{Words: []string{"http", "request"}},
				{Text: "parse http request"},
				{Text: "parse_http_request"},
				{Identifiers: []string{"parseHTTPRequest"}},
			} {
				ids := searchIDs(t, x, q, 3)
				if len(ids) == 0 {
					t.Fatalf("%+v: no hits", q)
				}
				s, release := x.Snapshot()
				c, ok := s.Chunk(ids[0])
				release()
				if !ok || c.Symbol != "parseHTTPRequest" {
					t.Errorf("%+v: top hit %s is %q, want parseHTTPRequest", q, ids[0], c.Symbol)
				}
			}
		})
	}
}

func TestSearchRanksSymbolAndInflections(t *testing.T) {
	x, _ := openFixture(t, testOptions(t))
	// "stitched" reaches Stitch through its inflection; the definition
	// (symbol field) beats the caller that only mentions it.
	ids := searchIDs(t, x, Query{Words: []string{"stitched"}}, 5)
	if len(ids) < 2 {
		t.Fatalf("hits %v, want the definition and the caller", ids)
	}
	if p, _, _ := ids[0].Split(); p != "ranges/stitch.go" {
		t.Errorf("top hit %s, want ranges/stitch.go", ids[0])
	}
	if got := searchIDs(t, x, Query{Text: "zzzunknown"}, 5); len(got) != 0 {
		t.Errorf("unknown word: hits %v", got)
	}
	if got := searchIDs(t, x, Query{}, 5); len(got) != 0 {
		t.Errorf("empty query: hits %v", got)
	}
}

func TestSearchFilter(t *testing.T) {
	x, _ := openFixture(t, testOptions(t))
	q := Query{Identifiers: []string{"Stitch"}}
	all := hitPaths(t, x, q)
	if len(all) < 2 || all[0] != "ranges/stitch.go" {
		t.Fatalf("unfiltered: %v", all)
	}
	q.Filter = func(p string) bool { return !strings.HasPrefix(p, "ranges/") }
	s, release := x.Snapshot()
	defer release()
	hits, err := s.Search(ctx, q, 1)
	if err != nil || len(hits) != 1 || strings.HasPrefix(hits[0].Path, "ranges/") {
		t.Errorf("filtered top hit: %+v %v", hits, err)
	}
}

func TestSearchDeterministicTies(t *testing.T) {
	x, _ := openFixture(t, testOptions(t))
	// The two Clamp copies tie on text and symbol; the path field differs
	// only by terms the query does not have.
	hits := func() []Hit {
		s, release := x.Snapshot()
		defer release()
		h, err := s.Search(ctx, Query{Identifiers: []string{"Clamp"}}, 1)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	// Re-index vendor/a so that its documents come after vendor/b's in
	// bleve's internal order: the tie-break must not depend on it.
	src := fixture()["vendor/a/util.go"]
	if err := x.Update(ctx, "vendor/a/util.go", []byte(src+"\n")); err != nil {
		t.Fatal(err)
	}
	if err := x.Update(ctx, "vendor/a/util.go", []byte(src)); err != nil {
		t.Fatal(err)
	}
	s, release := x.Snapshot()
	both, err := s.Search(ctx, Query{Identifiers: []string{"Clamp"}}, 2)
	release()
	if err != nil || len(both) != 2 || both[0].Score != both[1].Score {
		t.Fatalf("want two hits with equal scores, got %+v, %v", both, err)
	}
	h := hits()
	if len(h) != 1 || h[0].Path != "vendor/a/util.go" {
		t.Fatalf("k=1 tie: got %+v, want vendor/a/util.go (first by path)", h)
	}
	for range 5 {
		if g := hits(); g[0] != h[0] {
			t.Fatalf("not deterministic: %+v vs %+v", g, h)
		}
	}
}

func TestSameContentSameTrackingHash(t *testing.T) {
	x, _ := openFixture(t, testOptions(t))
	s, release := x.Snapshot()
	defer release()
	a, b := s.ChunksOf("vendor/a/util.go"), s.ChunksOf("vendor/b/util.go")
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("chunks: %d vs %d", len(a), len(b))
	}
	for i := range a {
		if a[i].ID == b[i].ID {
			t.Errorf("same ID %s for two paths", a[i].ID)
		}
		ca, _ := s.Chunk(a[i].ID)
		cb, _ := s.Chunk(b[i].ID)
		if ca.TrackingHash == "" || ca.TrackingHash != cb.TrackingHash {
			t.Errorf("tracking hashes %q vs %q", ca.TrackingHash, cb.TrackingHash)
		}
	}
	fa, _ := s.Stat("vendor/a/util.go")
	fb, _ := s.Stat("vendor/b/util.go")
	if fa.Hash != fb.Hash {
		t.Errorf("file hashes differ for equal content")
	}
}

func TestTablesAndSymbols(t *testing.T) {
	x, root := openFixture(t, testOptions(t))
	s, release := x.Snapshot()
	defer release()
	if !s.Complete() {
		t.Error("snapshot not complete after a blocking Open")
	}
	if got := s.Paths(); len(got) != 6 || !slices.IsSorted(got) {
		t.Errorf("paths %v", got)
	}
	defs := s.Defs("Stitch")
	if len(defs) != 1 || !strings.HasPrefix(string(defs[0]), "ranges/stitch.go#") {
		t.Fatalf("Defs(Stitch) = %v", defs)
	}
	if q := s.Defs("ranges.Stitch"); !slices.Equal(q, defs) {
		t.Errorf("Defs(ranges.Stitch) = %v, want %v", q, defs)
	}
	refs := s.Refs("Stitch")
	if len(refs) != 1 || !strings.HasPrefix(string(refs[0]), "assemble/pack.go#") {
		t.Fatalf("Refs(Stitch) = %v", refs)
	}
	if u := s.UsedBy(defs[0]); !slices.Equal(u, refs) {
		t.Errorf("UsedBy = %v, want %v", u, refs)
	}
	if u := s.Uses(refs[0], 0); !slices.Contains(u, defs[0]) {
		t.Errorf("Uses(%s) = %v, want it to contain %s", refs[0], u, defs[0])
	}
	if d := s.Defs("Clamp"); len(d) != 2 || !slices.IsSortedFunc(d, func(a, b ChunkID) int { return strings.Compare(string(a), string(b)) }) {
		t.Errorf("Defs(Clamp) = %v", d)
	}
	cs := s.ChunksOf("server/http.go")
	if len(cs) != 3 || cs[1].Symbol != "parseHTTPRequest" || cs[2].Symbol != "handleConnection" {
		t.Fatalf("ChunksOf = %+v", cs)
	}
	for i := 1; i < len(cs); i++ {
		if cs[i].StartLine < cs[i-1].StartLine {
			t.Errorf("chunks not in line order")
		}
	}
	if cs[1].Doc == "" || cs[1].DocStartLine != 3 || cs[1].StartLine != 4 {
		t.Errorf("chunk doc/lines: %+v", cs[1].Chunk)
	}
	n, ok := s.TokenCount(cs[1].ID, "words")
	if !ok || n != len(strings.Fields("func parseHTTPRequest(conn Conn) (*Request, error) {\n\treturn readwire(conn)\n}\n")) {
		t.Errorf("TokenCount = %d, %v", n, ok)
	}
	if _, ok := s.TokenCount(cs[1].ID, "cl100k_base"); ok {
		t.Error("TokenCount for an encoding not built should report false")
	}
	f, err := s.File("server/http.go")
	if err != nil {
		t.Fatal(err)
	}
	disk, _ := os.ReadFile(filepath.Join(root, "server/http.go"))
	if f.Text != string(disk) || f.Language != "go" || f.Chunks != 3 {
		t.Errorf("File = %+v", f.FileInfo)
	}
	if cached, ok := s.env.texts.get("server/http.go", f.Hash); !ok || cached != f.Text {
		t.Errorf("the text read is not kept for the next request: %v", ok)
	}
	if again, err := s.File("server/http.go"); err != nil || again.Text != f.Text {
		t.Errorf("File from the kept text = %q, %v", again.Text, err)
	}
	if _, err := s.File("nope.go"); !errors.Is(err, ErrNotFound) {
		t.Errorf("File(nope.go) error %v, want ErrNotFound", err)
	}
	// A changed disk file is reported, not served with wrong lines.
	writeTree(t, root, map[string]string{"server/http.go": "package server\n"})
	if _, err := s.File("server/http.go"); !errors.Is(err, ErrStale) {
		t.Errorf("File after disk change: %v, want ErrStale", err)
	}
}

func TestUpdateReplacesOldText(t *testing.T) {
	x, root := openFixture(t, testOptions(t))
	before := x.cur.Load().StateRoot()
	if got := hitPaths(t, x, Query{Text: "readwire"}); !slices.Equal(got, []string{"server/http.go"}) {
		t.Fatalf("before: %v", got)
	}
	writeTree(t, root, map[string]string{"server/http.go": `package server

// parseHTTPRequest decodes one frame.
func parseHTTPRequest(conn Conn) (*Request, error) {
	return decodeframe(conn)
}
`})
	if err := x.Update(ctx, "server/http.go", nil); err != nil {
		t.Fatal(err)
	}
	if got := hitPaths(t, x, Query{Text: "readwire"}); len(got) != 0 {
		t.Errorf("old text still found in %v", got)
	}
	if got := hitPaths(t, x, Query{Text: "decodeframe"}); !slices.Equal(got, []string{"server/http.go"}) {
		t.Errorf("new text: %v", got)
	}
	s, release := x.Snapshot()
	defer release()
	if s.StateRoot() == before {
		t.Error("state root unchanged after an edit")
	}
	if cs := s.ChunksOf("server/http.go"); len(cs) != 2 {
		t.Errorf("chunks after update: %d, want 2", len(cs))
	}
	if d := s.Defs("handleConnection"); len(d) != 0 {
		t.Errorf("Defs(handleConnection) = %v after it was deleted", d)
	}
	if r := s.Refs("decodeframe"); len(r) != 1 {
		t.Errorf("Refs(decodeframe) = %v", r)
	}
	// Content given to Update is indexed as is; an absolute path works.
	if err := x.Update(ctx, filepath.Join(root, "ranges/new.go"), []byte("package ranges\n\nfunc Widen() {}\n")); err != nil {
		t.Fatal(err)
	}
	if got := hitPaths(t, x, Query{Identifiers: []string{"Widen"}}); !slices.Equal(got, []string{"ranges/new.go"}) {
		t.Errorf("added file: %v", got)
	}
	for _, p := range []string{"aaa.go", "zzz.go"} {
		if err := x.Update(ctx, p, []byte("package x\n")); err != nil {
			t.Fatal(err)
		}
	}
	s2, rel2 := x.Snapshot()
	want := []string{"README.md", "aaa.go", "assemble/pack.go", "ranges/new.go", "ranges/stitch.go",
		"server/http.go", "vendor/a/util.go", "vendor/b/util.go", "zzz.go"}
	if got := s2.Paths(); !slices.Equal(got, want) {
		t.Errorf("paths with a delta: %v", got)
	}
	rel2()
	if err := x.Update(ctx, "../outside.go", []byte("x")); err == nil {
		t.Error("Update outside the root succeeded")
	}
}

func TestRemove(t *testing.T) {
	x, _ := openFixture(t, testOptions(t))
	if err := x.Remove(ctx, "ranges/stitch.go"); err != nil {
		t.Fatal(err)
	}
	if got := hitPaths(t, x, Query{Words: []string{"stitch"}}); slices.Contains(got, "ranges/stitch.go") {
		t.Errorf("removed file still found: %v", got)
	}
	s, release := x.Snapshot()
	defer release()
	if d := s.Defs("Stitch"); len(d) != 0 {
		t.Errorf("Defs(Stitch) = %v", d)
	}
	if _, err := s.File("ranges/stitch.go"); !errors.Is(err, ErrNotFound) {
		t.Errorf("File: %v", err)
	}
	if len(s.Paths()) != 5 {
		t.Errorf("paths %v", s.Paths())
	}
	if err := x.Remove(ctx, "never/was.go"); err != nil {
		t.Errorf("removing an unknown path: %v", err)
	}
}

func TestOverlayOverridesDisk(t *testing.T) {
	x, root := openFixture(t, testOptions(t))
	buf := "package ranges\n\n// Stitch now interleaves.\nfunc Stitch() { interleaveall() }\n"
	if err := x.SetOverlay(ctx, "ranges/stitch.go", []byte(buf)); err != nil {
		t.Fatal(err)
	}
	if got := hitPaths(t, x, Query{Text: "interleaveall"}); !slices.Equal(got, []string{"ranges/stitch.go"}) {
		t.Errorf("overlay text not searchable: %v", got)
	}
	if got := hitPaths(t, x, Query{Text: "merge"}); len(got) != 0 {
		t.Errorf("disk text still found: %v", got)
	}
	s, release := x.Snapshot()
	f, err := s.File("ranges/stitch.go")
	if err != nil || f.Text != buf || !f.Overlay {
		t.Errorf("File = %q, %v, overlay %v", f.Text, err, f.Overlay)
	}
	if r := s.Refs("interleaveall"); len(r) != 1 {
		t.Errorf("Refs from overlay: %v", r)
	}
	release()
	// Disk changes and Update do not replace an open buffer.
	writeTree(t, root, map[string]string{"ranges/stitch.go": "package ranges\n\nfunc diskonly() {}\n"})
	if err := x.Update(ctx, "ranges/stitch.go", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if got := hitPaths(t, x, Query{Text: "diskonly"}); len(got) != 0 {
		t.Errorf("disk content replaced the overlay: %v", got)
	}
	// A buffer for a file that is not on disk is indexed too.
	if err := x.SetOverlay(ctx, "scratch/new.go", []byte("package scratch\nfunc Unsaved() {}\n")); err != nil {
		t.Fatal(err)
	}
	if got := hitPaths(t, x, Query{Identifiers: []string{"Unsaved"}}); len(got) != 1 {
		t.Errorf("unsaved buffer: %v", got)
	}
	if err := x.ClearOverlay(ctx, "ranges/stitch.go"); err != nil {
		t.Fatal(err)
	}
	if err := x.ClearOverlay(ctx, "scratch/new.go"); err != nil {
		t.Fatal(err)
	}
	if got := hitPaths(t, x, Query{Text: "diskonly"}); !slices.Equal(got, []string{"ranges/stitch.go"}) {
		t.Errorf("after ClearOverlay: %v", got)
	}
	if got := hitPaths(t, x, Query{Identifiers: []string{"Unsaved"}}); len(got) != 0 {
		t.Errorf("cleared unsaved buffer still indexed: %v", got)
	}
}

func TestSnapshotIsolation(t *testing.T) {
	x, root := openFixture(t, testOptions(t))
	old, release := x.Snapshot()
	defer release()
	oldRoot := old.StateRoot()
	oldID := old.Defs("handleConnection")
	writeTree(t, root, map[string]string{"server/http.go": "package server\n\nfunc serveFrames() { decodeframe() }\n"})
	if err := x.Update(ctx, "server/http.go", nil); err != nil {
		t.Fatal(err)
	}
	if err := x.Remove(ctx, "ranges/stitch.go"); err != nil {
		t.Fatal(err)
	}
	// The old snapshot still answers from the old state, bleve included.
	hits, err := old.Search(ctx, Query{Text: "readwire"}, 5)
	if err != nil || len(hits) != 1 || hits[0].Path != "server/http.go" {
		t.Errorf("old snapshot search: %+v, %v", hits, err)
	}
	if hits, _ := old.Search(ctx, Query{Text: "decodeframe"}, 5); len(hits) != 0 {
		t.Errorf("old snapshot sees new text: %+v", hits)
	}
	if c, ok := old.Chunk(oldID[0]); !ok || c.Symbol != "handleConnection" {
		t.Errorf("old chunk: %+v %v", c, ok)
	}
	if len(old.Defs("Stitch")) != 1 || old.StateRoot() != oldRoot {
		t.Error("old snapshot changed")
	}
	cur, rel2 := x.Snapshot()
	defer rel2()
	if cur.Seq() <= old.Seq() || cur.StateRoot() == oldRoot {
		t.Error("new snapshot not newer")
	}
	release()
	release() // idempotent
	if _, err := old.Search(ctx, Query{Text: "x"}, 1); err == nil {
		t.Error("search on a released snapshot succeeded")
	}
}

func TestConcurrentReadersDuringWrites(t *testing.T) {
	x, root := openFixture(t, testOptions(t))
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errc := make(chan error, 8)
	for r := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				s, release := x.Snapshot()
				hits, err := s.Search(ctx, Query{Text: "parse request version"}, 5)
				if err == nil {
					for _, h := range hits {
						if _, ok := s.Chunk(h.ID); !ok {
							err = fmt.Errorf("reader %d: hit %s not in its snapshot", r, h.ID)
						}
					}
					_ = s.Defs("parseHTTPRequest")
					_, _ = s.File("ranges/stitch.go")
				}
				release()
				if err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	for i := range 40 {
		body := fmt.Sprintf("package server\n\n// version %d\nfunc parseHTTPRequest() { readV%d() }\n", i, i)
		var err error
		switch i % 3 {
		case 0:
			err = x.Update(ctx, "server/http.go", []byte(body))
		case 1:
			err = x.SetOverlay(ctx, "server/http.go", []byte(body))
		default:
			err = x.ClearOverlay(ctx, "server/http.go")
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	writeTree(t, root, map[string]string{"extra.go": "package extra\n"})
	if _, err := x.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()
	select {
	case err := <-errc:
		t.Fatal(err)
	default:
	}
}

func TestStateRoot(t *testing.T) {
	a := StateRoot(map[string]string{"a.go": "h1", "b.go": "h2"})
	b := StateRoot(map[string]string{"b.go": "h2", "a.go": "h1"})
	if a != b || len(a) != 64 {
		t.Fatalf("StateRoot not order independent: %s %s", a, b)
	}
	if c := StateRoot(map[string]string{"a.go": "h1", "b.go": "h3"}); c == a {
		t.Error("StateRoot ignores content")
	}
	if c := StateRoot(map[string]string{"a.go": "h1", "c.go": "h2"}); c == a {
		t.Error("StateRoot ignores paths")
	}

	// Two trees with equal content written in different orders, indexed
	// with different worker counts, have the same state root.
	files := fixture()
	names := slices.Sorted(func(yield func(string) bool) {
		for p := range files {
			if !yield(p) {
				return
			}
		}
	})
	roots := make([]string, 2)
	for i := range roots {
		root := t.TempDir()
		order := slices.Clone(names)
		if i == 1 {
			slices.Reverse(order)
		}
		for _, p := range order {
			writeTree(t, root, map[string]string{p: files[p]})
			time.Sleep(time.Millisecond)
		}
		opts := testOptions(t)
		opts.InMemory = true
		opts.Workers = 1 + i*3
		x, err := Open(ctx, root, opts)
		if err != nil {
			t.Fatal(err)
		}
		s, release := x.Snapshot()
		roots[i] = s.StateRoot()
		release()
		// Edit and revert: the root follows the content.
		if err := x.Update(ctx, "README.md", []byte("changed\n")); err != nil {
			t.Fatal(err)
		}
		s, release = x.Snapshot()
		if s.StateRoot() == roots[i] {
			t.Error("state root unchanged after an edit")
		}
		release()
		if err := x.Update(ctx, "README.md", []byte(files["README.md"])); err != nil {
			t.Fatal(err)
		}
		s, release = x.Snapshot()
		if s.StateRoot() != roots[i] {
			t.Error("state root differs after reverting an edit")
		}
		release()
		x.Close()
	}
	if roots[0] != roots[1] {
		t.Errorf("state roots differ: %s %s", roots[0], roots[1])
	}
}

func TestChangesAreFilteredLikeTheWalk(t *testing.T) {
	x, root := openFixture(t, testOptions(t))
	// A secret opened in the editor is never indexed.
	if err := x.SetOverlay(ctx, ".env", []byte("API_TOKEN=supersecretvalue\n")); err != nil {
		t.Fatal(err)
	}
	if got := hitPaths(t, x, Query{Text: "supersecretvalue"}); len(got) != 0 {
		t.Errorf("secret indexed: %v", got)
	}
	// Editing .gitignore re-applies the rules to the whole tree.
	writeTree(t, root, map[string]string{".gitignore": "server/\n"})
	if err := x.Update(ctx, ".gitignore", nil); err != nil {
		t.Fatal(err)
	}
	if got := hitPaths(t, x, Query{Identifiers: []string{"parseHTTPRequest"}}); len(got) != 0 {
		t.Errorf("newly ignored directory still indexed: %v", got)
	}
	// An ignored file stays out of the index when it changes.
	writeTree(t, root, map[string]string{"server/http.go": "package server\nfunc ignoredchange() {}\n"})
	if err := x.Update(ctx, "server/http.go", nil); err != nil {
		t.Fatal(err)
	}
	if got := hitPaths(t, x, Query{Text: "ignoredchange"}); len(got) != 0 {
		t.Errorf("ignored file indexed: %v", got)
	}
	s, release := x.Snapshot()
	defer release()
	if _, ok := s.Stat("server/http.go"); ok {
		t.Error("ignored file in the file table")
	}
}

func TestDefaultChunkerAndWalker(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"ranges/stitch.go": `package ranges

// Stitch joins ranges whose gap is small.
func Stitch(rs []Range, gap int) []Range {
	return mergeRanges(rs, gap)
}

// Range is a line range.
type Range struct{ Start, End int }

func (r Range) Len() int { return r.End - r.Start + 1 }
`,
		"tool/main.py":            "def parse_http_request(conn):\n    return conn.read()\n",
		"node_modules/x/index.js": "function ignoredByDefault() {}\n",
		".env":                    "SECRET=1\n",
	})
	x, err := Open(ctx, root, Options{CacheDir: filepath.Join(t.TempDir(), "c"), Counters: map[string]tokens.Counter{}, CheckpointDelay: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	s, release := x.Snapshot()
	defer release()
	if got := s.Paths(); !slices.Equal(got, []string{"ranges/stitch.go", "tool/main.py"}) {
		t.Errorf("paths %v", got)
	}
	if st := x.Stats(); st.Skipped["secret"] != 1 || st.Skipped["ignored"] != 1 {
		t.Errorf("skipped %v", st.Skipped)
	}
	d := s.Defs("Stitch")
	if len(d) != 1 {
		t.Fatalf("Defs(Stitch) = %v", d)
	}
	c, _ := s.Chunk(d[0])
	if c.Kind != "function" || c.SigEndLine != 4 || !strings.Contains(c.Doc, "joins ranges") {
		t.Errorf("Stitch chunk %+v", c)
	}
	hits, err := s.Search(ctx, Query{Words: []string{"http", "request"}}, 1)
	if err != nil || len(hits) != 1 || hits[0].Path != "tool/main.py" {
		t.Errorf("search: %+v %v", hits, err)
	}
	if len(s.Defs("Range.Len")) != 1 && len(s.Defs("Len")) != 1 {
		t.Errorf("method not found by name")
	}
}

func TestDeltaCompaction(t *testing.T) {
	opts := testOptions(t)
	opts.InMemory = true
	x, _ := openFixture(t, opts)
	for i := range compactAfter + 10 {
		p := fmt.Sprintf("gen/f%03d.go", i)
		if err := x.Update(ctx, p, fmt.Appendf(nil, "package gen\n\nfunc Gen%d() { useshared() }\n", i)); err != nil {
			t.Fatal(err)
		}
		if i == compactAfter+5 {
			if err := x.Remove(ctx, "gen/f000.go"); err != nil {
				t.Fatal(err)
			}
		}
	}
	s, release := x.Snapshot()
	defer release()
	if len(s.delta) > compactAfter {
		t.Errorf("delta of %d files never compacted", len(s.delta))
	}
	if n := len(s.Paths()); n != 6+compactAfter+10-1 {
		t.Errorf("%d paths", n)
	}
	if r := s.Refs("useshared"); len(r) != compactAfter+10-1 {
		t.Errorf("Refs across base and delta: %d", len(r))
	}
	if d := s.Defs("Gen0"); len(d) != 0 {
		t.Errorf("removed file's definition: %v", d)
	}
	if d := s.Defs(fmt.Sprintf("Gen%d", compactAfter+9)); len(d) != 1 {
		t.Errorf("newest definition: %v", d)
	}
	hits, err := s.Search(ctx, Query{Text: "useshared"}, 1000)
	if err != nil || len(hits) != compactAfter+10-1 {
		t.Errorf("search across base and delta: %d hits, %v", len(hits), err)
	}
}
