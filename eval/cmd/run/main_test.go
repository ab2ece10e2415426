package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/eval"
	"github.com/ctxls/ctxls/internal/retrieve"
)

func TestSetOptions(t *testing.T) {
	o := retrieve.DefaultOptions()
	if err := setOptions(&o, "rrfk=35, LexicalK=99, cochangefiles=7"); err != nil {
		t.Fatal(err)
	}
	if o.RRFK != 35 || o.LexicalK != 99 || o.CoChangeFiles != 7 {
		t.Errorf("options = %+v", o)
	}
	for _, bad := range []string{"nosuch=1", "rrfk", "lexicalk=x"} {
		if err := setOptions(&o, bad); err == nil {
			t.Errorf("setOptions(%q): no error", bad)
		}
	}
}

// The channels' own options (embedded in retrieve.Options) are listed and
// set by their names, as the engine's own are.
func TestOptionNames(t *testing.T) {
	names := strings.Split(optionNames(), ", ")
	for _, want := range []string{"rrfk", "lexicalk", "cochangefiles", "focusmapbelow", "queryMapScore"} {
		if !slices.Contains(names, strings.ToLower(want)) {
			t.Errorf("optionNames() lacks %s: %v", want, names)
		}
	}
	if slices.Contains(names, "lexicaloptions") {
		t.Errorf("optionNames() lists an embedded struct: %v", names)
	}
}

func TestParseWeights(t *testing.T) {
	w, err := parseWeights("lexical=1,symbol=2.5")
	if err != nil || w["lexical"] != 1 || w["symbol"] != 2.5 || len(w) != 2 {
		t.Errorf("parseWeights = %v, %v", w, err)
	}
	for _, bad := range []string{"nosuch=1", "lexical", "lexical=-1"} {
		if _, err := parseWeights(bad); err == nil {
			t.Errorf("parseWeights(%q): no error", bad)
		}
	}
}

func TestSelectCases(t *testing.T) {
	var cs []eval.Case
	for _, r := range []string{"a/x", "b/y"} {
		for _, task := range []string{eval.TaskQuery, eval.TaskDiff} {
			for i := range 3 {
				cs = append(cs, eval.Case{ID: r + "/" + task + "/" + string(rune('0'+i)), Repo: r, Task: task})
			}
		}
	}
	count := func(cs []eval.Case) int { return len(cs) }
	for _, tc := range []struct {
		repos []string
		task  string
		id    string
		limit int
		want  int
	}{
		{nil, "all", "", 0, 12},
		{[]string{"y"}, "all", "", 0, 6},
		{nil, eval.TaskDiff, "", 0, 6},
		{nil, "all", "", 2, 8},
		{[]string{"x"}, eval.TaskQuery, "", 1, 1},
		{nil, "all", "query/2", 0, 2},
	} {
		if got := count(selectCases(cs, tc.repos, tc.task, tc.id, tc.limit)); got != tc.want {
			t.Errorf("selectCases(%v, %s, %q, %d) = %d cases, want %d", tc.repos, tc.task, tc.id, tc.limit, got, tc.want)
		}
	}
}
