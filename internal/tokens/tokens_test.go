package tokens

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"

	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/ctxls/ctxls/internal/gotree"
)

func TestRegistry(t *testing.T) {
	r := NewRegistry()
	if got, want := r.Known(), []string{"approx", "cl100k_base", "o200k_base"}; !slices.Equal(got, want) {
		t.Errorf("Known() = %q, want %q", got, want)
	}
	for _, name := range []string{"foo", "", "CL100K_BASE", "p50k_base"} {
		_, err := r.Get(name)
		want := fmt.Sprintf("unknown encoding %q (known: approx, cl100k_base, o200k_base)", name)
		if err == nil || err.Error() != want {
			t.Errorf("Get(%q) error = %v, want %s", name, err, want)
		}
	}
	for _, name := range r.Known() {
		// Concurrent first calls must build once and share the counter.
		var wg sync.WaitGroup
		got := make([]Counter, 8)
		for i := range got {
			wg.Go(func() {
				c, err := r.Get(name)
				if err != nil {
					t.Error(err)
				}
				got[i] = c
			})
		}
		wg.Wait()
		for _, c := range got {
			if c != got[0] {
				t.Fatalf("Get(%q) returned different counters", name)
			}
		}
		if c := got[0]; c.Name() != name {
			t.Errorf("Get(%q).Name() = %q", name, c.Name())
		}
	}
	if _, err := r.NewTiktoken("approx"); err == nil {
		t.Error("NewTiktoken(approx) succeeded")
	}
	if _, err := NewBPE("r50k_base"); err == nil {
		t.Error("NewBPE(r50k_base) succeeded")
	}
}

func TestApprox(t *testing.T) {
	for text, want := range map[string]int{"": 0, "a": 1, "abcd": 1, "abcde": 2, "日本": 2, strings.Repeat("x", 4001): 1001} {
		if got := (Approx{}).Count(text); got != want {
			t.Errorf("approx %q = %d, want %d", text, got, want)
		}
	}
}

// TestKnownCounts pins a few counts independently of tiktoken-go.
func TestKnownCounts(t *testing.T) {
	r := NewRegistry()
	for _, tc := range []struct {
		enc, text string
		want      int
	}{
		{"cl100k_base", "hello world, func main() {}", 7},
		{"o200k_base", "hello world, func main() {}", 7},
		{"cl100k_base", "", 0},
		{"o200k_base", "<|endoftext|>", 7},
		{"cl100k_base", "<|endoftext|>", 7},
	} {
		c, err := r.Get(tc.enc)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Count(tc.text); got != tc.want {
			t.Errorf("%s %q = %d, want %d", tc.enc, tc.text, got, tc.want)
		}
	}
}

func TestClassTableMatchesUnicode(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if got, want := runeClass(r), classSlow(r); got != want {
			t.Fatalf("class(%U) = %06b, want %06b", r, got, want)
		}
		// The pre-tokenizers compare the apostrophe of a contraction
		// byte-wise, regexp2 compares unicode.ToLower of the input.
		if r != '\'' && unicode.ToLower(r) == '\'' {
			t.Fatalf("%U lowers to an apostrophe", r)
		}
	}
}

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"":                 "",
		"abc":              "abc",
		"a\xffb":           "a\uFFFDb",
		"\xe2\x82":         "\uFFFD\uFFFD",
		"\xed\xa0\x80":     "\uFFFD\uFFFD\uFFFD",
		"\xc0\xafx\u00e9":  "\uFFFD\uFFFDx\u00e9",
		"\uFFFD\x80":       "\uFFFD\uFFFD",
		"\xf4\x90\x80\x80": "\uFFFD\uFFFD\uFFFD\uFFFD",
	} {
		got := sanitize(in)
		if got != want {
			t.Errorf("sanitize(%q) = %q, want %q", in, got, want)
		}
		if want2 := string([]rune(in)); got != want2 {
			t.Errorf("sanitize(%q) = %q, string([]rune) = %q", in, got, want2)
		}
	}
}

