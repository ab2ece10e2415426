package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The limits and deadlines of `ctxls serve --listen`, against the real
// binary (this test binary run as ctxls): what a connection that has not
// presented the token can make the server hold, and for how long.

// limServer is a `ctxls serve --listen` child process.
type limServer struct {
	face   *face
	addr   string
	pid    int
	stderr *syncBuffer
}

// limStart starts `ctxls serve --listen 127.0.0.1:0` on a new face with
// the extra environment variables env, and stops it with the test.
func limStart(t *testing.T, env ...string) *limServer {
	t.Helper()
	f := newFace(t)
	args := append([]string{"serve", "--listen", "127.0.0.1:0"}, f.args()...)
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), runAsMain+"=1"), env...)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(faceTimeout):
			cmd.Process.Kill()
			<-exited
			t.Errorf("ctxls serve --listen did not stop on an interrupt; stderr:\n%s", stderr.String())
		}
	})
	listening := regexp.MustCompile(`listening on (\S+)`)
	deadline := time.Now().Add(faceTimeout)
	for time.Now().Before(deadline) {
		if m := listening.FindStringSubmatch(stderr.String()); m != nil {
			return &limServer{face: f, addr: m[1], pid: cmd.Process.Pid, stderr: stderr}
		}
		select {
		case <-exited:
			t.Fatalf("ctxls serve --listen exited before listening:\n%s", stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("ctxls serve --listen did not listen:\n%s", stderr.String())
	return nil
}

// limRSS is the resident set size of process pid, in bytes.
func limRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc/PID/status to measure memory: %v", err)
	}
	m := regexp.MustCompile(`(?m)^VmRSS:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no VmRSS in /proc/%d/status", pid)
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return kb << 10
}

// limDial connects to the server without the test's usual deadline.
func limDial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// limWaitClosed reads (and drops) what the server sends on c until it
// closes the connection, for at most within; it returns what was read, or
// fails the test (it may run on any goroutine).
func limWaitClosed(t *testing.T, c net.Conn, within time.Duration, what string) (got string, closed bool) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(within))
	var b strings.Builder
	_, err := io.Copy(&b, c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Errorf("%s: still open after %v", what, within)
		return b.String(), false
	}
	return b.String(), true
}

// limStaysOpen checks that the server does not close c for d, reading
// (and dropping) the whole frames it sends meanwhile from r, c's reader.
func limStaysOpen(t *testing.T, c net.Conn, r *bufio.Reader, d time.Duration, what string) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(d))
	defer c.SetReadDeadline(time.Time{})
	for {
		_, err := readFrame(r)
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			return
		}
		if err != nil {
			t.Fatalf("%s: closed (%v), want it left open", what, err)
		}
	}
}

// limWaitLog waits until the server's log holds want n times.
func limWaitLog(t *testing.T, s *limServer, want string, n int) {
	t.Helper()
	deadline := time.Now().Add(faceTimeout)
	for strings.Count(s.stderr.String(), want) < n {
		if time.Now().After(deadline) {
			t.Fatalf("want %d log lines with %q:\n%s", n, want, s.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// limInit sends initialize with the face's token on c and returns a
// client for it.
func limInit(t *testing.T, s *limServer, c net.Conn) *lspClient {
	t.Helper()
	cl := &lspClient{t: t, conn: c, r: bufio.NewReader(c)}
	c.SetDeadline(time.Now().Add(faceTimeout))
	if m := cl.call("initialize", initParams(fileURI(s.face.root), map[string]any{"token": s.face.token})); m.Error != nil {
		t.Fatalf("initialize: %s", m.Error.Message)
	}
	cl.notify("initialized", map[string]any{})
	c.SetDeadline(time.Time{})
	return cl
}

// TestServeListenHugeFrameBeforeToken: eight connections that announce
// 64 MiB bodies before presenting the token, and send all but the last
// byte, are closed at the header; the server's memory does not grow by
// what they announce (it grew by 512 MiB, and they stayed open).
func TestServeListenHugeFrameBeforeToken(t *testing.T) {
	s := limStart(t)
	before := limRSS(t, s.pid)
	const conns, announced = 8, 64 << 20
	var wg sync.WaitGroup
	for i := range conns {
		c := limDial(t, s.addr)
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.SetWriteDeadline(time.Now().Add(faceTimeout))
			fmt.Fprintf(c, "Content-Length: %d\r\n\r\n", announced)
			chunk := make([]byte, 1<<20)
			for sent := 0; sent < announced-1; sent += len(chunk) {
				if _, err := c.Write(chunk[:min(len(chunk), announced-1-sent)]); err != nil {
					break // closed by the server
				}
			}
			limWaitClosed(t, c, 10*time.Second, fmt.Sprintf("connection %d announcing %d bytes", i, announced))
		}()
	}
	wg.Wait()
	after := limRSS(t, s.pid)
	if t.Failed() {
		t.Logf("RSS %d MiB before, %d MiB after", before>>20, after>>20)
		t.FailNow()
	}
	t.Logf("RSS %d MiB before, %d MiB after %d connections announcing %d MiB each", before>>20, after>>20, conns, announced>>20)
	if growth := after - before; growth > 64<<20 {
		t.Errorf("RSS grew by %d MiB for %d connections announcing %d MiB each, want well under the %d MiB announced",
			growth>>20, conns, announced>>20, conns*announced>>20)
	}
	limWaitLog(t, s, "Content-Length 67108864 is over the limit of 65536 bytes for a client that has not sent initialize with the token", conns)
	// The server still serves a client with the token.
	cl := limInit(t, s, limDial(t, s.addr))
	if m := cl.call("shutdown", nil); m.Error != nil {
		t.Errorf("shutdown: %s", m.Error.Message)
	}
}

// TestServeListenAuthDeadline: a connection that does not send initialize
// with the token within $CTXLS_AUTH_DEADLINE — silent, or dripping a
// header a byte at a time — is closed then; one that did stays open while
// idle far longer (an editor idles for hours), and is answered after.
func TestServeListenAuthDeadline(t *testing.T) {
	s := limStart(t, envAuthDeadline+"=1s", envReadDeadline+"=1s")
	authed := limInit(t, s, limDial(t, s.addr))

	dialed := time.Now()
	silent := limDial(t, s.addr)
	drip := limDial(t, s.addr)
	stopDrip := make(chan struct{})
	defer close(stopDrip)
	go func() {
		for _, b := range []byte("Content-Length: 100\r\n\r\n{") {
			select {
			case <-stopDrip:
				return
			case <-time.After(100 * time.Millisecond):
			}
			if _, err := drip.Write([]byte{b}); err != nil {
				return
			}
		}
	}()
	for _, c := range []struct {
		conn net.Conn
		what string
	}{{silent, "a connection that sends nothing"}, {drip, "a connection dripping a frame"}} {
		if _, closed := limWaitClosed(t, c.conn, 8*time.Second, c.what); !closed {
			t.FailNow()
		}
		if after := time.Since(dialed); after < 900*time.Millisecond {
			t.Errorf("%s: closed after %v, before the 1s deadline", c.what, after)
		}
	}
	limWaitLog(t, s, "no initialize with the token within 1s", 2)

	// Idle past both deadlines, then answered.
	limStaysOpen(t, authed.conn, authed.r, 2500*time.Millisecond, "an idle connection with the token")
	authed.conn.SetDeadline(time.Now().Add(faceTimeout))
	if m := authed.call("shutdown", nil); m.Error != nil {
		t.Errorf("shutdown after idling: %s", m.Error.Message)
	}
}

// TestServeListenStalledFrame: after initialize with the token, a frame
// whose body stops arriving is abandoned after $CTXLS_READ_DEADLINE and
// the connection closed, the client told which limit and the log naming
// it; the time between frames is not limited.
func TestServeListenStalledFrame(t *testing.T) {
	s := limStart(t, envReadDeadline+"=1s")
	c := limDial(t, s.addr)
	cl := limInit(t, s, c)
	limStaysOpen(t, c, cl.r, 1500*time.Millisecond, "an idle connection with the token")
	// A large frame is read once authenticated (over the 64 KiB of before).
	big := strings.Repeat("x", 200<<10)
	c.SetDeadline(time.Now().Add(faceTimeout))
	cl.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": fileURI(s.face.root + "/big.go"), "languageId": "go", "version": 1, "text": "package big\n// " + big + "\n"}})
	if m := cl.call("workspace/executeCommand", map[string]any{"command": "none"}); m.ID == nil {
		t.Fatal("no answer after a 200 KiB didOpen")
	}
	c.SetDeadline(time.Time{})

	fmt.Fprintf(c, "Content-Length: 1000\r\n\r\n{\"jsonrpc\":\"2.0\",")
	sent := time.Now()
	got, closed := limWaitClosed(t, c, 8*time.Second, "a connection with a stalled frame")
	if !closed {
		t.FailNow()
	}
	if after := time.Since(sent); after < 900*time.Millisecond {
		t.Errorf("closed after %v, before the 1s deadline", after)
	}
	if !strings.Contains(got, "a frame did not arrive within") {
		t.Errorf("the client was not told the limit; it read %q", got)
	}
	limWaitLog(t, s, "a frame did not arrive within", 1)
}

// TestServeListenUnauthenticatedCap: at most 64 connections wait to
// present the token at a time; the next is closed at once with a log
// line, while those with the token do not count and keep being served.
func TestServeListenUnauthenticatedCap(t *testing.T) {
	s := limStart(t, envAuthDeadline+"=2m")
	// It took a slot until it presented the token.
	authed := limInit(t, s, limDial(t, s.addr))
	waiting := make([]net.Conn, 64)
	for i := range waiting {
		waiting[i] = limDial(t, s.addr)
	}
	// Accepted in order: once the 65th session has started, the 64
	// slots are taken.
	limWaitLog(t, s, ": start", 65)
	extra := limDial(t, s.addr)
	if _, closed := limWaitClosed(t, extra, 5*time.Second, "the 65th connection without the token"); !closed {
		t.FailNow()
	}
	limWaitLog(t, s, "64 connections are already waiting to send initialize with the token (the limit)", 1)
	limStaysOpen(t, waiting[63], bufio.NewReader(waiting[63]), 200*time.Millisecond, "the 64th connection without the token")
	authed.conn.SetDeadline(time.Now().Add(faceTimeout))
	if m := authed.call("shutdown", nil); m.Error != nil {
		t.Errorf("shutdown: %s", m.Error.Message)
	}
	// A slot frees when its connection ends.
	waiting[0].Close()
	limWaitLog(t, s, "lsp: connection closed before exit", 1)
	next := limDial(t, s.addr)
	limStaysOpen(t, next, bufio.NewReader(next), 300*time.Millisecond, "a connection after a slot freed")
}
