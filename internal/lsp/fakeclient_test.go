package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/retrieve"
	"github.com/ctxls/ctxls/internal/tokens"
)

// The fake editor of the integration tests: it speaks raw LSP framing over
// a net.Pipe to a real Serve, so that tests control ids and params byte for
// byte, answers the server's requests, and records everything the server
// sends. Tests wait for effects (a response, a notification) with a
// timeout, never for fixed delays.

// testTimeout bounds every wait of a test.
const testTimeout = 20 * time.Second

// wireMsg is any message on the wire.
type wireMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *wireError      `json:"error,omitempty"`
}

// wireError is a JSON-RPC error as received.
type wireError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

func (e *wireError) field() string {
	var d struct {
		Field string `json:"field"`
	}
	json.Unmarshal(e.Data, &d)
	return d.Field
}

// serverHandler answers one server-to-client request.
type serverHandler func(params json.RawMessage) (any, *wireError)

// fakeClient is the test's editor.
type fakeClient struct {
	t       testing.TB
	timeout time.Duration // bound of every wait
	conn    net.Conn
	wmu     sync.Mutex
	done    chan error // Serve's result

	mu        sync.Mutex
	pending   map[string]chan wireMsg // by raw id
	received  []wireMsg               // notifications and server requests, in order
	changed   chan struct{}           // closed and replaced when received grows
	handlers  map[string]serverHandler
	nextID    int
	responses []wireMsg // responses to ids nobody waits for
}

// testEnv is a server with its fake client and workspace.
type testEnv struct {
	*fakeClient
	root string // the first workspace folder
}

// serverOptions returns Options for tests: the real engine (wrapped by
// testEngine for the PANIC and BLOCK queries), in-memory indexes.
func serverOptions(t testing.TB, eng Engine) Options {
	reg := tokens.NewRegistry()
	if eng == nil {
		eng = &testEngine{Engine: retrieve.NewEngine(reg), started: make(chan string, 16)}
	}
	return Options{
		Engine: eng,
		Tokens: reg,
		IndexOptions: func(root string) index.Options {
			return index.Options{InMemory: true}
		},
		Logf:    func(format string, args ...any) { t.Logf("server: "+format, args...) },
		Version: "test",
	}
}

// startServer runs Serve over a pipe and returns the client end; the
// session ends with the test.
func startServer(t testing.TB, opts Options) *fakeClient {
	t.Helper()
	c, stop := newFakeClient(t, opts)
	t.Cleanup(func() {
		stop()
		select {
		case <-c.done:
		case <-time.After(testTimeout):
			t.Error("Serve did not return after the connection closed")
		}
	})
	return c
}

// newFakeClient runs Serve over a pipe; stop ends the session.
func newFakeClient(t testing.TB, opts Options) (c *fakeClient, stop func()) {
	a, b := net.Pipe()
	c = &fakeClient{
		t: t, conn: a, done: make(chan error, 1), timeout: testTimeout,
		pending: map[string]chan wireMsg{}, changed: make(chan struct{}),
		handlers: map[string]serverHandler{}, nextID: 1000,
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { c.done <- Serve(ctx, b, opts) }()
	go c.readLoop()
	return c, func() {
		cancel()
		a.Close()
	}
}

// readLoop reads messages from the server.
func (c *fakeClient) readLoop() {
	r := bufio.NewReader(c.conn)
	for {
		body, err := readFrame(r)
		if err != nil {
			return
		}
		var m wireMsg
		if err := json.Unmarshal(body, &m); err != nil {
			c.t.Errorf("server sent malformed JSON: %v: %s", err, body)
			return
		}
		switch {
		case m.Method != "" && m.ID != nil: // server request
			c.record(m)
			go c.answer(m)
		case m.Method != "":
			c.record(m)
		default:
			c.mu.Lock()
			ch, ok := c.pending[string(m.ID)]
			delete(c.pending, string(m.ID))
			if !ok {
				c.responses = append(c.responses, m)
			}
			c.mu.Unlock()
			if ok {
				ch <- m
			}
		}
	}
}

// readFrame reads one Content-Length framed body.
func readFrame(r *bufio.Reader) ([]byte, error) {
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			if n, err = strconv.Atoi(v); err != nil {
				return nil, err
			}
		}
	}
	if n < 0 {
		return nil, fmt.Errorf("no Content-Length")
	}
	body := make([]byte, n)
	_, err := io.ReadFull(r, body)
	return body, err
}

func (c *fakeClient) record(m wireMsg) {
	c.mu.Lock()
	c.received = append(c.received, m)
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
}