// edgeCases are texts whose pieces and counts must match tiktoken-go's.
var edgeCases = []string{
	"", " ", "  ", "\t", "\n", "\r", "\r\n", "\r\n\r\n", "\n\n\n", "\n \n", " \n ", "   \n  \n   x",
	"a  \n", "x \t \n \t y", "x   ", "   x", "  x  ", "\t\tfoo", "\n\t\treturn nil\n\t}\n",
	"\v\f x", "\u00a0\u00a0x", "\u3000日本", "x\u2028y", "\u0085\n", "\u2029 \u2029", " \u00a0+",
	"Hello мир 世界 مرحبا नमस्ते שלום Γειά", "e\u0301\u0301", "ÉCOLE\u0301s", "\u0301", "\u0301AB x",
	"x\u0301AB", "a\u02b0B'S", "ABc", "ABǅc", "ǅǅ", "Aʰb", "Aऄ", "HTTPServer's", "ABC'S", "abc'LL",
	"😀👍🏽👨‍👩‍👧 🇫🇷", "x😀y", " 😀", "1234567890123", "1 22 333 4444", "١٢٣٤٥", "Ⅻ½³", "x1y22z",
	"'S 'LL 'Re 'VE 'm 'D 'T", "don't", "I'LL WE'VE", "'s's's", "''s", "x'sy", "'", "'l", "'lx",
	"İstanbul ſ'S K'S", "'\u0130", "it's\n'tis",
	"\xff", "a\xffb", "\xe2\x82", "\xe2\x82x", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc0\xaf", "\x80\x80\x80",
	" \xff\xfe", "\xffabc", "abc\xff", "\uFFFD",
	"<|endoftext|>", "<|fim_prefix|>x<|endofprompt|>", "a<|endoftext|>b",
	"\x00", "\x00\x00abc\x00", "a\x00 b",
	"a/\n//b", "+\n//x", "//\n//\n", "x /// y", "  //\r\n/",
	"func(a, b int) (string, error) {\n\treturn \"\", nil\n}\n", ".  ...\n\n", "__init__", "$$$$$", "a.b.c",
	strings.Repeat("a", 10000), strings.Repeat(" ", 10000), strings.Repeat("=", 10000),
	strings.Repeat("ab", 5000), strings.Repeat("\n", 3000), strings.Repeat("日", 3000), strings.Repeat("9", 1000),
	strings.Repeat("Ab", 70), strings.Repeat("xyz ", 100), strings.Repeat("\xff", 100),
}

func TestEdgeCases(t *testing.T) {
	for _, name := range tiktokenEncodings {
		e := encoding(t, name)
		c := e.exact(name)
		for _, text := range edgeCases {
			short := text
			if len(short) > 40 {
				short = short[:40] + "..."
			}
			if got, want := e.pieces(text), e.regexPieces(t, text); !slices.Equal(got, want) {
				t.Errorf("%s %q: pieces %q, regexp2 %q", name, short, got, want)
			}
			want := e.oracle.Count(text)
			for pass := range 2 { // cold, then warm cache
				if got := c.Count(text); got != want {
					t.Errorf("%s %q (pass %d): count %d, tiktoken-go %d", name, short, pass, got, want)
				}
			}
		}
	}
}

// TestMergeHeapMatchesQuadratic checks the two merge algorithms agree.
func TestMergeHeapMatchesQuadratic(t *testing.T) {
	words := []string{"a", "b", "ab", " ", "the", "ing", "\n", "0", "==", "日", "\xff", "e\u0301", "_"}
	for _, name := range tiktokenEncodings {
		e := encoding(t, name)
		rnd := newRand(1)
		for range 3000 {
			var b strings.Builder
			for b.Len() < 2+rnd.IntN(smallPiece-2) {
				b.WriteString(words[rnd.IntN(len(words))])
			}
			p := b.String()
			if len(p) > smallPiece {
				p = p[:smallPiece]
			}
			if got, want := e.ranks.mergeCountHeap(p), e.ranks.mergeCount(p); got != want {
				t.Fatalf("%s %q: heap %d, quadratic %d", name, p, got, want)
			}
		}
	}
}

