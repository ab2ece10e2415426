package pgstore

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/ctxls/ctxls/internal/index/chunk"
)

// FuzzStoredForms: any bytes read as a file's stored chunks, as a
// manifest or as an image manifest fail or decode without a panic; chunks
// that decode encode back to the same bytes (the form has one spelling)
// and hold no negative token count; a manifest that decodes names only
// clean relative paths in order, of sizes of 0 bytes or more, one size
// per text, with hashes that parse, and side files each of a size its
// blocks can hold; so does an image manifest's files.
func FuzzStoredForms(f *testing.F) {
	f.Add(encodeChunks(StoredChunks{Chunks: []chunk.Chunk{{Language: "go", Kind: "function", StartLine: 1, EndLine: 3, Symbol: "F",
		Defines: []string{"F"}, References: []string{"G"}}}, Encodings: []string{"cl100k_base"}, Tokens: [][]int32{{7}}}))
	h := hashOf([]byte("a")).String()
	f.Add((&Manifest{Format: manifestFormat, Repo: "a", Files: []FileEntry{{Path: "a/b.go", Size: 3, Text: h, Chunks: h}},
		Sides: []SideEntry{{Name: "history.v2", Size: 3, Blocks: []string{h}}}}).encode())
	im, _ := json.Marshal(imageManifest{Format: manifestFormat, Manifest: h, Files: []SideEntry{{Name: "COMPLETE", Size: 2, Blocks: []string{h}}}})
	f.Add(im)
	f.Add([]byte{chunksFormat, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		if sc, err := decodeChunks(b, "p"); err == nil {
			again, err := decodeChunks(encodeChunks(sc), "p")
			if err != nil || !reflect.DeepEqual(again, sc) {
				t.Fatalf("chunks do not survive a round trip: %v", err)
			}
			for _, counts := range sc.Tokens {
				for _, n := range counts {
					if n < 0 {
						t.Fatalf("a token count of %d decoded", n)
					}
				}
			}
		}
		if m, err := decodeManifest(b); err == nil {
			sizes := map[string]int64{}
			for i, fe := range m.Files {
				if !localPath(fe.Path) || (i > 0 && m.Files[i-1].Path >= fe.Path) {
					t.Fatalf("a manifest with path %q decoded", fe.Path)
				}
				_, errT := parseHash(fe.Text)
				_, errC := parseHash(fe.Chunks)
				if n, ok := sizes[fe.Text]; fe.Size < 0 || errT != nil || errC != nil || (ok && n != fe.Size) {
					t.Fatalf("a manifest with file %+v decoded", fe)
				}
				sizes[fe.Text] = fe.Size
			}
			for _, sd := range m.Sides {
				if checkBlocked(sd) != nil {
					t.Fatalf("a manifest with side file %+v decoded", sd)
				}
			}
			if _, size, ok := packLayout(m, math.MaxInt64); ok && size < 0 {
				t.Fatalf("a pack of %d bytes laid out", size)
			}
		}
		if im, err := decodeImageManifest(b); err == nil {
			if _, err := parseHash(im.Manifest); err != nil {
				t.Fatalf("an image manifest naming %q decoded", im.Manifest)
			}
			for _, e := range im.Files {
				if checkBlocked(e) != nil {
					t.Fatalf("an image manifest with file %+v decoded", e)
				}
			}
		}
	})
}
