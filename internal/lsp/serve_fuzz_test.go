package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/index"
	"github.com/ctxls/ctxls/internal/retrieve"
	"github.com/ctxls/ctxls/internal/tokens"
)

// fuzzToken is the token of the fuzzed sessions (the seeds send it).
const fuzzToken = "fuzz-token-0123456789abcdef"

// streamConn is a connection whose client side is a fixed byte stream,
// then the end of the stream (once hold is closed, when it is not nil);
// its answers go to out (nil: discarded).
type streamConn struct {
	r      *bytes.Reader
	hold   <-chan struct{}
	mu     sync.Mutex
	out    io.Writer
	closed bool
}

func (c *streamConn) Read(p []byte) (int, error) {
	if c.r.Len() == 0 && c.hold != nil {
		<-c.hold
	}
	return c.r.Read(p)
}
func (c *streamConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return 0, io.ErrClosedPipe
	}
	if c.out != nil {
		return c.out.Write(p)
	}
	return len(p), nil
}
func (c *streamConn) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	return nil
}

// fuzzFrame frames a body.
func fuzzFrame(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

// fuzzSeed is a whole session, as bodies separated by "\n\x00" (mode 1:
// the target frames them) or framed (mode 0: the stream as it is).
func fuzzSeed(mode byte, root string, msgs ...string) []byte {
	var sb strings.Builder
	sb.WriteByte(mode)
	for i, m := range msgs {
		m = strings.ReplaceAll(m, "ROOT", "file://"+filepath.ToSlash(root))
		if mode == 0 {
			sb.WriteString(fuzzFrame(m))
		} else {
			if i > 0 {
				sb.WriteString("\n\x00")
			}
			sb.WriteString(m)
		}
	}
	return []byte(sb.String())
}

// fuzzInit is the initialize of the fuzzed sessions.
const fuzzInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":"ROOT","capabilities":{"window":{"workDoneProgress":true},"workspace":{"configuration":true}},"initializationOptions":{"token":"` + fuzzToken + `"}}}`

// fuzzSession is a whole session: every request and notification the
// server handles ("ROOT" stands for the workspace's URI).
var fuzzSession = []string{
	fuzzInit,
	`{"jsonrpc":"2.0","method":"initialized","params":{}}`,
	`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"ROOT/ranges/stitch.go","languageId":"go","version":1,"text":"package ranges\n\nfunc Stitch() {}\n"}}}`,
	`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"ROOT/ranges/stitch.go","version":2},"contentChanges":[{"range":{"start":{"line":2,"character":5},"end":{"line":2,"character":11}},"text":"Sew"}]}}`,
	`{"jsonrpc":"2.0","id":2,"method":"context/assemble","params":{"query":"stitch ranges","budget":{"maxTokens":500}}}`,
	`{"jsonrpc":"2.0","id":3,"method":"context/assemble","params":{"focus":{"uri":"ROOT/ranges/stitch.go","position":{"line":2,"character":3}},"format":"json"}}`,
	`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":3}}`,
	`{"jsonrpc":"2.0","id":4,"method":"context/expand","params":{"handles":["ranges/stitch.go#L1-3"],"budget":{"maxTokens":300}}}`,
	`{"jsonrpc":"2.0","id":"s","method":"context/assemble","params":{"diff":"--- a/ranges/stitch.go\n+++ b/ranges/stitch.go\n@@ -1,1 +1,1 @@\n-a\n+b\n"}}`,
	`{"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":{"ctxls":{"budget":{"maxTokens":900},"format":"xml"}}}}`,
	`{"jsonrpc":"2.0","method":"workspace/didChangeWorkspaceFolders","params":{"event":{"added":[{"uri":"ROOT/ranges","name":"r"}],"removed":[]}}}`,
	`{"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":"ROOT/ranges/stitch.go"}}}`,
	`{"jsonrpc":"2.0","id":5,"method":"shutdown"}`,
	`{"jsonrpc":"2.0","method":"exit"}`,
}

// FuzzServe feeds random bytes and mutated valid sessions through the real
// stream reader and dispatcher of a session (Serve, the real engine, an
// in-memory index of a small workspace; the access policy admits only that
// workspace, so that no input can make it index anything else). Whatever
// the input, Serve returns once the stream ends — no hang — and no handler
// panics (a recovered panic is logged "panic in": a failure too).
func FuzzServe(f *testing.F) {
	root := writeTree(f, fixture)
	f.Add(fuzzSeed(1, root, fuzzSession...))
	f.Add(fuzzSeed(0, root, fuzzSession...))
	f.Add(fuzzSeed(1, root, fuzzInit, `{"jsonrpc":"2.0","id":2,"method":"context/assemble","params":{"query":5}}`, `[1,2]`, `not json`, `{"jsonrpc":"2.0","id":3,"method":"unknown"}`))
	f.Add(fuzzSeed(1, root, `{"jsonrpc":"2.0","id":1,"method":"context/assemble","params":{}}`, fuzzInit, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	f.Add([]byte("\x00Content-Length: 4000000000\r\n\r\n{"))
	f.Add([]byte("\x00Content-Length: 2\r\n\r\n{}Content-Length: x\r\n\r\n"))
	f.Add([]byte("\x01\n\x00\n\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if panics := serveStream(t, root, data, nil, nil); len(panics) > 0 {
			t.Fatalf("a handler panicked: %s", panics[0])
		}
	})
}

// serveStream runs a session of the fuzz target over data (its first byte
// the mode: odd, data holds bodies separated by "\n\x00" to be framed;
// even, the stream as it is), the answers written to out. It fails the
// test when Serve does not return after the stream ends, and returns the
// panics the handlers logged.
func serveStream(t *testing.T, root string, data []byte, out io.Writer, hold <-chan struct{}) []string {
	return serveStreamWith(t, fuzzEngine(), root, data, out, hold)
}

// fuzzEngineOnce builds the engine and its token registry once per
// process: building an encoder takes long in a coverage-instrumented fuzz
// worker, and both are shared by sessions in ctxls too.
var fuzzEngineOnce = sync.OnceValue(func() fuzzEngineT {
	reg := tokens.NewRegistry()
	for _, name := range reg.Known() {
		reg.Get(name)
	}
	return fuzzEngineT{reg: reg, eng: retrieve.NewEngine(reg)}
})

type fuzzEngineT struct {
	reg *tokens.Registry
	eng *retrieve.Engine
}

func fuzzEngine() fuzzEngineT { return fuzzEngineOnce() }

// serveStreamWith is serveStream with a given engine.
func serveStreamWith(t *testing.T, fe fuzzEngineT, root string, data []byte, out io.Writer, hold <-chan struct{}) []string {
	if len(data) == 0 {
		return nil
	}
	stream := data[1:]
	if data[0]%2 == 1 {
		var sb bytes.Buffer
		for _, body := range bytes.Split(stream, []byte("\n\x00")) {
			sb.WriteString(fuzzFrame(string(body)))
		}
		stream = sb.Bytes()
	}
	var mu sync.Mutex
	var panics []string
	opts := Options{
		Engine: fe.eng, Tokens: fe.reg, Version: "fuzz",
		IndexOptions: func(string) index.Options {
			c, _ := fe.reg.Get(index.DefaultEncoding)
			return index.Options{InMemory: true, Counters: map[string]tokens.Counter{index.DefaultEncoding: c}}
		},
		Logf: func(format string, args ...any) {
			if msg := fmt.Sprintf(format, args...); strings.Contains(msg, "panic in") {
				mu.Lock()
				panics = append(panics, msg)
				mu.Unlock()
			}
		},
		Access: &Access{Token: fuzzToken, CheckRoot: func(p string) error {
			if rel, ok := relativeTo(root, p); ok && !strings.HasPrefix(rel, "..") {
				return nil
			}
			return errors.New("outside the fuzzed workspace")
		}},
	}
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), &streamConn{r: bytes.NewReader(stream), out: out, hold: hold}, opts)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("Serve did not return 20 s after the stream ended (%d bytes)", len(stream))
	}
	mu.Lock()
	defer mu.Unlock()
	return panics
}

