package index

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/index/chunk"
	"github.com/ctxls/ctxls/internal/tokens"
)

// blockChunker is a small stand-in for the tree-sitter chunker, for Go-like
// fixtures: a file's top-level blocks (separated by blank lines) are
// chunks; a block whose first code line is "func Name(" or "type Name" is a
// function or type chunk named Name, and its leading comment lines are its
// doc comment. It counts its calls.
type blockChunker struct{ calls *atomic.Int64 }

var (
	funcRe = regexp.MustCompile(`^func (?:\([^)]*\) )?([A-Za-z_][A-Za-z0-9_]*)`)
	typeRe = regexp.MustCompile(`^type ([A-Za-z_][A-Za-z0-9_]*)`)
	pkgRe  = regexp.MustCompile(`(?m)^package ([A-Za-z_][A-Za-z0-9_]*)`)
)

func (blockChunker) Close() {}

func (b blockChunker) Chunk(p string, src []byte) ([]chunk.Chunk, error) {
	if b.calls != nil {
		b.calls.Add(1)
	}
	pkg := ""
	if m := pkgRe.FindSubmatch(src); m != nil {
		pkg = string(m[1])
	}
	starts := lineStarts(src)
	nlines := len(starts)
	if starts[nlines-1] == len(src) {
		nlines--
	}
	line := func(i int) string { // 1-based
		s, e := lineSpan(starts, len(src), i, i)
		return strings.TrimRight(string(src[s:e]), "\n")
	}
	var rv []chunk.Chunk
	for i := 1; i <= nlines; {
		if strings.TrimSpace(line(i)) == "" {
			i++
			continue
		}
		j := i
		for j+1 <= nlines && strings.TrimSpace(line(j+1)) != "" {
			j++
		}
		first := i
		for first < j && strings.HasPrefix(line(first), "//") {
			first++
		}
		c := chunk.Chunk{Path: p, Language: "go", Kind: chunk.KindHeader, StartLine: first, EndLine: j, SigEndLine: first}
		if first > i {
			c.DocStartLine = i
			var doc []string
			for k := i; k < first; k++ {
				doc = append(doc, line(k))
			}
			c.Doc = strings.Join(doc, "\n")
		}
		if m := funcRe.FindStringSubmatch(line(first)); m != nil {
			c.Kind, c.Symbol = chunk.KindFunction, m[1]
		} else if m := typeRe.FindStringSubmatch(line(first)); m != nil {
			c.Kind, c.Symbol = chunk.KindType, m[1]
		}
		if c.Symbol != "" {
			c.QualifiedName = pkg + "." + c.Symbol
			c.Defines = []string{c.Symbol}
			c.Signature = line(first)
		}
		c.StartByte, c.EndByte = lineSpan(starts, len(src), first, j)
		text := src[c.StartByte:c.EndByte]
		for _, id := range identifiers(text) {
			if id != c.Symbol && !goKeyword[id] {
				c.References = append(c.References, id)
			}
		}
		c.TrackingHash = trackingHash(text)
		c.ContentHash = contentHash(text)[:32]
		rv = append(rv, c)
		i = j + 1
	}
	return rv, nil
}

var goKeyword = map[string]bool{"package": true, "func": true, "return": true, "type": true,
	"struct": true, "if": true, "for": true, "range": true, "var": true, "import": true}

// wordCounter counts whitespace-separated words: a deterministic Counter.
type wordCounter struct{}

func (wordCounter) Name() string          { return "words" }
func (wordCounter) Count(text string) int { return len(strings.Fields(text)) }

// writeTree writes files (path → content) under root.
func writeTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fixture is a small Go-like workspace.
func fixture() map[string]string {
	return map[string]string{
		"ranges/stitch.go": `package ranges

// Stitch joins ranges whose gap is small.
func Stitch(rs []Range, gap int) []Range {
	return merge(rs, gap)
}

type Range struct {
	Start, End int
}
`,
		"server/http.go": `package server

// parseHTTPRequest reads one request from the wire.
func parseHTTPRequest(conn Conn) (*Request, error) {
	return readwire(conn)
}

func handleConnection(conn Conn) {
	req, _ := parseHTTPRequest(conn)
	serveRequest(req)
}
`,
		"assemble/pack.go": `package assemble

// Pack admits parts in score order within the token budget.
func Pack(parts []Part, budget int) []Part {
	joined := ranges.Stitch(nil, 3)
	return admitWithinBudget(parts, joined, budget)
}
`,
		"vendor/a/util.go": `package util

func Clamp(x, lo, hi int) int {
	return max(lo, min(x, hi))
}
`,
		"vendor/b/util.go": `package util

func Clamp(x, lo, hi int) int {
	return max(lo, min(x, hi))
}
`,
		"README.md": "# Demo\n\nA workspace about stitching ranges.\n",
	}
}

// testOptions are options for a fixture index under t.TempDir().
func testOptions(t testing.TB) Options {
	return Options{
		CacheDir:        filepath.Join(t.TempDir(), "cache"),
		NewChunker:      func() (Chunker, error) { return blockChunker{}, nil },
		Counters:        map[string]tokens.Counter{"words": wordCounter{}},
		LockTimeout:     200 * time.Millisecond,
		CheckpointDelay: -1,
		Logf:            t.Logf,
	}
}

func openFixture(t testing.TB, opts Options) (*Index, string) {
	t.Helper()
	root := t.TempDir()
	writeTree(t, root, fixture())
	x, err := Open(context.Background(), root, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x, root
}

// search runs a query on the current snapshot.
func searchIDs(t testing.TB, x *Index, q Query, k int) []ChunkID {
	t.Helper()
	s, release := x.Snapshot()
	defer release()
	hits, err := s.Search(context.Background(), q, k)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]ChunkID, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}

func hitPaths(t testing.TB, x *Index, q Query) []string {
	t.Helper()
	var ps []string
	for _, id := range searchIDs(t, x, q, 20) {
		p, _, _ := id.Split()
		if !slices.Contains(ps, p) {
			ps = append(ps, p)
		}
	}
	return ps
}

// identifiers returns the distinct identifiers of text, sorted.
func identifiers(text []byte) []string {
	var rv []string
	for i := 0; i < len(text); {
		c := text[i]
		if c == '_' || ('a' <= c|0x20 && c|0x20 <= 'z') {
			j := i + 1
			for j < len(text) && (text[j] == '_' || ('a' <= text[j]|0x20 && text[j]|0x20 <= 'z') || ('0' <= text[j] && text[j] <= '9')) {
				j++
			}
			rv = append(rv, string(text[i:j]))
			i = j
			continue
		}
		i++
	}
	slices.Sort(rv)
	return slices.Compact(rv)
}

// trackingHash imitates the chunk package's tracking hash.
func trackingHash(text []byte) string {
	norm := strings.Join(strings.Fields(string(text)), " ")
	return contentHash([]byte(norm))[:32]
}
