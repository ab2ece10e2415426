package index

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ctxls/ctxls/internal/index/chunk"
	"github.com/ctxls/ctxls/internal/tokens"
)

// lyingChunker's ChunkAgain claims an incremental parse and drops the
// file's last chunk: what a tree-sitter incremental parse that differs
// from a fresh one would do.
type lyingChunker struct{ blockChunker }

func (l lyingChunker) ChunkAgain(p string, src []byte) ([]chunk.Chunk, bool, error) {
	cs, err := l.Chunk(p, src)
	if len(cs) > 1 {
		cs = cs[:len(cs)-1]
	}
	return cs, true, err
}

func (lyingChunker) KeepTrees(int) {}

// logLines collects an index's log lines.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logLines) contains(s string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range l.lines {
		if strings.Contains(line, s) {
			return true
		}
	}
	return false
}

// openLying opens the fixture with lyingChunker and opens ranges/stitch.go
// in an editor with two functions, the last of which ChunkAgain drops.
func openLying(t *testing.T) (*Index, *logLines) {
	t.Helper()
	log := &logLines{}
	opts := testOptions(t)
	opts.NewChunker = func() (Chunker, error) { return lyingChunker{}, nil }
	opts.Logf = log.logf
	x, _ := openFixture(t, opts)
	body := "package ranges\n\nfunc firstfunc() {}\n\nfunc lastfuncmarker() {}\n"
	if err := x.SetOverlay(ctx, "ranges/stitch.go", []byte(body)); err != nil {
		t.Fatal(err)
	}
	return x, log
}

// TestIncrementalChunksVerified: an editor buffer's chunks from an
// incremental parse that differ from a fresh parse's are found at the
// next checkpoint and replaced, so the index does not depend on the edit
// history.
func TestIncrementalChunksVerified(t *testing.T) {
	x, log := openLying(t)
	if got := hitPaths(t, x, Query{Text: "lastfuncmarker"}); len(got) != 0 {
		t.Fatalf("the lying chunker's result was not used: %v", got)
	}
	if err := x.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	if got := hitPaths(t, x, Query{Text: "lastfuncmarker"}); len(got) != 1 || got[0] != "ranges/stitch.go" {
		t.Errorf("after the checkpoint's verification: %v, want ranges/stitch.go", got)
	}
	if !log.contains("incremental parse gave other chunks") {
		t.Errorf("difference not logged: %q", log.lines)
	}
	if len(x.unverified) > 0 {
		t.Error("still unverified after a checkpoint")
	}
}

// TestIncrementalChunksUsed: with the real chunker, the edits of an
// editor buffer after the first are parsed incrementally, searchable at
// once, and verified without a difference.
func TestIncrementalChunksUsed(t *testing.T) {
	var log logLines
	opts := testOptions(t)
	opts.NewChunker = func() (Chunker, error) { return chunk.NewChunker(chunk.Options{}), nil }
	opts.Logf = log.logf
	x, _ := openFixture(t, opts)
	body := "package ranges\n\nfunc firstfunc() {}\n\nfunc secondfunc() {}\n"
	for i, word := range []string{"alphaword", "betaword", "gammaword"} {
		b := strings.Replace(body, "secondfunc", word, 1)
		if err := x.SetOverlay(ctx, "ranges/stitch.go", []byte(b)); err != nil {
			t.Fatal(err)
		}
		if got := hitPaths(t, x, Query{Text: word}); len(got) != 1 {
			t.Errorf("edit %d: %s found in %v", i, word, got)
		}
		rec := x.cur.Load().file("ranges/stitch.go")
		if reused := rec.again != nil; reused != (i > 0) {
			t.Errorf("edit %d: incremental %v, want %v", i, reused, i > 0)
		}
	}
	if err := x.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	if rec := x.cur.Load().file("ranges/stitch.go"); rec.again != nil || len(x.unverified) > 0 {
		t.Error("not verified at the checkpoint")
	}
	if log.contains("incremental parse") {
		t.Errorf("a difference was reported: %q", log.lines)
	}
	if got := hitPaths(t, x, Query{Text: "gammaword"}); len(got) != 1 {
		t.Errorf("after the checkpoint: gammaword in %v", got)
	}
}

// countingCounter counts words and how many texts it was asked to count
// (from the build's workers too: atomically).
type countingCounter struct{ calls *atomic.Int64 }

func (countingCounter) Name() string { return "words" }
func (c countingCounter) Count(text string) int {
	c.calls.Add(1)
	return len(strings.Fields(text))
}

// TestOverlayEditReusesTokenCounts: an edit of an editor buffer counts
// the tokens of the chunks whose lines changed and reuses the others'
// counts (also when a chunk is added before them); every count equals a
// fresh count of the chunk's lines.
func TestOverlayEditReusesTokenCounts(t *testing.T) {
	var calls atomic.Int64
	opts := testOptions(t)
	opts.Counters = map[string]tokens.Counter{"words": countingCounter{&calls}}
	x, _ := openFixture(t, opts)
	body := "package ranges\n\nfunc a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 2\n}\n\nfunc c() {\n\treturn 3\n}\n"
	edited := strings.Replace(body, "return 2", "return 2 + two", 1)
	for _, tc := range []struct {
		name, text string
		recounted  int
	}{
		{"open", body, -1},
		{"edit inside b", edited, 1},
		{"a function added first", strings.Replace(edited, "func a()", "func z() {\n}\n\nfunc a()", 1), 1},
	} {
		calls.Store(0)
		if err := x.SetOverlay(ctx, "ranges/stitch.go", []byte(tc.text)); err != nil {
			t.Fatal(err)
		}
		s, release := x.Snapshot()
		cs := s.ChunksOf("ranges/stitch.go")
		starts := lineStarts([]byte(tc.text))
		for _, c := range cs {
			n, ok := s.TokenCount(c.ID, "words")
			b, e := lineSpan(starts, len(tc.text), c.StartLine, c.EndLine)
			if want := len(strings.Fields(tc.text[b:e])); !ok || n != want {
				t.Errorf("%s: chunk %s lines %d-%d: %d tokens, want %d", tc.name, c.Symbol, c.StartLine, c.EndLine, n, want)
			}
		}
		release()
		if n := calls.Load(); tc.recounted >= 0 && n != int64(tc.recounted) {
			t.Errorf("%s: %d chunks counted, want %d of %d", tc.name, n, tc.recounted, len(cs))
		}
	}
}

// TestIncrementalChunksVerifiedAfterCompaction: the buffer's row is
// verified also when later changes folded it into new base tables.
func TestIncrementalChunksVerifiedAfterCompaction(t *testing.T) {
	x, _ := openLying(t)
	for i := range compactAfter + 2 {
		if err := x.Update(ctx, fmt.Sprintf("gen/f%03d.go", i), fmt.Appendf(nil, "package gen\n\nfunc F%d() {}\n", i)); err != nil {
			t.Fatal(err)
		}
	}
	if snap := x.cur.Load(); snap.delta["ranges/stitch.go"] != nil {
		t.Fatalf("the delta was not folded (%d files in it)", len(snap.delta))
	}
	if err := x.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	if got := hitPaths(t, x, Query{Text: "lastfuncmarker"}); len(got) != 1 {
		t.Errorf("after the checkpoint: %v, want ranges/stitch.go", got)
	}
}
