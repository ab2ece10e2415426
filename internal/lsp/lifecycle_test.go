package lsp

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// Request ids come back exactly as sent: 0 (vscode-jsonrpc's first id), an
// id above int32, and a string.
func TestRequestIDsEchoed(t *testing.T) {
	root := writeTree(t, fixture)
	c := startServer(t, serverOptions(t, nil))
	init := c.wait(c.send(0, methodInitialize, map[string]any{"rootUri": pathToURI(root), "capabilities": map[string]any{}}), "initialize")
	if string(init.ID) != "0" || init.Error != nil {
		t.Fatalf("initialize id 0: got id %s error %v", init.ID, init.Error)
	}
	c.notify(methodInitialized, map[string]any{})
	for _, id := range []any{json.Number("1099511627776"), json.Number("9007199254740991"), "abc-1", "", json.Number("2147483648")} {
		raw, _ := json.Marshal(id)
		m := c.wait(c.send(id, methodContextAssemble, map[string]any{"query": "Stitch"}), "assemble")
		if string(m.ID) != string(raw) {
			t.Errorf("sent id %s, got %s", raw, m.ID)
		}
		if m.Error != nil {
			t.Errorf("id %s: error %s", raw, m.Error.Message)
		}
	}
}

// shutdown and exit work with "params": null (eglot) and without params
// (Neovim, VS Code); initialize works with null params and null or {}
// initializationOptions; Serve reports a clean exit.
func TestShutdownExitParams(t *testing.T) {
	for _, tc := range []struct {
		name   string
		params any
	}{{"null", json.RawMessage("null")}, {"absent", noParams}} {
		t.Run(tc.name, func(t *testing.T) {
			c := startServer(t, serverOptions(t, nil))
			res := mustResult[InitializeResult](t, c.call(methodInitialize, tc.params))
			if !res.Capabilities.TextDocumentSync.OpenClose {
				t.Errorf("capabilities: %+v", res.Capabilities)
			}
			c.notify(methodInitialized, tc.params)
			if m := c.call(methodShutdown, tc.params); m.Error != nil || string(m.Result) != "null" {
				t.Fatalf("shutdown: %s %v", m.Result, m.Error)
			}
			c.notify(methodExit, tc.params)
			if err := c.serveResult(); err != nil {
				t.Fatalf("Serve after shutdown+exit: %v", err)
			}
		})
	}
	for _, opts := range []string{`null`, `{}`, `{"ctxls":{"format":"xml"}}`} {
		c := startServer(t, serverOptions(t, nil))
		m := c.call(methodInitialize, json.RawMessage(`{"processId":null,"rootUri":null,"capabilities":{},"initializationOptions":`+opts+`}`))
		mustResult[InitializeResult](t, m)
	}
}

func TestExitWithoutShutdown(t *testing.T) {
	c := startServer(t, serverOptions(t, nil))
	c.initialize(nil)
	c.notify(methodExit, json.RawMessage("null"))
	if err := c.serveResult(); !errors.Is(err, ErrExitWithoutShutdown) {
		t.Fatalf("Serve: %v, want ErrExitWithoutShutdown", err)
	}
}

func TestLifecycleErrors(t *testing.T) {
	c := startServer(t, serverOptions(t, nil))
	mustError(t, c.call(methodContextAssemble, map[string]any{"query": "x"}), CodeServerNotInitialized)
	c.initialize(nil)
	mustError(t, c.call(methodInitialize, map[string]any{}), CodeInvalidRequest)
	mustError(t, c.call("textDocument/hover", map[string]any{}), CodeMethodNotFound)
	// No folder: a clear error.
	if e := mustError(t, c.call(methodContextAssemble, map[string]any{"query": "x"}), CodeRequestFailed); !strings.Contains(e.Message, "no workspace folder") {
		t.Errorf("message %q", e.Message)
	}
	c.call(methodShutdown, nil)
	mustError(t, c.call(methodContextAssemble, map[string]any{"query": "x"}), CodeInvalidRequest)
}

func TestInitializeResult(t *testing.T) {
	c := startServer(t, serverOptions(t, nil))
	m := c.call(methodInitialize, map[string]any{"capabilities": map[string]any{}})
	var res map[string]any
	if err := json.Unmarshal(m.Result, &res); err != nil {
		t.Fatal(err)
	}
	caps := res["capabilities"].(map[string]any)
	if got := compactJSON(t, caps["textDocumentSync"]); got != `{"change":2,"openClose":true}` {
		t.Errorf("textDocumentSync %s", got)
	}
	if got := compactJSON(t, caps["workspace"]); got != `{"workspaceFolders":{"changeNotifications":true,"supported":true}}` {
		t.Errorf("workspace %s", got)
	}
	ca := caps["experimental"].(map[string]any)["contextAssemble"].(map[string]any)
	if ca["version"] != 1.0 || !strings.Contains(compactJSON(t, ca["formats"]), "markdown") ||
		!strings.Contains(compactJSON(t, ca["encodings"]), "cl100k_base") || !strings.Contains(compactJSON(t, ca["strategies"]), "grouped") {
		t.Errorf("contextAssemble %s", compactJSON(t, ca))
	}
}

func compactJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Folders from rootPath, with or without a trailing slash (eglot), and
// from workspaceFolders, all index and answer.
func TestInitialFolders(t *testing.T) {
	root := writeTree(t, fixture)
	for _, params := range []map[string]any{
		{"rootPath": root + "/"},
		{"rootPath": root},
		{"rootUri": pathToURI(root) + "/"},
		{"workspaceFolders": []any{map[string]any{"uri": pathToURI(root), "name": root}}, "rootUri": "file:///nonexistent"},
	} {
		c := startServer(t, serverOptions(t, nil))
		c.initialize(params)
		m := c.call(methodContextAssemble, map[string]any{"query": "Stitch"})
		r := mustResult[assembleResultJSON](t, m)
		if !r.hasText("func Stitch") {
			t.Errorf("%v: no Stitch in %v", params, r.paths())
		}
		for _, p := range r.Parts {
			if !strings.HasPrefix(p.URI, pathToURI(root)+"/") {
				t.Errorf("%v: uri %s", params, p.URI)
			}
		}
	}
}

// A panic in a handler is answered with InternalError, logged to the
// client, and the server keeps serving.
func TestPanicRecovered(t *testing.T) {
	e := newEnv(t, serverOptions(t, nil), nil, nil)
	mustError(t, e.call(methodContextAssemble, map[string]any{"query": "PANIC"}), CodeInternalError)
	e.waitFor(methodLogMessage, func(p json.RawMessage) bool {
		return strings.Contains(string(p), "test panic") && strings.Contains(string(p), `"type":1`)
	})
	if r := e.assemble(map[string]any{"query": "Stitch"}); !r.hasText("func Stitch") {
		t.Errorf("after the panic: %v", r.paths())
	}
}

// $/cancelRequest with a numeric and with a string id: the request
// answers RequestCancelled and its work stops (its context is cancelled).
func TestCancelRequest(t *testing.T) {
	eng := &testEngine{started: make(chan string, 4)}
	opts := serverOptions(t, nil)
	eng.Engine = opts.Engine.(*testEngine).Engine
	opts.Engine = eng
	e := newEnv(t, opts, nil, nil)
	for _, id := range []any{json.Number("7"), json.Number("1099511627777"), "cancel-me"} {
		ch := e.send(id, methodContextAssemble, map[string]any{"query": "BLOCK"})
		<-eng.started
		e.notify(methodCancelRequest, map[string]any{"id": id})
		m := e.wait(ch, "cancelled request")
		mustError(t, m, CodeRequestCancelled)
	}
	// Cancelling an unknown id is harmless.
	e.notify(methodCancelRequest, map[string]any{"id": 424242})
	if r := e.assemble(map[string]any{"query": "Stitch"}); !r.hasText("func Stitch") {
		t.Errorf("after cancellations: %v", r.paths())
	}
}

// A handler that calls the client (workspace/configuration after
// initialized) does not block other requests, and its answer is applied.
func TestClientCallDoesNotBlock(t *testing.T) {
	root := writeTree(t, fixture)
	c := startServer(t, serverOptions(t, nil))
	release := make(chan struct{})
	c.handle(methodConfiguration, func(json.RawMessage) (any, *wireError) {
		<-release
		return []any{map[string]any{"budget": map[string]any{"maxTokens": 333}}}, nil
	})
	c.initialize(map[string]any{"rootUri": pathToURI(root), "capabilities": map[string]any{"workspace": map[string]any{"configuration": true}}})
	c.waitFor(methodConfiguration, nil) // the server is waiting for the answer
	r := mustResult[assembleResultJSON](t, c.call(methodContextAssemble, map[string]any{"query": "Stitch"}))
	if r.Stats.MaxTokens != DefaultMaxTokens {
		t.Errorf("before the configuration: maxTokens %d", r.Stats.MaxTokens)
	}
	close(release)
	eventually(t, "settings from workspace/configuration applied", func() bool {
		r := mustResult[assembleResultJSON](t, c.call(methodContextAssemble, map[string]any{"query": "Stitch"}))
		return r.Stats.MaxTokens == 333
	})
}

// Settings pushed with didChangeConfiguration (clients without
// workspace/configuration) apply to later requests; eglot's
// {"settings":{}} resets them to the initializationOptions.
func TestDidChangeConfigurationPush(t *testing.T) {
	root := writeTree(t, fixture)
	c := startServer(t, serverOptions(t, nil))
	c.initialize(map[string]any{"rootUri": pathToURI(root), "initializationOptions": map[string]any{"format": "json"}})
	assembleFormat := func() string {
		r := mustResult[assembleResultJSON](t, c.call(methodContextAssemble, map[string]any{"query": "Stitch"}))
		switch {
		case strings.HasPrefix(r.Rendered, "<context>"):
			return "xml"
		case strings.HasPrefix(r.Rendered, "{"):
			return "json"
		}
		return "markdown"
	}
	if f := assembleFormat(); f != "json" {
		t.Errorf("initializationOptions format: %s", f)
	}
	c.notify(methodDidChangeConfiguration, map[string]any{"settings": map[string]any{"ctxls": map[string]any{"format": "xml"}}})
	if f := assembleFormat(); f != "xml" {
		t.Errorf("pushed format: %s", f)
	}
	c.notify(methodDidChangeConfiguration, map[string]any{"settings": map[string]any{}})
	if f := assembleFormat(); f != "json" {
		t.Errorf("after {} settings: %s", f)
	}
	// A bad setting is reported and skipped.
	c.notify(methodDidChangeConfiguration, map[string]any{"settings": map[string]any{"format": "pdf", "strategy": "score"}})
	c.waitFor(methodLogMessage, func(p json.RawMessage) bool { return strings.Contains(string(p), "pdf") })
	if f := assembleFormat(); f != "json" {
		t.Errorf("after a bad format: %s", f)
	}
}
