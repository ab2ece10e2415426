package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/access"
)

// The network face of `ctxls serve --listen`, tested against the real
// server on loopback: each refusal of docs/security.md, and the accepted
// path.

const faceTimeout = 20 * time.Second

// face is a workspace, an allowed root holding it, a token file and a
// cache directory for a listening server.
type face struct {
	root      string // the allowed root (symlinks resolved)
	outside   string // a directory outside it
	token     string
	tokenFile string
	cacheDir  string
}

// newFace builds the fixture: root/ holds a Go package, outside/ a
// "secret" one, and root/sub/link points to outside/.
func newFace(t *testing.T) *face {
	t.Helper()
	t.Setenv(access.EnvTokenFile, "")
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &face{
		root: filepath.Join(base, "root"), outside: filepath.Join(base, "outside"),
		token: "face-token-0123456789abcdef", tokenFile: filepath.Join(base, "token"),
		cacheDir: filepath.Join(base, "cache"),
	}
	files := map[string]string{
		"root/go.mod":           "module example.com/ws\n\ngo 1.22\n",
		"root/ranges/stitch.go": "package ranges\n\n// Stitch joins nearby line ranges.\nfunc Stitch(rs []int, gap int) []int {\n\treturn rs\n}\n",
		"root/sub/keep.go":      "package sub\n\nfunc Keep() {}\n",
		"outside/secret.go":     "package secret\n\n// Secret is what no client may read.\nfunc Secret() string { return \"hunter2\" }\n",
		"token":                 f.token + "\n",
	}
	for p, content := range files {
		abs := filepath.Join(base, p)
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(f.outside, filepath.Join(f.root, "sub", "link")); err != nil {
		t.Fatal(err)
	}
	return f
}

// args are the flags of a server for this face: token file, root, cache.
func (f *face) args(extra ...string) []string {
	return append([]string{"--token-file", f.tokenFile, "--root", f.root, "--cache-dir", f.cacheDir}, extra...)
}

// start runs runServe with the face's flags and extra; it returns the
// address it listens on, its stderr, and stop, which interrupts it and
// returns its exit status (called at the end of the test if not before).
func (f *face) start(t *testing.T, extra ...string) (addr string, stderr *syncBuffer, stop func() int) {
	t.Helper()
	return startServe(t, f.args(extra...))
}

// startServe runs runServe with args until the test ends.
func startServe(t *testing.T, args []string) (addr string, stderr *syncBuffer, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stderr = &syncBuffer{}
	rc := make(chan int, 1)
	go func() { rc <- runServe(ctx, args, strings.NewReader(""), io.Discard, stderr) }()
	code, stopped := -1, false
	stop = func() int {
		if !stopped {
			stopped = true
			cancel()
			select {
			case code = <-rc:
			case <-time.After(faceTimeout):
				t.Errorf("the listener did not stop; stderr:\n%s", stderr.String())
			}
		}
		return code
	}
	t.Cleanup(func() { stop() })
	addrRE := regexp.MustCompile(`listening on (\S+)`)
	deadline := time.Now().Add(faceTimeout)
	for time.Now().Before(deadline) {
		if m := addrRE.FindStringSubmatch(stderr.String()); m != nil {
			return m[1], stderr, stop
		}
		select {
		case code = <-rc:
			stopped = true
			t.Fatalf("runServe %v ended with status %d before listening; stderr:\n%s", args, code, stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatalf("no listening address in stderr:\n%s", stderr.String())
	return "", nil, nil
}

// lspClient is a raw LSP connection to a listening server.
type lspClient struct {
	t      *testing.T
	conn   net.Conn
	r      *bufio.Reader
	nextID int
	// notes are the notifications received, in order.
	notes []lspMsg
}

// lspMsg is any message from the server.
type lspMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func (m lspMsg) field() string {
	var d struct {
		Field string `json:"field"`
	}
	if m.Error != nil {
		json.Unmarshal(m.Error.Data, &d)
	}
	return d.Field
}

// dial connects to addr as "listening on" printed it (host:port or
// unix:PATH).
func dial(t *testing.T, addr string) *lspClient {
	t.Helper()
	network := "tcp"
	if p, ok := strings.CutPrefix(addr, "unix:"); ok {
		network, addr = "unix", p
	}
	c, err := net.Dial(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(faceTimeout))
	return &lspClient{t: t, conn: c, r: bufio.NewReader(c)}
}

// send writes one message.
func (c *lspClient) send(msg map[string]any) {
	c.t.Helper()
	msg["jsonrpc"] = "2.0"
	b, err := json.Marshal(msg)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := frame(c.conn, string(b)); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// read reads the next message.
func (c *lspClient) read() (lspMsg, error) {
	body, err := readFrame(c.r)
	if err != nil {
		return lspMsg{}, err
	}
	var m lspMsg
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		c.t.Fatalf("malformed message %q: %v", body, err)
	}
	return m, nil
}

// call sends a request and returns its response, keeping the
// notifications that come first and answering server requests with null.
func (c *lspClient) call(method string, params any) lspMsg {
	c.t.Helper()
	c.nextID++
	id := c.nextID
	c.send(map[string]any{"id": id, "method": method, "params": params})
	for {
		m, err := c.read()
		if err != nil {
			c.t.Fatalf("%s: reading the answer: %v", method, err)
		}
		switch {
		case m.Method != "" && m.ID != nil:
			c.send(map[string]any{"id": m.ID, "result": nil})
		case m.Method != "":
			c.notes = append(c.notes, m)
		case string(m.ID) == strings.TrimSpace(string(mustJSON(c.t, id))):
			return m
		}
	}
}

// notify sends a notification.
func (c *lspClient) notify(method string, params any) {
	c.t.Helper()
	c.send(map[string]any{"method": method, "params": params})
}

// waitNote reads until a notification of method whose params contain
// text arrives.
func (c *lspClient) waitNote(method, text string) lspMsg {
	c.t.Helper()
	for i := 0; ; {
		if i < len(c.notes) {
			if m := c.notes[i]; m.Method == method && strings.Contains(string(m.Params), text) {
				return m
			}
			i++
			continue
		}
		m, err := c.read()
		if err != nil {
			c.t.Fatalf("waiting for %s %q: %v", method, text, err)
		}
		if m.Method != "" && m.ID == nil {
			c.notes = append(c.notes, m)
		}
	}
}

// initParams are initialize's params for rootUri with the given
// initializationOptions (nil: none).
func initParams(rootURI string, opts any) map[string]any {
	p := map[string]any{"processId": nil, "capabilities": map[string]any{}, "rootUri": rootURI}
	if opts != nil {
		p["initializationOptions"] = opts
	}
	return p
}

func fileURI(p string) string { return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String() }

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// assemble asks context/assemble and returns the rendered text.
func (c *lspClient) assemble(params map[string]any) string {
	c.t.Helper()
	m := c.call("context/assemble", params)
	if m.Error != nil {
		c.t.Fatalf("context/assemble: %d %s", m.Error.Code, m.Error.Message)
	}
	var r struct {
		Rendered string `json:"rendered"`
	}
	if err := json.Unmarshal(m.Result, &r); err != nil {
		c.t.Fatal(err)
	}
	return r.Rendered
}

// The accepted path: the right token and an allowed root get answers as
// before; a folder inside the root may be added later.
func TestServeListenAccepted(t *testing.T) {
	f := newFace(t)
	addr, stderr, stop := f.start(t, "--listen", ":0")
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Errorf("--listen :0 listens on %s, want loopback", addr)
	}
	c := dial(t, addr)
	if m := c.call("initialize", initParams(fileURI(f.root), map[string]any{"token": f.token, "maxTokens": 2000})); m.Error != nil {
		t.Fatalf("initialize: %s", m.Error.Message)
	}
	c.notify("initialized", map[string]any{})
	if text := c.assemble(map[string]any{"query": "how are ranges stitched"}); !strings.Contains(text, "func Stitch") {
		t.Errorf("answer without Stitch: %q", text)
	}
	c.call("shutdown", nil)
	c.notify("exit", nil)
	if code := stop(); code != 0 {
		t.Errorf("status %d", code)
	}
	if log := stderr.String(); strings.Contains(log, f.token) {
		t.Errorf("the log holds the token:\n%s", log)
	} else if !strings.Contains(log, "allowed roots: "+f.root) || !strings.Contains(log, "token file: "+f.tokenFile) {
		t.Errorf("the log does not say the roots and the token file:\n%s", log)
	}
	// A token file the user named stays.
	if _, err := os.Stat(f.tokenFile); err != nil {
		t.Errorf("the named token file: %v", err)
	}
}

// A missing or wrong token: an error answer, then the end of the stream
// — even when the client sent more right after initialize.
func TestServeListenTokenRefused(t *testing.T) {
	f := newFace(t)
	addr, stderr, _ := f.start(t, "--listen", "127.0.0.1:0")
	for _, c := range []struct {
		name string
		opts any
		want string
	}{
		{"no token", nil, "missing"},
		{"no token, settings", map[string]any{"ctxls": map[string]any{"maxTokens": 100}}, "missing"},
		{"wrong token", map[string]any{"token": f.token[:len(f.token)-1] + "X"}, "wrong token"},
		{"wrong nested token", map[string]any{"ctxls": map[string]any{"token": "guess"}}, "wrong token"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := dial(t, addr)
			// Pipelined: initialize, initialized and a request at once.
			cl.send(map[string]any{"id": 1, "method": "initialize", "params": initParams(fileURI(f.root), c.opts)})
			cl.send(map[string]any{"method": "initialized", "params": map[string]any{}})
			cl.send(map[string]any{"id": 2, "method": "context/assemble", "params": map[string]any{"query": "Stitch"}})
			m, err := cl.read()
			if err != nil {
				t.Fatalf("no answer to initialize: %v", err)
			}
			if m.Error == nil || m.Error.Code != -32602 || m.field() != "initializationOptions.token" || !strings.Contains(m.Error.Message, c.want) {
				t.Fatalf("initialize answered %s %+v, want an error about %q", m.Result, m.Error, c.want)
			}
			// The allowed roots are told only to a client with the token.
			if strings.Contains(m.Error.Message, f.root) {
				t.Errorf("the refusal names the allowed root: %s", m.Error.Message)
			}
			// Then nothing but the end of the stream: no answer to the
			// request, no reset.
			if m, err := cl.read(); err != io.EOF {
				t.Fatalf("after the refusal: %+v %v; want EOF", m, err)
			}
		})
	}
	if n := strings.Count(stderr.String(), "client refused"); n < 4 {
		t.Errorf("%d refusals logged, want 4:\n%s", n, stderr.String())
	}
}

// Folders outside the allowed roots — directly, through a symlink,
// through "..", or added later — are refused with an error naming the
// roots, and their code never comes back.
func TestServeListenRootsRefused(t *testing.T) {
	f := newFace(t)
	addr, _, _ := f.start(t, "--listen", "127.0.0.1:0")
	tok := map[string]any{"token": f.token}
	for _, c := range []struct {
		name   string
		params map[string]any
		field  string
	}{
		{"outside", initParams(fileURI(f.outside), tok), "rootUri"},
		{"through a symlink", initParams(fileURI(filepath.Join(f.root, "sub", "link")), tok), "rootUri"},
		{"through ..", initParams(fileURI(f.root)+"/../outside", tok), "rootUri"},
		{"rootPath through ..", map[string]any{"capabilities": map[string]any{}, "initializationOptions": tok, "rootPath": f.root + "/sub/../../outside/"}, "rootPath"},
		{"workspaceFolders", map[string]any{"capabilities": map[string]any{}, "initializationOptions": tok, "workspaceFolders": []any{
			map[string]any{"uri": fileURI(f.root), "name": "root"}, map[string]any{"uri": fileURI(f.outside), "name": "outside"},
		}}, "workspaceFolders"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := dial(t, addr)
			m := cl.call("initialize", c.params)
			if m.Error == nil || m.Error.Code != -32602 || m.field() != c.field ||
				!strings.Contains(m.Error.Message, "outside the allowed roots") || !strings.Contains(m.Error.Message, f.root) {
				t.Fatalf("initialize answered %s %+v", m.Result, m.Error)
			}
			// The session is not initialized: nothing is served.
			if m := cl.call("context/assemble", map[string]any{"query": "Secret"}); m.Error == nil || m.Error.Code != -32002 {
				t.Errorf("context/assemble after the refused initialize: %s %+v", m.Result, m.Error)
			}
		})
	}

	t.Run("added later", func(t *testing.T) {
		cl := dial(t, addr)
		if m := cl.call("initialize", initParams(fileURI(f.root), tok)); m.Error != nil {
			t.Fatal(m.Error.Message)
		}
		cl.notify("initialized", map[string]any{})
		cl.notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{
			"added": []any{
				map[string]any{"uri": fileURI(f.outside), "name": "outside"},
				map[string]any{"uri": fileURI(filepath.Join(f.root, "sub", "link")), "name": "link"},
			},
			"removed": []any{},
		}})
		for _, uri := range []string{fileURI(f.outside), fileURI(filepath.Join(f.root, "sub", "link"))} {
			m := cl.waitNote("window/showMessage", uri)
			if !strings.Contains(string(m.Params), `"type":1`) || !strings.Contains(string(m.Params), f.root) {
				t.Errorf("showMessage %s", m.Params)
			}
		}
		m := cl.call("context/assemble", map[string]any{"query": "Secret hunter2", "focus": map[string]any{
			"uri": fileURI(filepath.Join(f.outside, "secret.go")), "position": map[string]any{"line": 3, "character": 0}}})
		if m.Error == nil || m.field() != "focus.uri" {
			t.Errorf("focus in the refused folder: %s %+v", m.Result, m.Error)
		}
		if text := cl.assemble(map[string]any{"query": "Secret hunter2 Stitch"}); strings.Contains(text, "hunter2") {
			t.Errorf("the outside folder's code came back: %q", text)
		}
	})
}

