package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The limits of a network face's session (Options.Access): frame sizes
// before and after the token, the authentication timeout, the frame
// timeout.

// limitsConn is a client end of a session served over a pipe: it sends
// raw frames and collects the server's answers by id.
type limitsConn struct {
	t       *testing.T
	conn    net.Conn
	answers chan map[string]any
	done    chan error // Serve's result
}

// limitsServe serves one session under opts over a pipe.
func limitsServe(t *testing.T, opts Options) *limitsConn {
	t.Helper()
	a, b := net.Pipe()
	c := &limitsConn{t: t, conn: a, answers: make(chan map[string]any, 100), done: make(chan error, 1)}
	go func() { c.done <- Serve(context.Background(), b, opts) }()
	go func() {
		r := bufio.NewReader(a)
		for {
			var m map[string]any
			if err := readTestFrame(r, &m); err != nil {
				return
			}
			if _, ok := m["id"]; ok && m["method"] == nil {
				c.answers <- m
			}
		}
	}()
	t.Cleanup(func() { a.Close() })
	return c
}

// readTestFrame reads one Content-Length frame into v.
func readTestFrame(r *bufio.Reader, v any) error {
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		fmt.Sscanf(line, "Content-Length: %d", &n)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return err
	}
	return json.Unmarshal(body, v)
}

// send writes one message as a frame.
func (c *limitsConn) send(msg map[string]any) {
	c.t.Helper()
	msg["jsonrpc"] = "2.0"
	b, err := json.Marshal(msg)
	if err != nil {
		c.t.Fatal(err)
	}
	c.conn.SetWriteDeadline(time.Now().Add(testTimeout))
	if _, err := fmt.Fprintf(c.conn, "Content-Length: %d\r\n\r\n%s", len(b), b); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// answer waits for the answer to request id.
func (c *limitsConn) answer(id int) map[string]any {
	c.t.Helper()
	for {
		select {
		case m := <-c.answers:
			if m["id"] == float64(id) {
				return m
			}
		case err := <-c.done:
			c.t.Fatalf("the session ended before answering %d: %v", id, err)
		case <-time.After(testTimeout):
			c.t.Fatalf("no answer to %d", id)
		}
	}
}

// ended waits for Serve's result.
func (c *limitsConn) ended(within time.Duration) error {
	c.t.Helper()
	select {
	case err := <-c.done:
		return err
	case <-time.After(within):
		c.t.Fatalf("the session still runs after %v", within)
	}
	return nil
}

// initialize sends initialize with the token and waits for its answer.
func (c *limitsConn) initialize(root string) {
	c.t.Helper()
	c.send(map[string]any{"id": 1, "method": "initialize", "params": map[string]any{
		"rootUri": pathToURI(root), "capabilities": map[string]any{}, "initializationOptions": map[string]any{"token": testToken}}})
	if m := c.answer(1); m["error"] != nil {
		c.t.Fatalf("initialize: %v", m["error"])
	}
	c.send(map[string]any{"method": "initialized", "params": map[string]any{}})
}

// A frame's body buffer grows with the bytes that arrive: a frame that
// announces 64 MiB and sends 1 KiB costs about 1 KiB, not 64 MiB.
func TestLimitsBodyGrowsWithBytes(t *testing.T) {
	in := fmt.Sprintf("Content-Length: %d\r\n\r\n%s", MaxMessageBytes, strings.Repeat("x", 1024))
	var stats runtime.MemStats
	runtime.ReadMemStats(&stats)
	before := stats.TotalAlloc
	s := newFrameStream(rwBuffers{strings.NewReader(in), &bytes.Buffer{}})
	var v any
	err := s.ReadObject(&v)
	runtime.ReadMemStats(&stats)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("err %v, want an unexpected EOF", err)
	}
	if alloc := stats.TotalAlloc - before; alloc > 1<<20 {
		t.Errorf("%d bytes allocated for a frame that sent 1 KiB", alloc)
	}
}

// Before the token a frame may announce at most 64 KiB: one more byte
// ends the session with an ErrLimit naming the limit, before any body is
// read; after it, a frame of 1 MiB is read.
func TestLimitsUnauthenticatedFrame(t *testing.T) {
	root := writeTree(t, fixture)
	c := limitsServe(t, accessOptions(t))
	fmt.Fprintf(c.conn, "Content-Length: %d\r\n\r\n", MaxUnauthenticatedMessageBytes+1)
	err := c.ended(testTimeout)
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "over the limit of 65536 bytes for a client that has not sent initialize with the token") {
		t.Errorf("Serve returned %v, want an ErrLimit naming 65536 bytes", err)
	}

	admitted := atomic.Int32{}
	opts := accessOptions(t)
	opts.Access.Admitted = func() { admitted.Add(1) }
	c = limitsServe(t, opts)
	c.initialize(root)
	c.send(map[string]any{"method": "textDocument/didOpen", "params": map[string]any{"textDocument": map[string]any{
		"uri": pathToURI(root + "/big.go"), "languageId": "go", "version": 1, "text": "package big\n// " + strings.Repeat("x", 1<<20) + "\n"}}})
	c.send(map[string]any{"id": 2, "method": "shutdown"})
	if m := c.answer(2); m["error"] != nil {
		t.Errorf("shutdown after a 1 MiB didOpen: %v", m["error"])
	}
	if n := admitted.Load(); n != 1 {
		t.Errorf("Access.Admitted called %d times, want once", n)
	}
}

// A client that sends no initialize with the token within AuthTimeout is
// closed, with an ErrLimit naming the timeout; one that did is served
// past it, idle between frames for longer than FrameTimeout; a frame that
// stops arriving is abandoned after FrameTimeout and the client told.
func TestLimitsTimeouts(t *testing.T) {
	root := writeTree(t, fixture)
	opts := accessOptions(t)
	opts.Access.AuthTimeout = 200 * time.Millisecond
	opts.Access.FrameTimeout = 200 * time.Millisecond

	c := limitsServe(t, opts)
	err := c.ended(testTimeout)
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "no initialize with the token within 200ms") {
		t.Errorf("a silent client: Serve returned %v, want an ErrLimit naming the timeout", err)
	}

	c = limitsServe(t, opts)
	c.initialize(root)
	time.Sleep(600 * time.Millisecond)
	c.send(map[string]any{"id": 2, "method": "workspace/executeCommand", "params": map[string]any{"command": "none"}})
	c.answer(2)
	c.conn.SetWriteDeadline(time.Now().Add(testTimeout))
	fmt.Fprintf(c.conn, "Content-Length: 100\r\n\r\n{")
	start := time.Now()
	err = c.ended(testTimeout)
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "a frame did not arrive within") {
		t.Errorf("a stalled frame: Serve returned %v, want an ErrLimit naming the frame timeout", err)
	}
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Errorf("a stalled frame was abandoned after %v, before the timeout", d)
	}
}
