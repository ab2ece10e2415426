package chunk

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/gotree"
)

// againInputs returns the code inputs of the golden files, plus a few
// large real files from Go's own tree (where incremental parsing pays).
func againInputs(t *testing.T) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	in := map[string][]byte{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range parseArchive(data).files {
			if strings.HasPrefix(f.name, "input.") && specFor(LanguageOf(f.name)) != nil {
				in[strings.TrimSuffix(filepath.Base(file), ".txtar")+"/"+f.name] = f.data
			}
		}
	}
	for _, rel := range []string{"net/http/server.go", "go/parser/parser.go"} {
		if b, err := os.ReadFile(filepath.Join(gotree.Src(t), rel)); err == nil {
			in["goroot/"+rel] = b
		}
	}
	return in
}

// edit applies one random edit of the kinds typing and refactoring make:
// a comment line, an identifier letter, a copied line, a deleted line, a
// deleted run of bytes (often a syntax error) or a pasted slice.
func edit(r *rand.Rand, src []byte, lang string) []byte {
	lineStarts := []int{0}
	for i, b := range src {
		if b == '\n' && i+1 < len(src) {
			lineStarts = append(lineStarts, i+1)
		}
	}
	line := func() (int, int) {
		k := r.IntN(len(lineStarts))
		end := len(src)
		if k+1 < len(lineStarts) {
			end = lineStarts[k+1]
		}
		return lineStarts[k], end
	}
	splice := func(s, e int, ins []byte) []byte {
		out := append([]byte{}, src[:s]...)
		out = append(out, ins...)
		return append(out, src[e:]...)
	}
	switch r.IntN(6) {
	case 0:
		comment := "//"
		if lang == "python" || lang == "ruby" {
			comment = "#"
		}
		s, _ := line()
		return splice(s, s, fmt.Appendf(nil, "%s note %d\n", comment, r.IntN(1000)))
	case 1:
		for range 20 {
			i := r.IntN(len(src))
			if c := src[i]; c >= 'a' && c <= 'y' {
				return splice(i, i+1, []byte{c + 1})
			}
		}
		return src
	case 2:
		s, e := line()
		s2, _ := line()
		return splice(s2, s2, bytes.Clone(src[s:e]))
	case 3:
		s, e := line()
		return splice(s, e, nil)
	case 4:
		i := r.IntN(len(src))
		return splice(i, min(len(src), i+1+r.IntN(8)), nil)
	default:
		i, j := r.IntN(len(src)), r.IntN(len(src))
		return splice(i, i, bytes.Clone(src[j:min(len(src), j+r.IntN(40))]))
	}
}

// TestChunkAgainMatchesFresh: after every edit of a random sequence,
// ChunkAgain (incremental when it can) gives exactly the chunks of a fresh
// Chunk, in every language, and it does reuse trees.
func TestChunkAgainMatchesFresh(t *testing.T) {
	steps := 40
	if testing.Short() {
		steps = 10
	}
	inputs := againInputs(t)
	names := make([]string, 0, len(inputs))
	for name := range inputs {
		names = append(names, name)
	}
	sort.Strings(names)
	totalReused, total := 0, 0
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			again := NewChunker(Options{})
			again.KeepTrees(2)
			defer again.Close()
			path := "src/" + filepath.Base(name)
			lang := LanguageOf(path)
			r := rand.New(rand.NewPCG(uint64(len(inputs[name])), 7))
			// Each edit starts from the last content without a syntax
			// error (the tree ChunkAgain kept), as typing returns to valid
			// code; the edits that break it are checked all the same.
			good := inputs[name]
			reusedHere := 0
			for step := range steps {
				src := good
				if step > 0 {
					src = edit(r, good, lang)
				}
				got, reused, err := again.ChunkAgain(path, src)
				if err != nil {
					t.Fatal(err)
				}
				fresh := NewChunker(Options{})
				want, err := fresh.Chunk(path, src)
				fresh.Close()
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("step %d (reused %v): incremental chunks differ from fresh ones\n got: %s\nwant: %s\ntext:\n%s",
						step, reused, snapshot(got), snapshot(want), src)
				}
				if reused {
					reusedHere++
				}
				if len(again.kept) > 0 && again.kept[len(again.kept)-1].path == path {
					good = src
				}
				if again.liveTrees != 0 {
					t.Fatalf("step %d: %d trees left open", step, again.liveTrees)
				}
			}
			if reusedHere == 0 {
				t.Errorf("no tree reused in %d edits", steps)
			}
			totalReused += reusedHere
			total += steps
		})
	}
	t.Logf("%d of %d chunkings reused a tree", totalReused, total)
}