// A non-loopback --listen is refused at start (status 2, a message that
// names --allow-remote) unless --allow-remote; then clients still need
// the token.
func TestServeListenNotLoopback(t *testing.T) {
	f := newFace(t)
	for _, addr := range []string{"0.0.0.0:0", "[::]:0", "192.0.2.1:7777", "example.com:7777"} {
		var stderr syncBuffer
		code := runServe(context.Background(), f.args("--listen", addr), strings.NewReader(""), io.Discard, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), "--allow-remote") || !strings.Contains(stderr.String(), "not a loopback address") {
			t.Errorf("--listen %s: status %d, stderr %q", addr, code, stderr.String())
		}
	}
	addr, _, stop := f.start(t, "--listen", "0.0.0.0:0", "--allow-remote")
	_, port, _ := net.SplitHostPort(addr)
	cl := dial(t, net.JoinHostPort("127.0.0.1", port))
	m := cl.call("initialize", initParams(fileURI(f.root), nil))
	if m.Error == nil || m.field() != "initializationOptions.token" {
		t.Errorf("--allow-remote without a token: %s %+v", m.Result, m.Error)
	}
	if code := stop(); code != 0 {
		t.Errorf("status %d", code)
	}
}

// Without --token-file or $CTXLS_TOKEN_FILE a token is generated into a
// 0600 file whose path is printed on stderr (even with --log), and removed
// at the end.
func TestServeListenGeneratedToken(t *testing.T) {
	f := newFace(t)
	runtimeDir := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", runtimeDir)
	logFile := filepath.Join(t.TempDir(), "log")
	addr, stderr, stop := startServe(t, []string{"--listen", "127.0.0.1:0", "--root", f.root, "--cache-dir", f.cacheDir, "--log", logFile})
	m := regexp.MustCompile(`token file: (\S+)`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no token file on stderr:\n%s", stderr.String())
	}
	path := m[1]
	if filepath.Dir(path) != filepath.Join(runtimeDir, "ctxls") {
		t.Errorf("token file %s not in $XDG_RUNTIME_DIR/ctxls", path)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %04o", st.Mode().Perm())
	}
	tok, err := access.LoadToken(path)
	if err != nil {
		t.Fatal(err)
	}
	cl := dial(t, addr)
	if m := cl.call("initialize", initParams(fileURI(f.root), map[string]any{"token": tok})); m.Error != nil {
		t.Fatalf("the generated token: %s", m.Error.Message)
	}
	if cl2 := dial(t, addr); cl2.call("initialize", initParams(fileURI(f.root), map[string]any{"token": f.token})).Error == nil {
		t.Error("another token was accepted")
	}
	if code := stop(); code != 0 {
		t.Errorf("status %d", code)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the generated token file is still there: %v", err)
	}
	if b, _ := os.ReadFile(logFile); strings.Contains(string(b), tok) || !strings.Contains(string(b), "listening on") {
		t.Errorf("log file:\n%s", b)
	}

	// $CTXLS_TOKEN_FILE names the token file when --token-file does not.
	t.Setenv(access.EnvTokenFile, f.tokenFile)
	addr, _, _ = startServe(t, []string{"--listen", "127.0.0.1:0", "--root", f.root, "--cache-dir", f.cacheDir})
	if m := dial(t, addr).call("initialize", initParams(fileURI(f.root), map[string]any{"token": f.token})); m.Error != nil {
		t.Errorf("token from $%s: %s", access.EnvTokenFile, m.Error.Message)
	}
}

