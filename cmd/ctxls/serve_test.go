package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// frame writes one LSP message.
func frame(w io.Writer, body string) error {
	_, err := fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(body), body)
	return err
}

// readFrame reads one LSP message body.
func readFrame(r *bufio.Reader) (string, error) {
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return "", err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	buf := make([]byte, n)
	_, err := io.ReadFull(r, buf)
	return string(buf), err
}

// session runs runServe on pipes, sends msgs (waiting for a response
// after each request) and returns the exit status.
func session(t *testing.T, args []string, msgs ...string) int {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr syncBuffer
	rc := make(chan int, 1)
	go func() {
		rc <- runServe(context.Background(), args, inR, outW, &stderr)
		outW.Close()
	}()
	r := bufio.NewReader(outR)
	go func() {
		for _, m := range msgs {
			if err := frame(inW, m); err != nil {
				return
			}
		}
	}()
	// Drain the server's output until it ends.
	go func() {
		for {
			if _, err := readFrame(r); err != nil {
				return
			}
		}
	}()
	select {
	case code := <-rc:
		inW.Close()
		return code
	case <-time.After(20 * time.Second):
		t.Fatalf("runServe did not return; stderr:\n%s", stderr.String())
	}
	return -1
}

func TestServeExitStatus(t *testing.T) {
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}`
	initialized := `{"jsonrpc":"2.0","method":"initialized","params":{}}`
	shutdown := `{"jsonrpc":"2.0","id":1,"method":"shutdown","params":null}`
	exit := `{"jsonrpc":"2.0","method":"exit","params":null}`
	if code := session(t, nil, init, initialized, shutdown, exit); code != 0 {
		t.Errorf("shutdown+exit: status %d, want 0", code)
	}
	if code := session(t, []string{"--stdio"}, init, initialized, exit); code != 1 {
		t.Errorf("exit without shutdown: status %d, want 1", code)
	}
	if code := session(t, []string{"--bogus"}); code != 2 {
		t.Errorf("bad flag: status %d, want 2", code)
	}
}

// With --listen, each connection is a session of its own.
func TestServeTCP(t *testing.T) {
	f := newFace(t)
	addr, _, stop := f.start(t, "--listen", "127.0.0.1:0")
	for i := 0; i < 2; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(c)
		frame(c, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"capabilities":{},"initializationOptions":{"token":%q}}}`, 1<<40, f.token))
		resp, err := readFrame(r)
		if err != nil || !strings.Contains(resp, `"id":1099511627776`) || !strings.Contains(resp, `"contextAssemble"`) {
			t.Fatalf("initialize over TCP: %v %s", err, resp)
		}
		frame(c, `{"jsonrpc":"2.0","id":"s","method":"shutdown"}`)
		if resp, err := readFrame(r); err != nil || !strings.Contains(resp, `"id":"s"`) {
			t.Fatalf("shutdown over TCP: %v %s", err, resp)
		}
		frame(c, `{"jsonrpc":"2.0","method":"exit"}`)
		c.Close()
	}
	if code := stop(); code != 0 {
		t.Errorf("listener status %d", code)
	}
}

// syncBuffer is a strings.Builder safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
