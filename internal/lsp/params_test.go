package lsp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// Every bad parameter of context/assemble is InvalidParams naming the
// field, in the message and in data.field.
func TestAssembleBadParams(t *testing.T) {
	e := newEnv(t, serverOptions(t, nil), nil, nil)
	focus := func(pos any) map[string]any {
		return map[string]any{"uri": e.uri("ranges/stitch.go"), "position": pos}
	}
	for _, tc := range []struct {
		name   string
		params any
		field  string
	}{
		{"null params", json.RawMessage("null"), "query"},
		{"no params", noParams, "query"},
		{"empty object", map[string]any{}, "query"},
		{"blank query", map[string]any{"query": "  "}, "query"},
		{"params not an object", []any{1}, "params"},
		{"query not a string", map[string]any{"query": 5}, "query"},
		{"budget zero", map[string]any{"query": "q", "budget": map[string]any{"maxTokens": 0}}, "budget.maxTokens"},
		{"budget negative", map[string]any{"query": "q", "budget": map[string]any{"maxTokens": -5}}, "budget.maxTokens"},
		{"budget huge", map[string]any{"query": "q", "budget": map[string]any{"maxTokens": 1 << 40}}, "budget.maxTokens"},
		{"budget fractional", map[string]any{"query": "q", "budget": map[string]any{"maxTokens": 1.5}}, "budget.maxTokens"},
		{"budget string", map[string]any{"query": "q", "budget": map[string]any{"maxTokens": "lots"}}, "budget.maxTokens"},
		{"budget not an object", map[string]any{"query": "q", "budget": 8000}, "budget"},
		{"per-file negative", map[string]any{"query": "q", "budget": map[string]any{"maxTokens": 100, "perFileMaxTokens": -1}}, "budget.perFileMaxTokens"},
		{"per-part negative", map[string]any{"query": "q", "budget": map[string]any{"maxTokens": 100, "perPartMaxTokens": -1}}, "budget.perPartMaxTokens"},
		{"unknown format", map[string]any{"query": "q", "format": "pdf"}, "format"},
		{"unknown encoding", map[string]any{"query": "q", "encoding": "p50k_base"}, "encoding"},
		{"unknown strategy", map[string]any{"query": "q", "strategy": "random"}, "strategy"},
		{"unknown mode", map[string]any{"query": "q", "mode": "audit"}, "mode"},
		{"review without a diff", map[string]any{"query": "q", "mode": "review"}, "mode"},
		{"bad include glob", map[string]any{"query": "q", "include": []any{"[a-"}}, "include"},
		{"bad exclude glob", map[string]any{"query": "q", "exclude": []any{"{a"}}, "exclude"},
		{"include not a list", map[string]any{"query": "q", "include": "*.go"}, "include"},
		{"focus not an object", map[string]any{"focus": "stitch.go:3"}, "focus"},
		{"focus without uri", map[string]any{"focus": map[string]any{"position": map[string]any{"line": 1, "character": 0}}}, "focus.uri"},
		{"focus without position", map[string]any{"focus": map[string]any{"uri": e.uri("ranges/stitch.go")}}, "focus.position"},
		{"focus negative line", map[string]any{"focus": focus(map[string]any{"line": -1, "character": 0})}, "focus.position.line"},
		{"focus negative character", map[string]any{"focus": focus(map[string]any{"line": 1, "character": -3})}, "focus.position.character"},
		{"focus line not a number", map[string]any{"focus": focus(map[string]any{"line": "one", "character": 0})}, "focus.position.line"},
		{"focus line past the end", map[string]any{"focus": focus(map[string]any{"line": 99, "character": 0})}, "focus.position.line"},
		{"focus not a file URI", map[string]any{"focus": map[string]any{"uri": "untitled:Untitled-1", "position": map[string]any{"line": 0, "character": 0}}}, "focus.uri"},
		{"focus outside the workspace", map[string]any{"focus": map[string]any{"uri": "file:///etc/hosts", "position": map[string]any{"line": 0, "character": 0}}}, "focus.uri"},
		{"focus on a file not indexed", map[string]any{"focus": map[string]any{"uri": e.uri("missing.go"), "position": map[string]any{"line": 0, "character": 0}}}, "focus.uri"},
		{"malformed diff", map[string]any{"diff": "@@ this is not a diff"}, "diff"},
		{"diff not a string", map[string]any{"diff": []any{"a"}}, "diff"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := e.call(methodContextAssemble, tc.params)
			err := mustError(t, m, CodeInvalidParams)
			if err.field() != tc.field || !strings.HasPrefix(err.Message, tc.field+":") {
				t.Errorf("field %q, message %q; want field %q", err.field(), err.Message, tc.field)
			}
		})
	}
	m := e.call(methodContextAssemble, map[string]any{"focus": map[string]any{"uri": "file:///etc/hosts", "position": map[string]any{"line": 0, "character": 0}}})
	if msg := m.Error.Message; !strings.Contains(msg, "outside every workspace folder") || !strings.Contains(msg, e.root) {
		t.Errorf("outside-the-workspace message: %q", msg)
	}
}

