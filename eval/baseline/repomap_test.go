package baseline

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestRepoMapPersonalised: the chat file's references decide the ranking,
// and its own definitions are left out.
func TestRepoMapPersonalised(t *testing.T) {
	m := BuildRepoMap([]MapFile{
		{Path: "a.go", Defs: []Def{{"Alpha", 3}}, Refs: map[string]int{"Beta": 2}},
		{Path: "b.go", Defs: []Def{{"Beta", 5}}, Refs: map[string]int{"Gamma": 1}},
		{Path: "c.go", Defs: []Def{{"Gamma", 7}}, Refs: map[string]int{"Delta": 1}},
		{Path: "d.go", Defs: []Def{{"Delta", 9}}, Refs: map[string]int{"Alpha": 1}},
	})
	cs := m.Candidates("a.go", nil, 0)
	if len(cs) != 3 || cs[0].Path != "b.go" || cs[0].Ranges[0].Start != 5 {
		t.Fatalf("chat a.go: %+v, want b.go:5 first and a.go left out", cs)
	}
	cs = m.Candidates("c.go", []string{"Beta"}, 0)
	if len(cs) == 0 || cs[0].Path != "d.go" {
		t.Fatalf("chat c.go: %+v, want d.go first", cs)
	}
}

// TestRepoMapQuery: with no chat file, PageRank starts from the files the
// message names and from those whose path components it mentions, and
// references to the mentioned identifiers weigh more.
func TestRepoMapQuery(t *testing.T) {
	files := []MapFile{
		{Path: "app/main.go", Defs: []Def{{"main", 1}}, Refs: map[string]int{"Serve": 1, "Parse": 1}},
		{Path: "server/server.go", Defs: []Def{{"Serve", 4}}, Refs: map[string]int{"Listen": 1}},
		{Path: "net/listen.go", Defs: []Def{{"Listen", 2}}},
		{Path: "config/parse.go", Defs: []Def{{"Parse", 6}}, Refs: map[string]int{"Decode": 1}},
		{Path: "config/decode.go", Defs: []Def{{"Decode", 3}}},
	}
	m := BuildRepoMap(files)
	top := func(q MapQuery) string {
		cs := m.Rank(q)
		if len(cs) == 0 {
			return ""
		}
		return cs[0].Path
	}
	// "server" is a directory and a file name: PageRank starts there, so
	// Listen (which server.go refers to) comes first.
	if got := top(MapQuery{Mentioned: Words("Fix the server when it stops"), PathMatch: true}); got != "net/listen.go" {
		t.Errorf("path match: top %q, want net/listen.go", got)
	}
	// Without path matching the same words start nowhere in particular.
	if got := top(MapQuery{Mentioned: Words("Fix the server when it stops")}); got == "net/listen.go" {
		t.Errorf("no path match: top %q", got)
	}
	// A named file starts PageRank too.
	q := "the bug is in parse.go"
	if fm := FileMentions(q, m.Paths()); len(fm) != 1 || fm[0] != "config/parse.go" {
		t.Fatalf("FileMentions = %v", fm)
	}
	if got := top(MapQuery{MentionedFiles: FileMentions(q, m.Paths())}); got != "config/decode.go" {
		t.Errorf("mentioned file: top %q, want config/decode.go", got)
	}
	// A mentioned identifier weighs its references ×10: from main.go,
	// Parse beats Serve.
	cs := m.Rank(MapQuery{Chat: []string{"app/main.go"}, Mentioned: []string{"Parse"}})
	if len(cs) == 0 || cs[0].Path != "config/parse.go" || cs[0].Ranges[0].Start != 6 {
		t.Errorf("mentioned Parse: %+v", cs)
	}
	for _, c := range cs {
		if c.Path == "app/main.go" {
			t.Errorf("the chat file's own definitions are shown: %+v", c)
		}
	}
	// Candidates (the cursor task's entry) is Rank with one chat file.
	a, b := m.Candidates("app/main.go", []string{"Serve"}, 2), m.Rank(MapQuery{Chat: []string{"app/main.go"}, Mentioned: []string{"Serve"}, Limit: 2})
	if !reflect.DeepEqual(a, b) || len(a) != 2 {
		t.Errorf("Candidates %v != Rank %v", a, b)
	}
}

func TestMentions(t *testing.T) {
	if got := Words("Fix parse_url() in net/url.go: NewURL, x2"); strings.Join(got, " ") != "Fix NewURL go in net parse_url url x2" {
		t.Errorf("Words = %q", got)
	}
	paths := []string{"a/util.go", "b/util.go", "net/url.go", "README", "cmd/main_test.go"}
	got := FileMentions("See net/url.go, `main_test.go` and util.go and README.", paths)
	// README matches as a path; util.go is two files' name.
	if want := []string{"README", "cmd/main_test.go", "net/url.go"}; !slices.Equal(got, want) {
		t.Errorf("FileMentions = %q, want %q", got, want)
	}
}
