package workspace

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
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

// storeAliases are the store's values the workspace passes through to
// the faces under its own names (type aliases): a token's grant, a
// repository's listing, a checkout, a union, a publish's options and
// figures, and the flags naming a store. Store's methods take and return
// them, so that *pgstore.Store satisfies Store as it is, without an
// adapter copying each across the seam; a new one is added here on
// purpose, never by accident.
var storeAliases = map[string]bool{
	"Grant": true, "TokenChecker": true, "RepoInfo": true,
	"Checkout": true, "Union": true, "LocalChunks": true,
	"PublishOptions": true, "PublishStats": true, "GCStats": true,
	"StoreFlags": true, "StoreFlagsError": true, "StoreURLError": true,
}

// The faces reach the index store through the interface Store, which
// the workspace owns: no exported declaration of the workspace (a
// function's or a method's signature, a type, a field, an interface's
// method) names a type of package pgstore, save as the right-hand side
// of one of the aliases above; and Store is an interface, not the
// pgstore's store renamed.
func TestStoreSeamNamesNoPgstoreType(t *testing.T) {
	fset := token.NewFileSet()
	ents, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	names := func(n ast.Node) []string {
		var out []string
		ast.Inspect(n, func(n ast.Node) bool {
			if se, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := se.X.(*ast.Ident); ok && id.Name == "pgstore" {
					out = append(out, "pgstore."+se.Sel.Name)
				}
			}
			return true
		})
		return out
	}
	storeIsInterface := false
	declared := map[string]bool{}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv != nil && !exportedRecv(d.Recv) {
					continue
				}
				for _, n := range names(d.Type) {
					t.Errorf("%s: %s names %s", fset.Position(d.Pos()), d.Name.Name, n)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					ts, ok := s.(*ast.TypeSpec)
					if !ok || !ts.Name.IsExported() {
						continue
					}
					if ts.Name.Name == "Store" {
						_, storeIsInterface = ts.Type.(*ast.InterfaceType)
						storeIsInterface = storeIsInterface && !ts.Assign.IsValid()
					}
					if ts.Assign.IsValid() && storeAliases[ts.Name.Name] {
						declared[ts.Name.Name] = true
						continue
					}
					for _, n := range names(exportedPart(ts.Type)) {
						t.Errorf("%s: type %s names %s", fset.Position(ts.Pos()), ts.Name.Name, n)
					}
				}
			}
		}
	}
	if !storeIsInterface {
		t.Error("workspace.Store is not an interface declared by the workspace")
	}
	for _, name := range slices.Sorted(maps.Keys(storeAliases)) {
		if !declared[name] {
			t.Errorf("storeAliases lists %s, which the workspace does not declare as an alias", name)
		}
	}
}

// exportedRecv reports whether a method's receiver is an exported type.
func exportedRecv(recv *ast.FieldList) bool {
	if len(recv.List) == 0 {
		return false
	}
	typ := recv.List[0].Type
	if st, ok := typ.(*ast.StarExpr); ok {
		typ = st.X
	}
	if ix, ok := typ.(*ast.IndexExpr); ok {
		typ = ix.X
	}
	id, ok := typ.(*ast.Ident)
	return ok && id.IsExported()
}

// exportedPart is typ, a struct's unexported fields left out.
func exportedPart(typ ast.Expr) ast.Node {
	st, ok := typ.(*ast.StructType)
	if !ok {
		return typ
	}
	out := &ast.FieldList{}
	for _, f := range st.Fields.List {
		if len(f.Names) == 0 || slices.ContainsFunc(f.Names, (*ast.Ident).IsExported) {
			out.List = append(out.List, f)
		}
	}
	return out
}
