package lsp

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/access"
	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/semantic"
)

const testToken = "lsp-test-token-0123456789"

// accessOptions are serverOptions under an access policy with the token
// testToken and the given allowed roots (none: every folder).
func accessOptions(t *testing.T, roots ...string) Options {
	t.Helper()
	opts := serverOptions(t, nil)
	opts.Access = &Access{Token: testToken}
	if len(roots) > 0 {
		r, err := access.NewRoots(roots)
		if err != nil {
			t.Fatal(err)
		}
		opts.Access.CheckRoot = r.Check
	}
	return opts
}

// A missing, wrong or malformed token is answered with an error naming
// the field, then the session ends with ErrRefused.
func TestAccessTokenRefused(t *testing.T) {
	root := writeTree(t, fixture)
	for _, c := range []struct {
		name string
		opts any
		want string
	}{
		{"no options", nil, "missing"},
		{"empty options", map[string]any{}, "missing"},
		{"settings only", map[string]any{"maxTokens": 100}, "missing"},
		{"empty token", map[string]any{"token": ""}, "missing"},
		{"wrong token", map[string]any{"token": testToken + "x"}, "wrong token"},
		{"token prefix", map[string]any{"token": testToken[:8]}, "wrong token"},
		{"nested wrong token", map[string]any{"ctxls": map[string]any{"token": "nope"}}, "wrong token"},
		{"token not a string", map[string]any{"token": 12345}, "must be a string"},
		{"right token, wrong case of key", map[string]any{"Token": testToken}, "missing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := startServer(t, accessOptions(t))
			// Before initialize nothing else is served.
			mustError(t, cl.call(methodContextAssemble, map[string]any{"query": "Stitch"}), CodeServerNotInitialized)
			params := map[string]any{"rootUri": pathToURI(root), "capabilities": map[string]any{}}
			if c.opts != nil {
				params["initializationOptions"] = c.opts
			}
			e := mustError(t, cl.call(methodInitialize, params), CodeInvalidParams)
			if e.field() != "initializationOptions.token" || !strings.Contains(e.Message, c.want) {
				t.Errorf("error %q (field %q), want one about %q", e.Message, e.field(), c.want)
			}
			if strings.Contains(e.Message, testToken) {
				t.Errorf("the error holds the token: %s", e.Message)
			}
			// The session ends (over a pipe the connection closes at once;
			// cmd/ctxls tests the half-close of a socket).
			if err := cl.serveResult(); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Serve returned %v, want ErrRefused", err)
			}
			if n := cl.count(methodLogMessage); n != 0 {
				t.Errorf("%d logMessages sent to a refused client", n)
			}
		})
	}
	// A malformed initialize cannot carry a readable token: refused too.
	cl := startServer(t, accessOptions(t))
	mustError(t, cl.call(methodInitialize, map[string]any{"rootUri": 7}), CodeInvalidParams)
	if err := cl.serveResult(); !errors.Is(err, ErrRefused) {
		t.Errorf("malformed initialize: Serve returned %v", err)
	}
}

// The token is accepted at the top of initializationOptions or in its
// "ctxls" object, next to settings, which still apply and raise no
// warning about the token.
func TestAccessTokenAccepted(t *testing.T) {
	root := writeTree(t, fixture)
	for _, opts := range []any{
		map[string]any{"token": testToken, "format": "xml"},
		map[string]any{"ctxls": map[string]any{"token": testToken, "format": "xml"}},
		map[string]any{"token": testToken, "ctxls": map[string]any{"format": "xml"}},
		map[string]any{"token": testToken, "ctxls": map[string]any{"token": "ignored-when-top-level-given", "format": "xml"}},
	} {
		cl := startServer(t, accessOptions(t, root))
		cl.initialize(map[string]any{"rootUri": pathToURI(root), "initializationOptions": opts})
		r := mustResult[assembleResultJSON](t, cl.call(methodContextAssemble, map[string]any{"query": "how are ranges stitched"}))
		if !r.hasText("func Stitch") || !strings.HasPrefix(r.Rendered, "<context>") {
			t.Errorf("%v: answer %v %.40q", opts, r.paths(), r.Rendered)
		}
		cl.mu.Lock()
		for _, m := range cl.received {
			if m.Method == methodLogMessage && strings.Contains(string(m.Params), "token") {
				t.Errorf("%v: %s", opts, m.Params)
			}
		}
		cl.mu.Unlock()
	}
}

