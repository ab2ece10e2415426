package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/retrieve"
	"github.com/ctxls/ctxls/internal/wire"
)

const schemaFile = "../../docs/result.schema.json"

// resultSchema compiles docs/result.schema.json (checked against the
// draft 2020-12 meta-schema on the way).
func resultSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	sch, err := jsonschema.NewCompiler().Compile(schemaFile)
	if err != nil {
		t.Fatalf("compile %s: %v", schemaFile, err)
	}
	return sch
}

// TestResultSchemaVersion: the schema's $id, title and schemaVersion
// const name the version the CLI writes.
func TestResultSchemaVersion(t *testing.T) {
	b, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Schema     string `json:"$schema"`
		ID         string `json:"$id"`
		Title      string `json:"title"`
		Properties struct {
			SchemaVersion struct {
				Const int `json:"const"`
			} `json:"schemaVersion"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	v := strconv.Itoa(ResultSchemaVersion)
	if s.Schema != "https://json-schema.org/draft/2020-12/schema" || !strings.HasSuffix(s.ID, "/"+v) ||
		!strings.HasSuffix(s.Title, "version "+v) || s.Properties.SchemaVersion.Const != ResultSchemaVersion {
		t.Errorf("schema %s: $schema %q, $id %q, title %q, schemaVersion const %d; want draft 2020-12 and version %s everywhere",
			schemaFile, s.Schema, s.ID, s.Title, s.Properties.SchemaVersion.Const, v)
	}
}

// TestResultsMatchSchema validates real `ctxls assemble --json` results
// against docs/result.schema.json: every strategy, every rendering inside
// the JSON, --explain, omissions and reduced levels, a query, a focus and
// a diff.
func TestResultsMatchSchema(t *testing.T) {
	sch := resultSchema(t)
	ws := workspace(t)
	cache := t.TempDir()
	const query = "how is the tax computed at checkout"
	diff := "--- a/tax/rates.go\n+++ b/tax/rates.go\n@@ -19,4 +19,4 @@ func RateFor(region string) int64 {\n func Compute(region string, cents int64) int64 {\n \tbp := RateFor(region)\n-\treturn (cents*bp + 5000) / 10000\n+\treturn (cents*bp + 9999) / 10000\n }\n"
	cases := []struct {
		name  string
		stdin string
		args  []string
	}{
		{"grouped markdown explain", "", []string{"--query", query, "--strategy", "grouped", "--explain"}},
		{"interleaved xml explain", "", []string{"--query", query, "--strategy", "interleaved", "--format", "xml", "--explain"}},
		{"score json explain", "", []string{"--query", query, "--strategy", "score", "--format", "json", "--explain"}},
		{"omissions and reduced levels", "", []string{"--query", query, "--budget", "300", "--per-part", "60", "--explain"}},
		{"omissions and reduced levels, no vectors", "", []string{"--query", query, "--budget", "300", "--per-part", "60", "--explain", "--embeddings", "off"}},
		{"tiny budget", "", []string{"--query", query, "--budget", "8", "--explain", "--encoding", "o200k_base"}},
		{"focus approx", "", []string{"--focus", "cart/cart.go:54", "--encoding", "approx", "--strategy", "interleaved"}},
		{"diff", diff, []string{"--diff-file", "-", "--query", "rounding", "--format", "xml", "--explain"}},
		{"diff review", diff, []string{"--diff-file", "-", "--mode", "review", "--explain"}},
	}
	var sawExplain, sawOmitted, sawReduced, sawNote bool
	formats := map[string]bool{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"assemble", "--root", ws, "--cache-dir", cache, "--json"}, c.args...)
			out, stderr, code := ctxls(t, c.stdin, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			inst, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(inst); err != nil {
				t.Fatalf("the result does not match %s: %v\n%s", schemaFile, err, out)
			}
			var r retrieve.Response
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			sawExplain = sawExplain || len(r.Explain) > 0
			sawOmitted = sawOmitted || len(r.Omitted) > 0
			sawNote = sawNote || r.Stats.Note != ""
			for _, p := range r.Parts {
				sawReduced = sawReduced || p.Level != assemble.LevelFull
			}
			switch {
			case strings.HasPrefix(r.Rendered, "{\"parts\":"):
				formats["json"] = true
			case strings.HasPrefix(r.Rendered, "<"):
				formats["xml"] = true
			case r.Rendered != "":
				formats["markdown"] = true
			}
		})
	}
	// The cases cover what they claim to.
	if !sawExplain || !sawOmitted || !sawReduced || !sawNote || len(formats) != 3 {
		t.Errorf("coverage: explain %v, omitted %v, reduced level %v, note %v, renderings %v", sawExplain, sawOmitted, sawReduced, sawNote, formats)
	}
}

// TestResultSchemaRejects: the schema is strict enough to reject a result
// with a wrong type, a missing required field, an unknown field or a
// value outside its domain.
func TestResultSchemaRejects(t *testing.T) {
	sch := resultSchema(t)
	ws := workspace(t)
	out, stderr, code := ctxls(t, "", "assemble", "--root", ws, "--cache-dir", t.TempDir(), "--json", "--explain",
		"--query", "how is the tax computed at checkout", "--budget", "300")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	valid := func() map[string]any {
		var m map[string]any
		d := json.NewDecoder(strings.NewReader(out))
		d.UseNumber()
		if err := d.Decode(&m); err != nil {
			t.Fatal(err)
		}
		if len(m["parts"].([]any)) == 0 || len(m["omitted"].([]any)) == 0 || len(m["explain"].([]any)) == 0 {
			t.Fatalf("the base result needs parts, omissions and explanations:\n%s", out)
		}
		return m
	}
	part := func(m map[string]any) map[string]any { return m["parts"].([]any)[0].(map[string]any) }
	stats := func(m map[string]any) map[string]any { return m["stats"].(map[string]any) }
	cases := []struct {
		name   string
		mutate func(m map[string]any)
	}{
		{"tokens as a string", func(m map[string]any) { stats(m)["totalTokens"] = "120" }},
		{"tokens not an integer", func(m map[string]any) { part(m)["tokens"] = json.Number("1.5") }},
		{"missing totalTokens", func(m map[string]any) { delete(stats(m), "totalTokens") }},
		{"missing part path", func(m map[string]any) { delete(part(m), "path") }},
		{"missing schemaVersion", func(m map[string]any) { delete(m, "schemaVersion") }},
		{"other schemaVersion", func(m map[string]any) { m["schemaVersion"] = json.Number("2") }},
		{"parts null", func(m map[string]any) { m["parts"] = nil }},
		{"unknown top-level field", func(m map[string]any) { m["extra"] = true }},
		{"unknown part field", func(m map[string]any) { part(m)["lines"] = "1-5" }},
		{"unknown level", func(m map[string]any) { part(m)["level"] = "half" }},
		{"line 0", func(m map[string]any) { part(m)["ranges"].([]any)[0].(map[string]any)["start"] = json.Number("0") }},
		{"absolute path", func(m map[string]any) { part(m)["path"] = "/etc/passwd" }},
		{"path leaving the root", func(m map[string]any) { part(m)["path"] = "cart/../../x.go" }},
		{"unknown channel", func(m map[string]any) { part(m)["sources"] = []any{"magic"} }},
		{"unknown encoding", func(m map[string]any) { stats(m)["encoding"] = "p50k_base" }},
		{"unknown omission reason", func(m map[string]any) {
			m["omitted"].([]any)[0].(map[string]any)["reason"] = "felt like it"
		}},
		{"explanation both in and out", func(m map[string]any) {
			e := m["explain"].([]any)[0].(map[string]any)
			e["part"], e["reason"] = "p1", "over budget"
		}},
		{"bad handle", func(m map[string]any) { part(m)["handles"] = []any{"cart/cart.go:12"} }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := valid()
			c.mutate(m)
			var buf bytes.Buffer
			if err := json.NewEncoder(&buf).Encode(m); err != nil {
				t.Fatal(err)
			}
			inst, err := jsonschema.UnmarshalJSON(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(inst); err == nil {
				t.Errorf("the schema accepts a result with %s", c.name)
			}
		})
	}
	// The unmutated result passes (the cases above fail for their
	// mutation, not for something else).
	var buf bytes.Buffer
	json.NewEncoder(&buf).Encode(valid())
	inst, _ := jsonschema.UnmarshalJSON(&buf)
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("the unmutated result does not validate: %v", err)
	}
}

// TestSchemaDocumented: the fields the schema names for a part are the
// JSON fields of wire.Part, the engine's part as the faces send it (a
// renamed Go field would otherwise only show when a result happens to
// carry it).
func TestSchemaDocumented(t *testing.T) {
	b, err := os.ReadFile(filepath.FromSlash(schemaFile))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Defs map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	for def, v := range map[string]any{
		"part": wire.Part{}, "omitted": assemble.Omitted{}, "stats": assemble.Stats{}, "explanation": retrieve.Explanation{},
	} {
		for _, f := range jsonFields(t, v) {
			if _, ok := s.Defs[def].Properties[f]; !ok {
				t.Errorf("%s.%s (a JSON field of %T) is not in the schema", def, f, v)
			}
		}
		if got, want := len(s.Defs[def].Properties), len(jsonFields(t, v)); got != want {
			t.Errorf("%s: %d properties in the schema, %T has %d JSON fields", def, got, v, want)
		}
	}
}

// jsonFields lists the JSON field names of a struct's type, from its
// tags (every field of these types has one; an embedded struct's fields
// are its own).
func jsonFields(t *testing.T, v any) []string {
	t.Helper()
	typ := reflect.TypeOf(v)
	var out []string
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if f := typ.Field(i); f.Anonymous && name == "" {
			out = append(out, jsonFields(t, reflect.New(f.Type).Elem().Interface())...)
			continue
		}
		if name == "" {
			t.Fatalf("%s.%s has no json tag", typ, typ.Field(i).Name)
		}
		if name != "-" {
			out = append(out, name)
		}
	}
	return out
}
