package retrieve

import (
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
)

func TestSubjectComponent(t *testing.T) {
	for _, tc := range []struct {
		q, want string
		ok      bool
	}{
		{"pytester: pop TOX_ENV_DIR from os.environ", "pytester", true},
		{"net/http: close idle connections\n\nbody", "net/http", true},
		{"core.router: match trailing slashes", "core/router", true},
		{"setup.py: drop python 2", "setup.py", true},
		{"fix: handle re-save of geometric types", "", false}, // a kind of change
		{"Docs: typo", "", false},
		{"feat(router): scopes", "router", true}, // a Conventional Commits scope
		{"fix(core.router)!: breaking", "core/router", true},
		{"refactor(): empty", "", false},
		{"call(me): maybe", "", false}, // not a kind of change
		{"Why does this fail: the router", "", false},
		{"time:10", "", false},
		{"", "", false},
	} {
		got, ok := subjectComponent(tc.q)
		if got != tc.want || ok != tc.ok {
			t.Errorf("subjectComponent(%q) = %q, %v; want %q, %v", tc.q, got, ok, tc.want, tc.ok)
		}
	}
}

func TestPathMentions(t *testing.T) {
	if m, ok := moduleMention("sphinx.theming"); !ok || m != "sphinx/theming" {
		t.Errorf("moduleMention(sphinx.theming) = %q, %v", m, ok)
	}
	for _, id := range []string{"os.Environ", "z.record.Infer", "theming"} {
		if _, ok := moduleMention(id); ok {
			t.Errorf("moduleMention(%q) is a module", id)
		}
	}
	words := map[string]bool{}
	for _, tc := range []struct {
		path     string
		mentions []string
		min      float64
	}{
		{"sphinx/theming.py", []string{"sphinx/theming"}, 5},
		{"sphinx/theming/__init__.py", []string{"sphinx/theming"}, 5},
		{"tqdm/__init__.py", []string{"init.py"}, 5},
		{"src/_pytest/pytester.py", []string{"pytester"}, 5},
	} {
		if s := pathScore(tc.path, tc.mentions, words, true); s < tc.min {
			t.Errorf("pathScore(%s, %v) = %v, want ≥ %v", tc.path, tc.mentions, s, tc.min)
		}
	}
	if s := pathScore("sphinx/application.py", []string{"sphinx/theming"}, words, true); s != 0 {
		t.Errorf("pathScore of an unnamed file = %v", s)
	}
}

// TestNamedModuleFirst: a question that names a module outright
// (sphinx.theming) gets that module's file first, though another file
// matches more of its words; by rank alone the path channel could not
// lift it.
func TestNamedModuleFirst(t *testing.T) {
	files := map[string]string{
		"sphinx/theming.py": "class Theme:\n    def get_config(self, section, name):\n        return self.config.get(section, name)\n",
		"sphinx/application.py": "class Sphinx:\n    def add_html_theme(self, name, theme_path):\n        \"\"\"Register a HTML theme: docstrings of themes and theming.\"\"\"\n" +
			"        self.html_themes[name] = theme_path\n\n    def theme_docstrings(self):\n        return [t.__doc__ for t in self.html_themes]\n",
	}
	snap := indexFiles(t, files)
	req := Request{Query: "Add docstrings to sphinx.theming", Budget: assemble.Budget{MaxTokens: 2000}}
	first := func(opts Options) string { return firstPath(t, snap, opts, req) }
	if got := first(DefaultOptions()); got != "sphinx/theming.py" {
		t.Errorf("first part from %s, want the named module sphinx/theming.py", got)
	}
	off := DefaultOptions()
	off.PathStrength = 0
	if got := first(off); got != "sphinx/application.py" {
		t.Errorf("by rank alone the first part is from %s; the test no longer shows PathStrength's effect", got)
	}
}

// TestDefsOrderedByPath: a method that every driver defines
// (clearDatabase) is looked up in the driver whose file the question
// names — by a camel-case part of the file name (PostgresQueryRunner) —
// first: the symbol channel keeps a few of a common name's definitions,
// and in index order the named one was not among them.
func TestDefsOrderedByPath(t *testing.T) {
	files := map[string]string{}
	for _, db := range []string{"Aurora", "Cockroach", "Cordova", "Mongo", "Mysql", "Oracle", "Sap", "Spanner", "Sqlite", "SqlServer", "Mariadb", "Postgres"} {
		body := "export class " + db + "QueryRunner {\n  async clearDatabase(): Promise<void> {\n    await this.query(\"DELETE\")\n  }\n}\n"
		files["src/driver/"+strings.ToLower(db)+"/"+db+"QueryRunner.ts"] = body
	}
	snap := indexFiles(t, files)
	req := Request{Query: "perf(postgres): batch statements in clearDatabase", Budget: assemble.Budget{MaxTokens: 2000}}
	if got := firstPath(t, snap, DefaultOptions(), req); got != "src/driver/postgres/PostgresQueryRunner.ts" {
		t.Errorf("first part from %s, want the postgres driver's", got)
	}
	// Ordered by path, the named driver's definition is the channel's first.
	defs, _ := snap.DefsAtMost("clearDatabase", 30)
	aq := Analyze(req.Query)
	if got, _, _ := byPathMatch(defs, aq.Paths, pathMatchWords(aq))[0].Split(); got != "src/driver/postgres/PostgresQueryRunner.ts" {
		t.Errorf("byPathMatch puts %s first", got)
	}
	if first, _, _ := defs[0].Split(); first == "src/driver/postgres/PostgresQueryRunner.ts" {
		t.Error("the index lists the postgres driver's definition first; the test no longer shows the order's effect")
	}
}

// TestPathScoreCamelParts: a word of the question that is a camel-case
// part of a file name (Postgres of PostgresQueryRunner) scores the file.
func TestPathScoreCamelParts(t *testing.T) {
	words := map[string]bool{"postgres": true}
	if s := pathScore("src/driver/PostgresQueryRunner.ts", nil, words, true); s != 1 {
		t.Errorf("pathScore = %v, want 1 (one part)", s)
	}
	if s := pathScore("src/driver/MysqlQueryRunner.ts", nil, words, true); s != 0 {
		t.Errorf("pathScore of another driver = %v", s)
	}
	if s := pathScore("src/driver/PostgresQueryRunner.ts", nil, words, false); s != 0 {
		t.Errorf("pathScore without camel-case parts (a diff's) = %v, want 0", s)
	}
}
