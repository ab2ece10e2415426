package retrieve

import (
	"strings"
	"testing"

	"github.com/ctxls/ctxls/assemble"
	"github.com/ctxls/ctxls/history"
)

// diffDirFiles: a diff changes fs/copy.go's buffer; fs/write.go (a
// sibling) and codec/frame.go (elsewhere, a little more like the diff's
// words, and first by path) both hold the same kind of loop.
func diffDirFiles() map[string]string {
	loop := func(pkg, fn, extra string) string {
		return "package " + pkg + "\n\n// " + fn + " moves data through a buffer of chunkSize bytes.\nfunc " + fn + "(dst io.Writer, src io.Reader) error {\n\tbuf := make([]byte, chunkSize)\n\tfor {\n\t\tn, err := src.Read(buf)\n\t\tif n > 0 {\n\t\t\tif _, werr := dst.Write(buf[:n]); werr != nil {\n\t\t\t\treturn werr\n\t\t\t}\n\t\t}\n\t\tif err != nil {\n\t\t\treturn err\n\t\t}\n\t}\n}\n" + extra
	}
	return map[string]string{
		"go.mod":         "module example.com/m\n",
		"fs/copy.go":     loop("fs", "Copy", ""),
		"fs/write.go":    loop("fs", "WriteAll", ""),
		"codec/frame.go": loop("codec", "Frame", "\n// frameBuf is a buffer of chunkSize bytes for a frame.\nvar frameBuf = make([]byte, chunkSize)\n"),
	}
}

const diffDirDiff = `diff --git a/fs/copy.go b/fs/copy.go
--- a/fs/copy.go
+++ b/fs/copy.go
@@ -4,3 +4,3 @@
 func Copy(dst io.Writer, src io.Reader) error {
-	buf := make([]byte, chunkSize)
+	buf := make([]byte, 2*chunkSize)
 	for {
`

// TestDiffDirPrior: without history the diff's sibling (fs/write.go)
// comes before the other file like it; with the prior off, or with a
// history that names the diff's co-changed files, the other file
// (codec/frame.go) comes first.
func TestDiffDirPrior(t *testing.T) {
	snap := indexFiles(t, diffDirFiles())
	req := Request{Diff: diffDirDiff, Budget: assemble.Budget{MaxTokens: 4000}}
	order := func(opts Options, req Request) string {
		res, _ := assembleOpts(t, snap, opts, req)
		var files []string
		for _, p := range res.Parts {
			if p.Path != "fs/copy.go" && (len(files) == 0 || files[len(files)-1] != p.Path) {
				files = append(files, p.Path)
			}
		}
		return strings.Join(files, " ")
	}
	if got := order(DefaultOptions(), req); !strings.HasPrefix(got, "fs/write.go") {
		t.Errorf("without history, files after the diff's own: %s; want fs/write.go first", got)
	}
	off := DefaultOptions()
	off.DiffDirPrior = 0
	if got := order(off, req); !strings.HasPrefix(got, "codec/frame.go") {
		t.Errorf("with the prior off: %s; the test no longer shows the prior's effect", got)
	}
	// A history that knows nothing of fs/copy.go leaves the prior on.
	req.History = history.New("head", [][]string{{"go.mod"}}, history.Options{})
	if got := order(DefaultOptions(), req); !strings.HasPrefix(got, "fs/write.go") {
		t.Errorf("with a history silent on the diff's file: %s; want fs/write.go first", got)
	}
	// One that names codec/frame.go as changed with it: the history decides.
	req.History = history.New("head", [][]string{{"fs/copy.go", "codec/frame.go"}, {"fs/copy.go", "codec/frame.go"}}, history.Options{})
	if got := order(DefaultOptions(), req); !strings.HasPrefix(got, "codec/frame.go") {
		t.Errorf("with a history of co-changes: %s; want codec/frame.go (changed with the diff's file) first", got)
	}
}