// TestConcurrentCount counts the same texts from several goroutines sharing
// one counter (run with -race).
func TestConcurrentCount(t *testing.T) {
	corpus := benchCorpus(t)[:200_000]
	lines := strings.SplitAfter(corpus, "\n")
	for _, name := range tiktokenEncodings {
		e := encoding(t, name)
		want := make([]int, len(lines))
		serial := e.exact(name)
		for i, l := range lines {
			want[i] = serial.Count(l)
		}
		shared := e.exact(name)
		var wg sync.WaitGroup
		for g := range 2 * runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for k := range lines {
					i := (k*7 + g*131) % len(lines)
					if got := shared.Count(lines[i]); got != want[i] {
						t.Errorf("%s line %d: %d, serial %d", name, i, got, want[i])
						return
					}
				}
			})
		}
		wg.Wait()
	}
}

// TestMatchesTiktokenCorpus compares whole files of GOROOT with tiktoken-go.
// See corpusFlag for the full corpus.
func TestMatchesTiktokenCorpus(t *testing.T) {
	mode := *corpusFlag
	if mode == "" {
		mode = getenvDefault("CTXLS_TOKENS_CORPUS", "sample")
	}
	root := gotree.Root(t)
	files := corpusFiles(t, root, ".go", ".md", ".c", ".py", ".js")
	switch mode {
	case "full":
	case "sample":
		files = sampleFiles(t, root, files, 2_000_000)
	default:
		t.Fatalf("-tokens.corpus=%q: want sample or full", mode)
	}
	type job struct {
		name, path string
		text       string
	}
	jobs := make(chan job)
	var (
		mu            sync.Mutex
		bytes, failed int64
		tokens        = map[string]int64{}
	)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for j := range jobs {
				e := encoding(t, j.name)
				want := e.oracle.Count(j.text)
				got := e.exact(j.name).Count(j.text)
				mu.Lock()
				bytes += int64(len(j.text))
				tokens[j.name] += int64(want)
				if got != want {
					failed++
					if failed <= 20 {
						t.Errorf("%s %s: count %d, tiktoken-go %d", j.name, j.path, got, want)
					}
				}
				mu.Unlock()
			}
		})
	}
	for _, f := range files {
		data, err := readFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range tiktokenEncodings {
			jobs <- job{name, f, data}
		}
	}
	close(jobs)
	wg.Wait()
	t.Logf("%s corpus: %d files, %d bytes compared (both encodings), tokens %v, %d mismatches",
		mode, len(files), bytes, tokens, failed)
	if len(files) == 0 {
		t.Fatal("no corpus files")
	}
}

// TestRandomTextsMatchTiktoken compares pieces and counts on random texts
// made of the fragments that exercise the pre-tokenizers' corner cases.
func TestRandomTextsMatchTiktoken(t *testing.T) {
	for _, name := range tiktokenEncodings {
		e := encoding(t, name)
		c := e.exact(name)
		rnd := newRand(11)
		for range 2000 {
			text := randomText(rnd, 30)
			if got, want := e.pieces(text), e.regexPieces(t, text); !slices.Equal(got, want) {
				t.Fatalf("%s %q: pieces %q, regexp2 %q", name, text, got, want)
			}
			if got, want := c.Count(text), e.oracle.Count(text); got != want {
				t.Fatalf("%s %q: count %d, tiktoken-go %d", name, text, got, want)
			}
		}
	}
}

// TestRankTableMatchesLoader checks every token's rank against
// tiktoken-go-loader's own parse of the same file.
func TestRankTableMatchesLoader(t *testing.T) {
	for name, size := range map[string]int{"cl100k_base": 100256, "o200k_base": 199998} {
		ranks, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(name + ".tiktoken")
		if err != nil {
			t.Fatal(err)
		}
		table := encoding(t, name).ranks
		if table.size() != size || len(ranks) != size {
			t.Errorf("%s: %d tokens, loader %d, want %d", name, table.size(), len(ranks), size)
		}
		for tok, want := range ranks {
			if got := table.rank(tok); got != uint32(want) {
				t.Fatalf("%s: rank(%q) = %d, want %d", name, tok, got, want)
			}
		}
		for _, p := range []string{"", "\x00\x00\x00\x00\x00\x00\x00\x00\x00", "not a token at all, surely"} {
			if got := table.rank(p); got != noRank {
				t.Errorf("%s: rank(%q) = %d, want none", name, p, got)
			}
		}
	}
}
