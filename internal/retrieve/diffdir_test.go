package retrieve

import (
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/history"
	"github.com/ctxls/ctxls/internal/index"
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

// otherFiles are the files of the context for req, in rendered order,
// but the diff's own file.
func otherFiles(t *testing.T, snap *index.Snapshot, opts Options, req Request, own string) []string {
	t.Helper()
	res, _ := assembleOpts(t, snap, opts, req)
	var files []string
	for _, p := range res.Parts {
		if p.Path != own && (len(files) == 0 || files[len(files)-1] != p.Path) {
			files = append(files, p.Path)
		}
	}
	return files
}

// TestDiffDirPrior: without history the diff's sibling (fs/write.go)
// comes before the other file like it; with the prior off, or with a
// history that names the diff's co-changed files, the other file
// (codec/frame.go) comes first.
func TestDiffDirPrior(t *testing.T) {
	snap := indexFiles(t, diffDirFiles())
	req := Request{Diff: diffDirDiff, Budget: assemble.Budget{MaxTokens: 4000}}
	order := func(opts Options, req Request) string {
		return strings.Join(otherFiles(t, snap, opts, req, "fs/copy.go"), " ")
	}
	if got := order(DefaultOptions(), req); !strings.HasPrefix(got, "fs/write.go") {
		t.Errorf("without history, files after the diff's own: %s; want fs/write.go first", got)
	}
	off := DefaultOptions()
	off.DiffDirPrior = 0
	off.FileRankDiff = 0 // the file model weighs the diff's directory too
	if got := order(off, req); !strings.HasPrefix(got, "codec/frame.go") {
		t.Errorf("with the prior and the file model off: %s; the test no longer shows the prior's effect", got)
	}
	// The file model alone puts the sibling first as well.
	off.FileRankDiff = 1
	if got := order(off, req); !strings.HasPrefix(got, "fs/write.go") {
		t.Errorf("with the prior off, the file model on: %s; want fs/write.go (in the diff's directory) first", got)
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

func TestIsModuleIndex(t *testing.T) {
	for p, want := range map[string]bool{
		"pkg/__init__.py": true, "src/kv/mod.rs": true, "src/lib.rs": true, "src/main.rs": true, "lib/index.js": true,
		"src/index.ts": true, "src/lib.py": false, "main.go": false, "index.md": false, "src/kv/value.rs": false, "mod.go": false,
	} {
		if got := isModuleIndex(p); got != want {
			t.Errorf("isModuleIndex(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestDiffDirIndexPrior: of two siblings alike, the directory's module
// index (kv/mod.rs, which declares the diff's module) comes first without
// history; with DiffDirIndexPrior 0 the other (first by path) does.
func TestDiffDirIndexPrior(t *testing.T) {
	fn := func(name string) string {
		return "/// Converts a value for the key-value log.\npub fn " + name + "(v: &Value) -> Option<String> {\n    v.to_string_lossy()\n}\n"
	}
	snap := indexFiles(t, map[string]string{
		"Cargo.toml":      "[package]\nname = \"log\"\n",
		"src/kv/value.rs": fn("to_value"),
		"src/kv/key.rs":   fn("to_key"),
		"src/kv/mod.rs":   "mod key;\nmod value;\n\n" + fn("to_pair"),
	})
	diff := "diff --git a/src/kv/value.rs b/src/kv/value.rs\n--- a/src/kv/value.rs\n+++ b/src/kv/value.rs\n@@ -2,3 +2,3 @@\n pub fn to_value(v: &Value) -> Option<String> {\n-    v.to_string_lossy()\n+    v.to_string_lossy().map(String::from)\n }\n"
	req := Request{Diff: diff, Budget: assemble.Budget{MaxTokens: 4000}}
	first := func(opts Options) string {
		files := otherFiles(t, snap, opts, req, "src/kv/value.rs")
		if len(files) == 0 {
			t.Fatal("no other file shown")
		}
		return files[0]
	}
	if got := first(DefaultOptions()); got != "src/kv/mod.rs" {
		t.Errorf("first other file %s, want the module index src/kv/mod.rs", got)
	}
	// The file model's features: the module index of the diff's
	// directory, not a file named as the diff's.
	explained := req
	explained.Explain = true
	res, _ := assembleOpts(t, snap, DefaultOptions(), explained)
	for _, e := range res.Explain {
		if f := e.FileFeatures; f != nil {
			want := 0.0
			if e.Path == "src/kv/mod.rs" {
				want = 1
			}
			if f["diffIndex"] != want || f["diffStem"] != 0 {
				t.Errorf("%s: diffIndex %v, diffStem %v; want %v, 0", e.Path, f["diffIndex"], f["diffStem"], want)
			}
		}
	}
	off := DefaultOptions()
	off.DiffDirIndexPrior = 0
	off.FileRankDiff = 0 // the file model knows the module index too
	if got := first(off); got != "src/kv/key.rs" {
		t.Errorf("without the index prior and the file model the first other file is %s; the test no longer shows their effect", got)
	}
	off.FileRankDiff = 1
	if got := first(off); got != "src/kv/mod.rs" {
		t.Errorf("with the file model alone the first other file is %s, want the module index src/kv/mod.rs", got)
	}
}
