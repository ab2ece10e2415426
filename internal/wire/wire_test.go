package wire

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
	"github.com/ctxls/ctxls/internal/ranges"
)

func TestParts(t *testing.T) {
	parts := []assemble.Part{
		{ID: "p1", Path: "a/b.go", Ranges: []ranges.Range{{Start: 3, End: 9}, {Start: 20, End: 24}}},
		{ID: "p2", Path: "c.go", Ranges: []ranges.Range{{Start: 1, End: 1}}},
	}
	got := Parts(parts, func(p string) string { return "file:///w/" + p })
	if r := got[0].Range; r.Start.Line != 2 || r.End.Line != 24 || r.Start.Character != 0 || r.End.Character != 0 {
		t.Errorf("p1 range = %+v, want lines 2 to 24 (0-based, end at the start of the line after)", r)
	}
	if r := got[1].Range; r.Start.Line != 0 || r.End.Line != 1 {
		t.Errorf("p2 range = %+v", r)
	}
	if got[0].URI != "file:///w/a/b.go" {
		t.Errorf("uri = %q", got[0].URI)
	}
	b, err := json.Marshal(got[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"id":"p1"`, `"path":"a/b.go"`, `"uri":"file:///w/a/b.go"`, `"range":{"start":{"line":2,"character":0},"end":{"line":24,"character":0}}`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON %s lacks %s", b, want)
		}
	}
	if b, _ := json.Marshal(Parts(parts, nil)[0]); strings.Contains(string(b), `"uri"`) {
		t.Errorf("no uri function, yet a uri: %s", b)
	}
	if got := Parts(nil, nil); got == nil || len(got) != 0 {
		t.Errorf("Parts(nil) = %#v, want an empty slice", got)
	}
}
