package retrieve

import (
	"testing"

	"github.com/ctxls/ctxls/assemble"
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
		{"feat(router): scopes", "", false},
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
		if s := pathScore(tc.path, tc.mentions, words); s < tc.min {
			t.Errorf("pathScore(%s, %v) = %v, want ≥ %v", tc.path, tc.mentions, s, tc.min)
		}
	}
	if s := pathScore("sphinx/application.py", []string{"sphinx/theming"}, words); s != 0 {
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
