package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallAdvice: what the README, the docs, the editor plugins (their
// pages, messages and settings) and the npm package tell a user to run to
// get ctxls works today. ctxls is not on the module proxy, so `go install
// …/cmd/ctxls@latest` is refused; no 0.1.0 .vsix is built any more (make
// dist writes one per platform); VS Code does run in the tests
// (code-server); and until the npm package is published, a page that
// starts it with npx also says how to install its tarballs globally. Nor
// does anything say a C compiler is needed, or that macOS or Windows is
// not built.
func TestInstallAdvice(t *testing.T) {
	repo := filepath.Join("..", "..")
	stale := []struct{ text, why string }{
		{"github.com/ctxls/ctxls/cmd/ctxls@latest", "the module proxy refuses it: a release archive, or go install ./cmd/ctxls in a checkout"},
		{"ctxls-0.1.0.vsix", "make dist writes a .vsix per platform"},
		{"VS Code itself cannot run", "make test-vscode-e2e runs it"},
		{"VS Code cannot run", "make test-vscode-e2e runs it"},
		{"ctxls uses cgo", "CGO_ENABLED=0 builds it with Go alone (tree-sitter as WebAssembly)"},
		{"Go and gcc: cgo", "CGO_ENABLED=0 builds it with Go alone (tree-sitter as WebAssembly)"},
		{"macOS is not built", "make dist builds darwin-arm64 and darwin-x64"},
		{"Windows does not build", "make dist builds windows-amd64, make test-windows runs it"},
	}
	var files []string
	for _, top := range []string{"README.md", "docs", "editors", "packaging", "scripts"} {
		err := filepath.WalkDir(filepath.Join(repo, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "node_modules" || d.Name() == "out" {
					return filepath.SkipDir
				}
				return nil
			}
			switch filepath.Ext(p) {
			case ".md", ".ts", ".js", ".lua", ".el", ".json", ".sh":
				if d.Name() != "package-lock.json" {
					files = append(files, p)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) < 10 {
		t.Fatalf("only %d files read: %v", len(files), files)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		rel, _ := filepath.Rel(repo, p)
		for _, s := range stale {
			if strings.Contains(text, s.text) {
				t.Errorf("%s says %q: %s", rel, s.text, s.why)
			}
		}
		if filepath.Ext(p) == ".md" && strings.Contains(text, "npx -y @ctxls/cli mcp") && !strings.Contains(text, "npm install -g") {
			t.Errorf("%s starts the npm package with npx but does not say how to install its tarballs (npm install -g) until it is published", rel)
		}
	}
}