// Without an access policy (stdio) a token in initializationOptions is
// ignored, as before.
func TestNoAccessIgnoresToken(t *testing.T) {
	root := writeTree(t, fixture)
	cl := startServer(t, serverOptions(t, nil))
	cl.initialize(map[string]any{"rootUri": pathToURI(root), "initializationOptions": map[string]any{"token": "anything"}})
	r := mustResult[assembleResultJSON](t, cl.call(methodContextAssemble, map[string]any{"query": "Stitch"}))
	if !r.hasText("func Stitch") {
		t.Errorf("answer %v", r.paths())
	}
}

// Folders outside the allowed roots fail initialize with an error naming
// the roots; the client may try again with an allowed folder.
func TestAccessRootsInitialize(t *testing.T) {
	allowed := writeTree(t, fixture)
	outside := writeTree(t, map[string]string{"secret.go": "package secret\n\nfunc Secret() {}\n"})
	os.MkdirAll(filepath.Join(allowed, "sub"), 0o755)
	if err := os.Symlink(outside, filepath.Join(allowed, "sub", "link")); err != nil {
		t.Skip(err)
	}
	tok := map[string]any{"token": testToken}
	for _, c := range []struct {
		name   string
		params map[string]any
		field  string
	}{
		{"rootUri outside", map[string]any{"rootUri": pathToURI(outside)}, "rootUri"},
		{"rootPath outside", map[string]any{"rootPath": outside + "/"}, "rootPath"},
		{"rootUri through a symlink", map[string]any{"rootUri": pathToURI(filepath.Join(allowed, "sub", "link"))}, "rootUri"},
		{"rootUri through ..", map[string]any{"rootUri": pathToURI(allowed) + "/../" + filepath.Base(outside)}, "rootUri"},
		{"one workspace folder of two outside", map[string]any{"workspaceFolders": []any{
			map[string]any{"uri": pathToURI(allowed), "name": "a"},
			map[string]any{"uri": pathToURI(outside), "name": "b"},
		}}, "workspaceFolders"},
		{"the root itself", map[string]any{"rootUri": "file:///"}, "rootUri"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := startServer(t, accessOptions(t, allowed))
			c.params["initializationOptions"] = tok
			c.params["capabilities"] = map[string]any{}
			e := mustError(t, cl.call(methodInitialize, c.params), CodeInvalidParams)
			if e.field() != c.field || !strings.Contains(e.Message, "outside the allowed roots") || !strings.Contains(e.Message, allowed) {
				t.Errorf("error %q (field %q)", e.Message, e.field())
			}
			// Not initialized, still connected: a retry with an allowed
			// folder works and never sees the outside one.
			mustError(t, cl.call(methodContextAssemble, map[string]any{"query": "Secret"}), CodeServerNotInitialized)
			cl.initialize(map[string]any{"rootUri": pathToURI(allowed), "initializationOptions": tok})
			r := mustResult[assembleResultJSON](t, cl.call(methodContextAssemble, map[string]any{"query": "Secret Stitch"}))
			if r.hasText("func Secret") || !r.hasText("func Stitch") {
				t.Errorf("answer %v", r.paths())
			}
		})
	}
}

// A folder added later outside the allowed roots is refused with
// window/showMessage and not opened; one inside is.
func TestAccessRootsAddedLater(t *testing.T) {
	allowed := writeTree(t, fixture)
	outside := writeTree(t, map[string]string{"secret.go": "package secret\n\nfunc Secret() {}\n"})
	inside := filepath.Join(allowed, "ranges")
	cl := startServer(t, accessOptions(t, allowed))
	cl.initialize(map[string]any{"rootUri": pathToURI(allowed), "initializationOptions": map[string]any{"token": testToken}})
	cl.notify(methodDidChangeWorkspaceFolders, map[string]any{"event": map[string]any{
		"added":   []any{map[string]any{"uri": pathToURI(outside), "name": "out"}, map[string]any{"uri": pathToURI(inside), "name": "in"}},
		"removed": []any{},
	}})
	m := cl.waitFor(methodShowMessage, nil)
	var sm ShowMessageParams
	json.Unmarshal(m.Params, &sm)
	if sm.Type != messageTypeError || !strings.Contains(sm.Message, pathToURI(outside)) || !strings.Contains(sm.Message, allowed) {
		t.Errorf("showMessage %+v", sm)
	}
	focus := map[string]any{"query": "Secret", "focus": map[string]any{"uri": pathToURI(filepath.Join(outside, "secret.go")), "position": map[string]any{"line": 2, "character": 0}}}
	if e := mustError(t, cl.call(methodContextAssemble, focus), CodeInvalidParams); e.field() != "focus.uri" {
		t.Errorf("focus in the refused folder: %s", e.Message)
	}
	cl.waitFor(methodLogMessage, func(p json.RawMessage) bool {
		return strings.Contains(string(p), "workspace folder added: "+pathToURI(inside))
	})
	if cl.count(methodShowMessage) != 1 {
		t.Errorf("%d showMessages, want 1", cl.count(methodShowMessage))
	}
}

