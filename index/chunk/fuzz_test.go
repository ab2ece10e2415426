package chunk

import (
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
