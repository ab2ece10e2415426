package baseline

import "testing"

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