func TestExpandBadParams(t *testing.T) {
	e := newEnv(t, serverOptions(t, nil), nil, nil)
	for _, tc := range []struct {
		name   string
		params any
		field  string
	}{
		{"nothing", map[string]any{}, "handles"},
		{"null", json.RawMessage("null"), "handles"},
		{"malformed handle", map[string]any{"handles": []any{"stitch.go"}}, "handles"},
		{"unknown file", map[string]any{"handles": []any{"nope.go#L1-2"}}, "handles"},
		{"uri without range", map[string]any{"uri": e.uri("ranges/stitch.go")}, "range"},
		{"bad range", map[string]any{"uri": e.uri("ranges/stitch.go"), "range": map[string]any{"start": 5, "end": 2}}, "range"},
		{"uri outside", map[string]any{"uri": "file:///etc/hosts", "range": map[string]any{"start": 1, "end": 2}}, "uri"},
		{"bad budget", map[string]any{"handles": []any{"ranges/stitch.go#L1-2"}, "budget": map[string]any{"maxTokens": 0}}, "budget.maxTokens"},
		{"bad format", map[string]any{"handles": []any{"ranges/stitch.go#L1-2"}, "format": "pdf"}, "format"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := mustError(t, e.call(methodContextExpand, tc.params), CodeInvalidParams)
			if err.field() != tc.field {
				t.Errorf("field %q (%s); want %q", err.field(), err.Message, tc.field)
			}
		})
	}
}

func TestSettingsApply(t *testing.T) {
	reg := serverOptions(t, nil).Tokens
	s, problems := defaultSettings().apply(json.RawMessage(`{"ctxls": {"budget": {"maxTokens": 500, "perFileMaxTokens": 200},
		"encoding": "o200k_base", "format": "xml", "strategy": "score", "include": ["**/*.go"], "exclude": ["vendor/**"],
		"cacheDir": "/tmp/c", "indexWaitMs": 0}}`), reg)
	if len(problems) > 0 || s.Budget.MaxTokens != 500 || s.Budget.PerFileMaxTokens != 200 || s.Encoding != "o200k_base" ||
		s.Format != "xml" || s.Strategy != "score" || s.Include[0] != "**/*.go" || s.Exclude[0] != "vendor/**" ||
		s.CacheDir != "/tmp/c" || s.IndexWait != 0 {
		t.Errorf("settings %+v, problems %v", s, problems)
	}
	// Flat spellings, and bad values skipped one by one.
	s, problems = defaultSettings().apply(json.RawMessage(`{"maxTokens": 1200, "format": "pdf", "encoding": "nope", "include": ["[x"]}`), reg)
	if s.Budget.MaxTokens != 1200 || s.Format != "markdown" || s.Encoding != DefaultEncoding || s.Include != nil || len(problems) != 3 {
		t.Errorf("settings %+v, problems %v", s, problems)
	}
	// Channel weights: known channels kept, an unknown one or a negative
	// weight rejected with the field named.
	s, problems = defaultSettings().apply(json.RawMessage(`{"weights": {"graph": 1, "neighbor": 0}}`), reg)
	if len(problems) > 0 || s.Weights["graph"] != 1 || s.Weights["neighbor"] != 0 || len(s.Weights) != 2 {
		t.Errorf("weights: %+v %v", s.Weights, problems)
	}
	for _, raw := range []string{`{"weights": {"magic": 1}}`, `{"weights": {"graph": -1}}`} {
		if s, problems := defaultSettings().apply(json.RawMessage(raw), reg); len(problems) != 1 || s.Weights != nil || !strings.Contains(fmt.Sprint(problems), "weights") {
			t.Errorf("%s: %+v %v", raw, s.Weights, problems)
		}
	}
	for _, raw := range []string{``, `null`, `{}`, `{"ctxls": null}`, `{"ctxls": {}}`} {
		if s, problems := defaultSettings().apply(json.RawMessage(raw), reg); len(problems) > 0 || s.Budget.MaxTokens != DefaultMaxTokens {
			t.Errorf("%s: %+v %v", raw, s, problems)
		}
	}
}

func TestParseID(t *testing.T) {
	for raw, want := range map[string]string{`0`: `0`, `1099511627776`: `1099511627776`, `"x"`: `"x"`, `""`: `""`} {
		id, err := parseID(json.RawMessage(raw))
		if err != nil || id.String() != want {
			t.Errorf("parseID(%s) = %v, %v", raw, id, err)
		}
	}
	for _, raw := range []string{`1.5`, `null`, `{}`} {
		if _, err := parseID(json.RawMessage(raw)); err == nil {
			t.Errorf("parseID(%s) accepted", raw)
		}
	}
}

func TestURIs(t *testing.T) {
	for uri, want := range map[string]string{
		"file:///ws/a%20b/c.go": "/ws/a b/c.go",
		"file:///ws/x/../y/":    "/ws/y",
		"file://localhost/ws":   "/ws",
	} {
		if got, err := uriToPath(uri); err != nil || got != want {
			t.Errorf("uriToPath(%s) = %q, %v; want %q", uri, got, err, want)
		}
	}
	for _, uri := range []string{"untitled:1", "file://server/share/x", "https://x/y", "file:rel"} {
		if p, err := uriToPath(uri); err == nil {
			t.Errorf("uriToPath(%s) = %q, want an error", uri, p)
		}
	}
	if got := joinURI("file:///ws/", "a b/ü.go"); got != "file:///ws/a%20b/%C3%BC.go" {
		t.Errorf("joinURI: %s", got)
	}
	if got := pathToURI("/ws/a b"); got != "file:///ws/a%20b" {
		t.Errorf("pathToURI: %s", got)
	}
}
