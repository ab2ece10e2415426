package workspace

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// below are the packages under the workspace that a face must not import:
// what a face needs of them, the workspace and the engine give it.
var below = []string{
	"github.com/ctxls/ctxls/internal/index",
	"github.com/ctxls/ctxls/internal/pgstore",
	"github.com/ctxls/ctxls/internal/history",
	"github.com/ctxls/ctxls/internal/semantic",
}

// The faces — the language server, the MCP server and the CLI — see only
// the workspace and the engine: no non-test file of theirs imports
// package index, pgstore, history or semantic (nor a package under one).
func TestFacesImportOnlyTheWorkspace(t *testing.T) {
	for _, face := range []string{"lsp", "mcp", "cli"} {
		dir := filepath.Join("..", face)
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range ents {
			name := e.Name()
			if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			n++
			for _, im := range f.Imports {
				p, _ := strconv.Unquote(im.Path.Value)
				if slices.ContainsFunc(below, func(b string) bool { return p == b || strings.HasPrefix(p, b+"/") }) {
					t.Errorf("internal/%s/%s imports %s", face, name, p)
				}
			}
		}
		if n == 0 {
			t.Errorf("internal/%s: no Go file read", face)
		}
	}
}
