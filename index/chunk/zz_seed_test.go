package chunk

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestZZSeed(t *testing.T) {
	if os.Getenv("SEED") == "" {
		t.Skip()
	}
	dir := "testdata/fuzz/FuzzChunk"
	os.MkdirAll(dir, 0o755)
	write := func(name, ext string, src []byte) {
		sel := -1
		for i, e := range fuzzExts {
			if e == ext {
				sel = i
			}
		}
		if sel < 0 {
			t.Fatalf("ext %s", ext)
		}
		body := fmt.Sprintf("go test fuzz v1\nbyte(%q)\n[]byte(%q)\n", byte(sel), src)
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	files, _ := filepath.Glob("testdata/*.txtar")
	for _, f := range files {
		data, _ := os.ReadFile(f)
		a := parseArchive(data)
		for _, af := range a.files {
			if strings.HasPrefix(af.name, "input.") {
				ext := filepath.Ext(af.name)
				write("golden-"+strings.TrimSuffix(filepath.Base(f), ".txtar"), ext, af.data)
			}
		}
	}
	write("unclosed-comment-go", ".go", []byte("package p\n/* never closed\nfunc F() {}\n"))
	write("unclosed-string-py", ".py", []byte("def f():\n    s = '''open\n    return s\n"))
	write("deep-nesting-js", ".js", []byte(strings.Repeat("(", 300)+"x"+strings.Repeat(")", 299)))
	write("invalid-utf8-rs", ".rs", []byte("/// \xff\xfe\nfn f\xc3() { let s = \"\xe2\x82\"; }\n"))
	write("crlf-cs", ".cs", []byte("using System;\r\n\r\n/// doc\r\nclass A {\r\n  void M() {\r\n  }\r\n}\r\n"))
	write("markdown-fences", ".md", []byte("---\na: b\n---\n# H\n```\n# no\n```\nT\n---\n~~~\n## no\n"))
	write("yaml-noeol", ".yaml", []byte("a: 1\nb: [2,\n  3]"))
	write("nul-bytes-c", ".c", []byte("int f(void) { return 0; }\x00\x00\nstruct S { int a; };\n"))
}