// A Unix socket: made 0600, the token required, answers as over TCP.
func TestServeListenUnix(t *testing.T) {
	f := newFace(t)
	dir, err := os.MkdirTemp("", "ctxls") // short: socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s.sock")
	addr, _, stop := f.start(t, "--listen", "unix:"+sock)
	if addr != "unix:"+sock {
		t.Errorf("listening on %s", addr)
	}
	if st, err := os.Stat(sock); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("socket: %v %v", st.Mode(), err)
	}
	if m := dial(t, addr).call("initialize", initParams(fileURI(f.root), nil)); m.Error == nil {
		t.Error("no token accepted over the Unix socket")
	}
	cl := dial(t, addr)
	if m := cl.call("initialize", initParams(fileURI(f.root), map[string]any{"token": f.token})); m.Error != nil {
		t.Fatal(m.Error.Message)
	}
	if text := cl.assemble(map[string]any{"query": "Stitch"}); !strings.Contains(text, "func Stitch") {
		t.Errorf("answer %q", text)
	}
	if code := stop(); code != 0 {
		t.Errorf("status %d", code)
	}
	if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket is left behind: %v", err)
	}
}

// Bad network-face settings are usage errors (status 2); the flags mean
// nothing without --listen.
func TestServeListenUsage(t *testing.T) {
	f := newFace(t)
	loose := filepath.Join(t.TempDir(), "loose")
	os.WriteFile(loose, []byte(f.token), 0o644)
	os.Chmod(loose, 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--root", f.root}, "only with --listen"},
		{[]string{"--token-file", f.tokenFile}, "only with --listen"},
		{[]string{"--allow-remote"}, "only with --listen"},
		{[]string{"--listen", "127.0.0.1:0", "--token-file", loose, "--root", f.root}, "chmod 600"},
		{[]string{"--listen", "127.0.0.1:0", "--token-file", filepath.Join(f.root, "missing"), "--root", f.root}, "no such file"},
		{[]string{"--listen", "127.0.0.1:0", "--token-file", f.tokenFile, "--root", filepath.Join(f.root, "missing")}, "--root"},
		{[]string{"--listen", "127.0.0.1:http", "--token-file", f.tokenFile}, "port"},
	} {
		var stderr syncBuffer
		code := runServe(context.Background(), c.args, strings.NewReader(""), io.Discard, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: status %d, stderr %q; want 2 and %q", c.args, code, stderr.String(), c.want)
		}
	}
	// A port in use is not a usage error.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var stderr syncBuffer
	if code := runServe(context.Background(), f.args("--listen", ln.Addr().String()), strings.NewReader(""), io.Discard, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), syscall.EADDRINUSE.Error()) {
		t.Errorf("port in use: status %d, stderr %q", code, stderr.String())
	}
}

