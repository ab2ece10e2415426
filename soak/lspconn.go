package soak

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
)

// JSON-RPC and LSP error codes the harness tells apart.
const (
	codeInvalidParams    = -32602
	codeRequestCancelled = -32800
)

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// message is any JSON-RPC message the server sends.
type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *rpcError       `json:"error,omitempty"`
}

// errConnClosed: the connection ended while a request waited.
var errConnClosed = errors.New("connection closed")

// lspConn is a client's side of one LSP connection: Content-Length framed
// JSON-RPC over a net.Conn, requests matched to answers by id on a reader
// goroutine. Requests the server sends (window/workDoneProgress/create,
// workspace/configuration, …) are answered with null.
type lspConn struct {
	c net.Conn

	wmu sync.Mutex // one frame at a time
	w   *bufio.Writer

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan *message
	closed  bool
	readErr error
	// notes counts the notifications received, by method.
	notes map[string]int
	// logErrors are window/logMessage and window/showMessage lines of
	// type Error the server sent.
	logErrors []string

	done chan struct{}
}

// dialLSP connects to a listening `ctxls serve`.
func dialLSP(addr string) (*lspConn, error) {
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	l := &lspConn{
		c: c, w: bufio.NewWriter(c),
		pending: map[int64]chan *message{}, notes: map[string]int{},
		done: make(chan struct{}),
	}
	go l.readLoop(bufio.NewReader(c))
	return l, nil
}

// call sends a request and returns its id and the channel its answer
// arrives on (closed without a value when the connection ends).
func (l *lspConn) call(method string, params any) (int64, <-chan *message, error) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return 0, nil, errConnClosed
	}
	l.nextID++
	id := l.nextID
	ch := make(chan *message, 1)
	l.pending[id] = ch
	l.mu.Unlock()
	if err := l.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		l.mu.Lock()
		delete(l.pending, id)
		l.mu.Unlock()
		return 0, nil, err
	}
	return id, ch, nil
}

// wait waits up to timeout for an answer from call.
func wait(ch <-chan *message, timeout time.Duration) (*message, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case m, ok := <-ch:
		if !ok {
			return nil, errConnClosed
		}
		return m, nil
	case <-t.C:
		return nil, fmt.Errorf("no answer within %v", timeout)
	}
}

// request sends a request and waits for its answer: the result, or the
// JSON-RPC error as *rpcError.
func (l *lspConn) request(method string, params any, timeout time.Duration) (json.RawMessage, error) {
	_, ch, err := l.call(method, params)
	if err != nil {
		return nil, err
	}
	m, err := wait(ch, timeout)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	if m.Error != nil {
		return nil, m.Error
	}
	return m.Result, nil
}

// notify sends a notification.
func (l *lspConn) notify(method string, params any) error {
	return l.write(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// write sends one framed message.
func (l *lspConn) write(msg any) error {
	body, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	l.wmu.Lock()
	defer l.wmu.Unlock()
	l.c.SetWriteDeadline(time.Now().Add(30 * time.Second))
	if _, err := fmt.Fprintf(l.w, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if _, err := l.w.Write(body); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if err := l.w.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// readLoop reads messages until the connection ends, then closes every
// pending answer channel.
func (l *lspConn) readLoop(r *bufio.Reader) {
	defer close(l.done)
	var err error
	for {
		var body []byte
		if body, err = readFrame(r); err != nil {
			break
		}
		var m message
		if err = json.Unmarshal(body, &m); err != nil {
			err = fmt.Errorf("a message that is not JSON-RPC: %w", err)
			break
		}
		switch {
		case m.Method != "" && len(m.ID) > 0: // a request from the server
			l.write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": nil})
		case m.Method != "":
			l.note(&m)
		default:
			id, perr := strconv.ParseInt(string(m.ID), 10, 64)
			l.mu.Lock()
			ch, ok := l.pending[id]
			delete(l.pending, id)
			l.mu.Unlock()
			if perr == nil && ok {
				ch <- &m
			}
		}
	}
	l.mu.Lock()
	l.closed = true
	if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
		l.readErr = err
	}
	for id, ch := range l.pending {
		close(ch)
		delete(l.pending, id)
	}
	l.mu.Unlock()
}

// note records a notification from the server.
func (l *lspConn) note(m *message) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.notes[m.Method]++
	if m.Method == "window/logMessage" || m.Method == "window/showMessage" {
		var p struct {
			Type    int    `json:"type"`
			Message string `json:"message"`
		}
		if json.Unmarshal(m.Params, &p) == nil && p.Type == 1 && len(l.logErrors) < 20 {
			l.logErrors = append(l.logErrors, p.Message)
		}
	}
}

// close closes the connection and waits for the reader.
func (l *lspConn) close() {
	l.c.Close()
	<-l.done
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
		name, value, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			if n, err = strconv.Atoi(strings.TrimSpace(value)); err != nil || n < 0 {
				return nil, fmt.Errorf("bad Content-Length %q", value)
			}
		}
	}
	if n < 0 {
		return nil, errors.New("a frame without Content-Length")
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	return body, nil
}