// answer replies to a server request with the test's handler, or null.
func (c *fakeClient) answer(m wireMsg) {
	c.mu.Lock()
	h := c.handlers[m.Method]
	c.mu.Unlock()
	var result any
	var e *wireError
	if h != nil {
		result, e = h(m.Params)
	}
	out := map[string]any{"jsonrpc": "2.0", "id": m.ID}
	if e != nil {
		out["error"] = e
	} else {
		out["result"] = result
	}
	c.write(out)
}

// handle sets the answer to a server request method.
func (c *fakeClient) handle(method string, h serverHandler) {
	c.mu.Lock()
	c.handlers[method] = h
	c.mu.Unlock()
}

// write sends one framed message.
func (c *fakeClient) write(v any) {
	c.t.Helper()
	body, err := json.Marshal(v)
	if err != nil {
		c.t.Fatalf("marshal: %v", err)
	}
	c.writeRaw(body)
}

func (c *fakeClient) writeRaw(body []byte) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.conn.SetWriteDeadline(time.Now().Add(testTimeout))
	if _, err := fmt.Fprintf(c.conn, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		c.t.Errorf("write to server: %v", err)
	}
}

// noParams, passed as params, leaves the params member out.
type noParamsT struct{}

var noParams = noParamsT{}

// message builds a request (id non-nil) or notification.
func message(id any, method string, params any) map[string]any {
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if id != nil {
		m["id"] = id
	}
	if _, ok := params.(noParamsT); !ok {
		m["params"] = params
	}
	return m
}

// send sends a request with the given id and returns a channel for its
// response.
func (c *fakeClient) send(id any, method string, params any) <-chan wireMsg {
	c.t.Helper()
	raw, err := json.Marshal(id)
	if err != nil {
		c.t.Fatal(err)
	}
	ch := make(chan wireMsg, 1)
	c.mu.Lock()
	c.pending[string(raw)] = ch
	c.mu.Unlock()
	c.write(message(id, method, params))
	return ch
}

// call sends a request with a fresh id and waits for the response.
func (c *fakeClient) call(method string, params any) wireMsg {
	c.t.Helper()
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.mu.Unlock()
	return c.wait(c.send(id, method, params), method)
}

// wait waits for a response.
func (c *fakeClient) wait(ch <-chan wireMsg, what string) wireMsg {
	c.t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(c.timeout):
		c.t.Fatalf("no response to %s after %v", what, c.timeout)
	}
	return wireMsg{}
}

// notify sends a notification.
func (c *fakeClient) notify(method string, params any) {
	c.t.Helper()
	c.write(message(nil, method, params))
}

// waitFor waits until the server has sent a message (notification or
// request) with method for which pred holds, and returns it. Messages are
// searched from the start of the session.
func (c *fakeClient) waitFor(method string, pred func(params json.RawMessage) bool) wireMsg {
	c.t.Helper()
	deadline := time.After(c.timeout)
	for {
		c.mu.Lock()
		for _, m := range c.received {
			if m.Method == method && (pred == nil || pred(m.Params)) {
				c.mu.Unlock()
				return m
			}
		}
		ch := c.changed
		c.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			c.t.Fatalf("the server sent no %s (matching) within %v", method, c.timeout)
		}
	}
}

// count counts received messages with method.
func (c *fakeClient) count(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, m := range c.received {
		if m.Method == method {
			n++
		}
	}
	return n
}

// serveResult waits for Serve to return.
func (c *fakeClient) serveResult() error {
	c.t.Helper()
	select {
	case err := <-c.done:
		c.done <- err // for the cleanup
		return err
	case <-time.After(c.timeout):
		c.t.Fatal("Serve did not return")
	}
	return nil
}

// mustResult checks that a response is a success and decodes its result.
func mustResult[T any](t testing.TB, m wireMsg) T {
	t.Helper()
	var v T
	if m.Error != nil {
		t.Fatalf("error %d: %s", m.Error.Code, m.Error.Message)
	}
	if err := json.Unmarshal(m.Result, &v); err != nil {
		t.Fatalf("decode result: %v: %s", err, m.Result)
	}
	return v
}

// mustError checks that a response is an error with code.
func mustError(t *testing.T, m wireMsg, code int) *wireError {
	t.Helper()
	if m.Error == nil {
		t.Fatalf("want error %d, got result %.300s", code, m.Result)
	}
	if m.Error.Code != code {
		t.Fatalf("want error %d, got %d: %s", code, m.Error.Code, m.Error.Message)
	}
	return m.Error
}

// testEngine wraps the real engine: query "PANIC" panics, query "BLOCK"
// reports on started and blocks until its context is cancelled.
type testEngine struct {
	Engine
	started chan string
}