// ctxls opens no outbound connection unless told to (the opt-in
// embeddings service of --embeddings endpoint): its other network code is
// the access package's listeners, whose one dial checks whether a Unix
// socket file is still in use. Anything new that dials out must be
// stated in docs/security.md and listed here.
func TestNoOutboundConnections(t *testing.T) {
	allowed := map[string]int{
		"internal/access/listen.go": 1, // removeStaleSocket
		// The load harness (package soak, a program of its own, not
		// linked into ctxls) is a client of the ctxls it starts on
		// loopback: LSP over TCP and MCP over HTTP.
		"soak/lspconn.go": 1, "soak/mcp.go": 1,
		// The opt-in embeddings service (--embeddings endpoint, never the
		// default; docs/security.md): its request, its client.
		"internal/semantic/endpoint.go": 3,
	}
	dialing := regexp.MustCompile(`\b(net\.Dial\w*|tls\.Dial\w*|http\.(Get|Head|Post|PostForm|NewRequest\w*|DefaultClient|Client\b|Transport\b)|net\.Resolver|net\.Lookup\w*)`)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	// The files of the module's packages linked into ctxls (not the eval,
	// the load harness or anything checked out under the tree).
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if .Module}}{{if eq .Module.Path \"github.com/ctxls/ctxls\"}}{{range .GoFiles}}{{$.Dir}}/{{.}}\n{{end}}{{end}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	found := map[string]int{}
	for _, p := range strings.Fields(string(out)) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(dialing.FindAll(b, -1)); n > 0 {
			rel, _ := filepath.Rel(root, p)
			found[filepath.ToSlash(rel)] = n
		}
	}
	for file, n := range found {
		if allowed[file] != n {
			t.Errorf("%s: %d uses of an outbound network API (allowed: %d); docs/security.md says ctxls sends nothing anywhere", file, n, allowed[file])
		}
	}
	if len(found) == 0 {
		t.Error("the check found not even removeStaleSocket's dial: is the pattern broken?")
	}
}
