package tokens

import (
	"flag"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/dlclark/regexp2"

	"github.com/ctxls/ctxls/internal/gotree"
)

// corpusFlag selects the GOROOT files TestMatchesTiktokenCorpus compares:
// "sample" (the default, about 2.5 MB) or "full" (every .go, .md, .c, .py
// and .js file, about 100 MB; minutes). $CTXLS_TOKENS_CORPUS is the
// fallback when the flag is not given.
var corpusFlag = flag.String("tokens.corpus", "", `"sample" or "full": GOROOT files compared with tiktoken-go (default $CTXLS_TOKENS_CORPUS or "sample")`)

// tiktokenEncodings are the encodings with an exact counter.
var tiktokenEncodings = []string{"cl100k_base", "o200k_base"}

// testEncoding is what the tests need of one encoding; building it costs
// a few hundred milliseconds, so every test shares one per test binary.
type testEncoding struct {
	oracle Counter    // tiktoken-go
	ranks  *rankTable // for fresh bpeCounters
	o200k  bool
	split  *regexp2.Regexp // tiktoken-go's pre-tokenizer pattern
}

// Patterns as in tiktoken-go v0.1.8 encoding.go, to compare pieces (counts
// are compared with tiktoken-go itself).
var testPatterns = map[string]string{
	"cl100k_base": `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
	"o200k_base": strings.Join([]string{
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
		`\p{N}{1,3}`,
		` ?[^\s\p{L}\p{N}]+[\r\n/]*`,
		`\s*[\r\n]+`,
		`\s+(?!\S)`,
		`\s+`,
	}, "|"),
}

var sharedEncodings = sync.OnceValues(func() (map[string]*testEncoding, error) {
	reg := NewRegistry()
	m := map[string]*testEncoding{}
	for _, name := range tiktokenEncodings {
		o, err := reg.NewTiktoken(name)
		if err != nil {
			return nil, err
		}
		ranks, err := loadRankTable(name)
		if err != nil {
			return nil, err
		}
		re, err := regexp2.Compile(testPatterns[name], regexp2.None)
		if err != nil {
			return nil, err
		}
		m[name] = &testEncoding{oracle: o, ranks: ranks, o200k: name == "o200k_base", split: re}
	}
	return m, nil
})

func encoding(tb testing.TB, name string) *testEncoding {
	tb.Helper()
	m, err := sharedEncodings()
	if err != nil {
		tb.Fatal(err)
	}
	return m[name]
}

// exact returns a new exact counter (with an empty cache) for name.
func (e *testEncoding) exact(name string) *bpeCounter {
	return newBPECounter(name, e.o200k, e.ranks)
}

// pieces splits text with the hand-written pre-tokenizer.
func (e *testEncoding) pieces(text string) []string {
	text = sanitize(text)
	var out []string
	for i := 0; i < len(text); {
		var j int
		if e.o200k {
			j = pieceEndO200K(text, i)
		} else {
			j = pieceEndCL100K(text, i)
		}
		out = append(out, text[i:j])
		i = j
	}
	return out
}

// regexPieces splits text with regexp2 and tiktoken's pattern, the way
// tiktoken-go does.
func (e *testEncoding) regexPieces(tb testing.TB, text string) []string {
	runes := []rune(text)
	var out []string
	m, err := e.split.FindRunesMatch(runes)
	for ; m != nil && err == nil; m, err = e.split.FindNextMatch(m) {
		out = append(out, string(runes[m.Index:m.Index+m.Length]))
	}
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// corpusFiles returns the sorted paths of the files under root whose name
// ends with one of exts.
func corpusFiles(tb testing.TB, root string, exts ...string) []string {
	tb.Helper()
	return gotree.Files(tb, root, func(path string) bool { return slices.Contains(exts, filepath.Ext(path)) })
}

// sampleFiles picks a deterministic ~1/25 of files (by a hash of the path
// relative to root), at most maxBytes in total.
func sampleFiles(tb testing.TB, root string, files []string, maxBytes int64) []string {
	tb.Helper()
	var out []string
	var total int64
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		h := fnv.New32a()
		h.Write([]byte(filepath.ToSlash(rel)))
		if h.Sum32()%25 != 0 {
			continue
		}
		st, err := os.Stat(f)
		if err != nil {
			tb.Fatal(err)
		}
		if total+st.Size() > maxBytes {
			continue
		}
		total += st.Size()
		out = append(out, f)
	}
	return out
}

// benchCorpus returns the first 1 MiB (cut at a line end) of the
// concatenation of the sorted .go files under GOROOT/src/go and
// GOROOT/src/net/http, a fixed mix of code, comments and tests.
func benchCorpus(tb testing.TB) string {
	tb.Helper()
	root := gotree.Root(tb)
	var b strings.Builder
	const size = 1 << 20
	for _, dir := range []string{"src/go", "src/net/http"} {
		for _, f := range corpusFiles(tb, filepath.Join(root, dir), ".go") {
			data, err := os.ReadFile(f)
			if err != nil {
				tb.Fatal(err)
			}
			b.Write(data)
			if b.Len() >= size {
				s := b.String()[:size]
				return s[:strings.LastIndexByte(s, '\n')+1]
			}
		}
	}
	tb.Fatalf("GOROOT/src has less than %d bytes of Go", size)
	return ""
}

// newRand returns a deterministic random source.
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

func getenvDefault(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func readFile(path string) (string, error) {
	data, err := os.ReadFile(path)
	return string(data), err
}
