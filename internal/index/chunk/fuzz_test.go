package chunk

import (
	"reflect"
	"testing"
)

// fuzzExts are the file kinds FuzzChunk picks from with its first argument.
var fuzzExts = []string{".go", ".py", ".rs", ".js", ".ts", ".tsx", ".java", ".c", ".cpp", ".cs", ".rb", ".php", ".md", ".yaml", ".txt"}

// fuzzOpts are small limits so that splitting and windows are exercised.
var fuzzOpts = Options{MaxLines: 30, WindowLines: 12, WindowOverlap: 3}

// FuzzChunk feeds arbitrary bytes, as one of several languages, to Chunk
// and checks that it does not panic and that every result is well formed:
// within the file, StartLine ≤ SigEndLine ≤ EndLine, at most MaxLines
// lines, sorted, no tree left open. The checked-in seed corpus is in
// testdata/fuzz/FuzzChunk.
func FuzzChunk(f *testing.F) {
	f.Add(uint8(0), []byte("package p\n\nfunc F() {}\n"))
	f.Add(uint8(1), []byte("class A:\n    def f(self):\n        '''d'''\n"))
	f.Add(uint8(12), []byte("# T\n```\n# x\n```\nS\n===\n"))
	f.Fuzz(func(t *testing.T, sel uint8, src []byte) {
		path := "f" + fuzzExts[int(sel)%len(fuzzExts)]
		ck := NewChunker(fuzzOpts)
		defer ck.Close()
		cs, err := ck.Chunk(path, src)
		if err != nil {
			t.Fatalf("Chunk(%s): %v", path, err)
		}
		if ck.liveTrees != 0 {
			t.Fatalf("%d trees left open", ck.liveTrees)
		}
		checkInvariants(t, src, cs)
		for _, c := range cs {
			if n := c.EndLine - c.StartLine + 1; n > fuzzOpts.MaxLines {
				t.Fatalf("%s %s L%d-%d: %d lines > MaxLines", c.Kind, c.Symbol, c.StartLine, c.EndLine, n)
			}
		}
	})
}

// FuzzChunkAgain chunks a content, then an edited one of the same path
// with ChunkAgain (incremental when the first had no syntax error), and
// checks that the second result equals a fresh Chunk of it.
func FuzzChunkAgain(f *testing.F) {
	f.Add(uint8(0), []byte("package p\n\nfunc F() {}\n"), uint16(12), uint16(0), []byte("\nfunc G() int { return 1 }\n"))
	f.Add(uint8(1), []byte("class A:\n    def f(self):\n        pass\n"), uint16(20), uint16(4), []byte("g"))
	f.Add(uint8(3), []byte("function f() { return 1 }\n"), uint16(24), uint16(1), []byte("2"))
	f.Fuzz(func(t *testing.T, sel uint8, src []byte, at, cut uint16, ins []byte) {
		path := "f" + fuzzExts[int(sel)%len(fuzzExts)]
		i := min(int(at), len(src))
		j := min(i+int(cut), len(src))
		edited := append(append(append([]byte{}, src[:i]...), ins...), src[j:]...)
		ck := NewChunker(fuzzOpts)
		defer ck.Close()
		ck.KeepTrees(1)
		if _, _, err := ck.ChunkAgain(path, src); err != nil {
			t.Fatalf("ChunkAgain(%s): %v", path, err)
		}
		got, reused, err := ck.ChunkAgain(path, edited)
		if err != nil {
			t.Fatalf("ChunkAgain(%s) edited: %v", path, err)
		}
		fresh := NewChunker(fuzzOpts)
		defer fresh.Close()
		want, err := fresh.Chunk(path, edited)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("incremental (reused %v) and fresh chunks differ:\n got: %s\nwant: %s", reused, snapshot(got), snapshot(want))
		}
		if ck.liveTrees != 0 || len(ck.kept) > 1 {
			t.Fatalf("%d trees open, %d kept", ck.liveTrees, len(ck.kept))
		}
	})
}
