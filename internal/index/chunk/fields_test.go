package chunk

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/index/chunk/syntax"
)

// ChildByFieldName is tree-sitter's own look-up only for the fields the
// syntax package's C walker looks up (in other fields, error recovery can
// make it answer differently): every field the walker asks for, by name
// or as a scope's item field, must be one of them.
func TestFieldsAreLookedUp(t *testing.T) {
	p := syntax.NewParser()
	defer p.Close()
	lookups, err := p.LookupFields(syntax.Go)
	if err != nil {
		t.Fatal(err)
	}
	known := set(lookups...)
	asked := map[string]string{}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	call := regexp.MustCompile(`ChildByFieldName\("([a-z_]+)"\)`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range call.FindAllStringSubmatch(string(b), -1) {
			asked[m[1]] = f
		}
	}
	for _, l := range languages {
		for typ, field := range l.scopes {
			if field != "" {
				asked[field] = l.name + " scope " + typ
			}
		}
	}
	if len(asked) < 10 {
		t.Fatalf("found only %d fields asked for: %v", len(asked), asked)
	}
	for f, where := range asked {
		if !known[f] {
			t.Errorf("%s asks for field %q, which the syntax package does not look up (csrc/syntax.c, ctxls_lookup_fields)", where, f)
		}
	}
}