func (e *testEngine) AssemblePlan(ctx context.Context, snap *index.Snapshot, p *retrieve.Plan) (*retrieve.Response, error) {
	switch p.Request().Query {
	case "PANIC":
		panic("test panic")
	case "BLOCK":
		e.started <- p.Request().Query
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return e.Engine.AssemblePlan(ctx, snap, p)
}

// writeTree writes files (slash path → content) under a new temporary
// directory and returns it.
func writeTree(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// fixture is the small workspace most tests index.
var fixture = map[string]string{
	"go.mod": "module example.com/ws\n\ngo 1.22\n",
	"ranges/stitch.go": `package ranges

// Stitch joins nearby line ranges of one file when the gap between them
// costs fewer tokens than a second part header.
func Stitch(rs []Range, gap int) []Range {
	var out []Range
	for _, r := range rs {
		if n := len(out); n > 0 && r.Start-out[n-1].End <= gap {
			out[n-1].End = r.End
			continue
		}
		out = append(out, r)
	}
	return out
}
`,
	"ranges/range.go": `package ranges

// Range is a 1-based inclusive line range.
type Range struct{ Start, End int }
`,
	"budget/pack.go": `package budget

// Pack admits parts in score order while they fit the token budget.
func Pack(parts []int, budget int) []int {
	var out []int
	used := 0
	for _, p := range parts {
		if used+p <= budget {
			out = append(out, p)
			used += p
		}
	}
	return out
}
`,
	"docs/notes.md": "# Notes\n\nThe packer keeps the context within the budget.\n",
}

// initialize runs initialize (with the given extra params) and
// initialized, and returns the result.
func (c *fakeClient) initialize(params map[string]any) InitializeResult {
	c.t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	if _, ok := params["capabilities"]; !ok {
		params["capabilities"] = map[string]any{}
	}
	res := mustResult[InitializeResult](c.t, c.call(methodInitialize, params))
	c.notify(methodInitialized, map[string]any{})
	return res
}

// newEnv starts a server on a fixture workspace (files, or the default
// fixture) and initializes it with rootUri and the given capabilities.
func newEnv(t *testing.T, opts Options, files map[string]string, caps map[string]any) *testEnv {
	t.Helper()
	if files == nil {
		files = fixture
	}
	root := writeTree(t, files)
	c := startServer(t, opts)
	params := map[string]any{"rootUri": pathToURI(root), "processId": os.Getpid()}
	if caps != nil {
		params["capabilities"] = caps
	}
	c.initialize(params)
	return &testEnv{fakeClient: c, root: root}
}

// uri returns the URI of a file of the first folder.
func (e *testEnv) uri(rel string) string {
	return pathToURI(filepath.Join(e.root, filepath.FromSlash(rel)))
}

// assemble sends context/assemble and decodes the result.
func (e *testEnv) assemble(params any) assembleResultJSON {
	e.t.Helper()
	return mustResult[assembleResultJSON](e.t, e.call(methodContextAssemble, params))
}

// assembleResultJSON is the decoded shape of context/assemble's result.
type assembleResultJSON struct {
	Parts []struct {
		ID      string          `json:"id"`
		URI     string          `json:"uri"`
		Path    string          `json:"path"`
		Text    string          `json:"text"`
		Ranges  json.RawMessage `json:"ranges"`
		Range   Range           `json:"range"`
		Handles []string        `json:"handles"`
	} `json:"parts"`
	Rendered string `json:"rendered"`
	Stats    struct {
		TotalTokens   int    `json:"totalTokens"`
		MaxTokens     int    `json:"maxTokens"`
		IndexState    string `json:"indexState"`
		IndexComplete bool   `json:"indexComplete"`
		Note          string `json:"note"`
	} `json:"stats"`
	Omitted []struct {
		Handle string `json:"handle"`
		Path   string `json:"path"`
	} `json:"omitted"`
	Timing *struct {
		ElapsedMs float64 `json:"elapsedMs"`
	} `json:"timing"`
	FromHeldState *bool `json:"fromHeldState"`
}

// hasText reports whether some part's text contains s.
func (r assembleResultJSON) hasText(s string) bool {
	for _, p := range r.Parts {
		if strings.Contains(p.Text, s) {
			return true
		}
	}
	return false
}

// paths lists the parts' paths.
func (r assembleResultJSON) paths() []string {
	var out []string
	for _, p := range r.Parts {
		out = append(out, p.Path)
	}
	return out
}

// eventually retries f until it returns true or the test times out.
func eventually(t *testing.T, what string, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for !f() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not true after %v", what, testTimeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