// TestChunkAgainTreeLifecycle: trees are kept per path up to the limit,
// error trees are not kept, Chunk forgets a path's tree, a language change
// does not reuse one.
func TestChunkAgainTreeLifecycle(t *testing.T) {
	c := NewChunker(Options{})
	defer c.Close()
	c.KeepTrees(2)
	good := []byte("package p\n\nfunc A() int { return 1 }\n\nfunc B() {}\n")
	for _, p := range []string{"a.go", "b.go", "c.go"} {
		if _, reused, err := c.ChunkAgain(p, good); err != nil || reused {
			t.Fatalf("%s first chunking: reused %v err %v", p, reused, err)
		}
	}
	if len(c.kept) != 2 || c.kept[0].path != "b.go" || c.kept[1].path != "c.go" {
		t.Fatalf("kept %v, want the two most recent", keptPaths(c))
	}
	edited := bytes.Replace(good, []byte("return 1"), []byte("return 2"), 1)
	if _, reused, _ := c.ChunkAgain("c.go", edited); !reused {
		t.Error("second chunking of c.go did not reuse its tree")
	}
	if _, reused, _ := c.ChunkAgain("a.go", edited); reused {
		t.Error("a.go reused a tree that was evicted")
	}
	// An edit with a syntax error: parsed afresh, and its tree not kept.
	broken := bytes.Replace(good, []byte("return 1 }"), []byte("return 1 "), 1)
	if _, reused, _ := c.ChunkAgain("c.go", broken); reused {
		t.Error("a result with an error counted as reused")
	}
	if _, reused, _ := c.ChunkAgain("c.go", good); reused {
		t.Error("reused the tree of a content with an error")
	}
	// Chunk forgets the path's tree: the content may have changed since.
	if _, err := c.Chunk("c.go", good); err != nil {
		t.Fatal(err)
	}
	if _, reused, _ := c.ChunkAgain("c.go", edited); reused {
		t.Error("reused a tree after Chunk of the same path")
	}
	// The same path in another language: a fresh parse.
	c.KeepTrees(4)
	if _, _, err := c.ChunkAgain("x.js", []byte("function f() { return 1 }\n")); err != nil {
		t.Fatal(err)
	}
	if got, reused, _ := c.ChunkAgain("x.js", []byte("package p\n\nfunc F() {}\n")); reused || len(got) == 0 {
		t.Errorf("changed content at the same path: reused %v, %d chunks", reused, len(got))
	}
	c.KeepTrees(0)
	if len(c.kept) != 0 {
		t.Errorf("KeepTrees(0) left %d trees", len(c.kept))
	}
	if _, reused, _ := c.ChunkAgain("a.go", good); reused || len(c.kept) != 0 {
		t.Errorf("with no trees kept: reused %v, kept %d", reused, len(c.kept))
	}
}

func keptPaths(c *Chunker) []string {
	var out []string
	for _, k := range c.kept {
		out = append(out, k.path)
	}
	return out
}

func TestCommonEnds(t *testing.T) {
	for _, tc := range []struct {
		a, b           string
		prefix, suffix int
	}{
		{"", "", 0, 0},
		{"abc", "abc", 3, 0},
		{"abc", "abXc", 2, 1},
		{"aaa", "aaaa", 3, 0},
		{"xab", "ab", 0, 2},
		{"abcd", "ad", 1, 1},
	} {
		p, s := commonEnds([]byte(tc.a), []byte(tc.b))
		if p != tc.prefix || s != tc.suffix {
			t.Errorf("commonEnds(%q, %q) = %d, %d; want %d, %d", tc.a, tc.b, p, s, tc.prefix, tc.suffix)
		}
	}
	if got := pointAt([]byte("ab\ncd\nef"), 7); got.Row != 2 || got.Column != 1 {
		t.Errorf("pointAt = %+v, want row 2 column 1", got)
	}
}
