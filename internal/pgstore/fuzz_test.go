package pgstore

import (
	"reflect"
	"testing"

	"github.com/ctxls/ctxls/internal/index/chunk"
)

// FuzzStoredForms: any bytes read as a file's stored chunks or as a
// manifest fail or decode without a panic; chunks that decode encode back
// to the same bytes (the form has one spelling), and a manifest that
// decodes names only clean relative paths in order.
func FuzzStoredForms(f *testing.F) {
	f.Add(encodeChunks(StoredChunks{Chunks: []chunk.Chunk{{Language: "go", Kind: "function", StartLine: 1, EndLine: 3, Symbol: "F",
		Defines: []string{"F"}, References: []string{"G"}}}, Encodings: []string{"cl100k_base"}, Tokens: [][]int32{{7}}}))
	f.Add((&Manifest{Format: manifestFormat, Repo: "a", Files: []FileEntry{{Path: "a/b.go", Size: 3}}}).encode())
	f.Add([]byte{chunksFormat, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		if sc, err := decodeChunks(b, "p"); err == nil {
			again, err := decodeChunks(encodeChunks(sc), "p")
			if err != nil || !reflect.DeepEqual(again, sc) {
				t.Fatalf("chunks do not survive a round trip: %v", err)
			}
		}
		if m, err := decodeManifest(b); err == nil {
			for i, fe := range m.Files {
				if !localPath(fe.Path) || (i > 0 && m.Files[i-1].Path >= fe.Path) {
					t.Fatalf("a manifest with path %q decoded", fe.Path)
				}
			}
		}
	})
}