// The session seed of FuzzServe is served as a session (the fuzzer starts
// from real sessions, not from inputs refused at once): every request gets
// its answer, context/assemble a context of the workspace.
func TestFuzzServeSeedIsASession(t *testing.T) {
	root := writeTree(t, fixture)
	out := &answerWatch{want: []string{"1", "2", "3", "4", `"s"`}, all: make(chan struct{})}
	// Without shutdown and exit: the requests sent before them are not
	// all answered when they come at once (see docs/reliability.md).
	seed := fuzzSeed(1, root, fuzzSession[:len(fuzzSession)-2]...)
	if panics := serveStream(t, root, seed, out, out.all); len(panics) > 0 {
		t.Fatal(panics[0])
	}
	out.mu.Lock()
	defer out.mu.Unlock()
	for _, id := range out.want {
		if _, ok := out.answers[id]; !ok {
			t.Errorf("request %s got no answer; got %v", id, out.answers)
		}
	}
	if a := out.answers["2"]; !strings.Contains(a, "ranges/stitch.go") {
		t.Errorf("context/assemble answered %s", a)
	}
}

// answerWatch collects the answers a session writes (by id) and closes
// all once every id of want has one.
type answerWatch struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	want    []string
	answers map[string]string
	all     chan struct{}
	closed  bool
}

func (w *answerWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	for {
		body, err := readFrame(bufio.NewReader(bytes.NewReader(w.buf.Bytes())))
		if err != nil {
			break
		}
		n := bytes.Index(w.buf.Bytes(), body) + len(body)
		w.buf.Next(n)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(body, &m)
		if len(m.ID) > 0 && m.Method == "" {
			if w.answers == nil {
				w.answers = map[string]string{}
			}
			w.answers[string(m.ID)] = string(body)
		}
	}
	done := !w.closed
	for _, id := range w.want {
		if _, ok := w.answers[id]; !ok {
			done = false
		}
	}
	if done {
		w.closed = true
		close(w.all)
	}
	return len(p), nil
}