// A client on a network face cannot point the cacheDir setting elsewhere:
// the server's cache directory keeps the indexes.
func TestAccessCacheDirSetting(t *testing.T) {
	for _, withAccess := range []bool{false, true} {
		root := writeTree(t, fixture)
		serverCache, clientCache := t.TempDir(), t.TempDir()
		opts := serverOptions(t, nil)
		opts.IndexOptions = func(root string) index.Options {
			return index.Options{CacheDir: index.CacheDirIn(serverCache, root)}
		}
		init := map[string]any{"cacheDir": clientCache}
		if withAccess {
			opts.Access = &Access{Token: testToken}
			init["token"] = testToken
		}
		cl := startServer(t, opts)
		cl.initialize(map[string]any{"rootUri": pathToURI(root), "initializationOptions": init})
		if r := mustResult[assembleResultJSON](t, cl.call(methodContextAssemble, map[string]any{"query": "Stitch"})); !r.hasText("func Stitch") {
			t.Fatalf("answer %v", r.paths())
		}
		cl.call(methodShutdown, noParams) // checkpoints the index
		used, _ := os.ReadDir(clientCache)
		kept, _ := os.ReadDir(serverCache)
		if withAccess {
			if len(used) != 0 || len(kept) == 0 {
				t.Errorf("with access: client's cacheDir has %d entries, server's %d", len(used), len(kept))
			}
			cl.waitFor(methodLogMessage, func(p json.RawMessage) bool { return strings.Contains(string(p), "cacheDir: ignored") })
		} else if len(used) == 0 {
			t.Errorf("without access the cacheDir setting should apply (control)")
		}
	}
}

func TestSplitToken(t *testing.T) {
	for _, c := range []struct {
		in, tok, rest string
		err           bool
	}{
		{``, "", ``, false},
		{`null`, "", `null`, false},
		{`[1]`, "", `[1]`, false},
		{`{"maxTokens":5}`, "", `{"maxTokens":5}`, false},
		{`{"token":"abc","maxTokens":5}`, "abc", `{"maxTokens":5}`, false},
		{`{"ctxls":{"token":"abc","format":"xml"}}`, "abc", `{"ctxls":{"format":"xml"}}`, false},
		{`{"token":"top","ctxls":{"token":"inner"}}`, "top", `{"ctxls":{}}`, false},
		{`{"token":"abc"}`, "abc", `{}`, false},
		{`{"token":7}`, "", ``, true},
		{`{"ctxls":{"token":null}}`, "", ``, true},
	} {
		tok, rest, err := splitToken(json.RawMessage(c.in))
		if (err != nil) != c.err || tok != c.tok || (!c.err && string(rest) != c.rest) {
			t.Errorf("splitToken(%s) = %q, %s, %v; want %q, %s (error %v)", c.in, tok, rest, err, c.tok, c.rest, c.err)
		}
	}
}

// TestRestrictSettings: on a network face a client cannot name where the
// server writes (cacheDir) or sends code (embeddingsEndpoint), nor switch
// to the endpoint mode when the server has no service of its own; on stdio
// every setting applies.
func TestRestrictSettings(t *testing.T) {
	clientEndpoint := &semantic.EndpointConfig{URL: "http://127.0.0.1:1/v1/embeddings", Model: "m", KeyEnv: "HOME"}
	serverEndpoint := &semantic.EndpointConfig{URL: "http://127.0.0.1:2/v1/embeddings", Model: "s"}
	in := Settings{CacheDir: "/tmp/x", Embeddings: semantic.ModeEndpoint, EmbeddingsEndpoint: clientEndpoint}
	for _, c := range []struct {
		name      string
		opts      Options
		want      Settings
		wantDrops int
	}{
		{"stdio", Options{}, in, 0},
		{"network, no server endpoint", Options{Access: &Access{Token: testToken}}, Settings{}, 3},
		{"network, server endpoint", Options{Access: &Access{Token: testToken}, EmbeddingsEndpoint: serverEndpoint},
			Settings{Embeddings: semantic.ModeEndpoint}, 2},
	} {
		s := &session{opts: c.opts}
		got, dropped := s.restrictSettings(in)
		if !reflect.DeepEqual(got, c.want) || len(dropped) != c.wantDrops {
			t.Errorf("%s: restrictSettings = %+v, %q; want %+v and %d warnings", c.name, got, dropped, c.want, c.wantDrops)
		}
	}
}
