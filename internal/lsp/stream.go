package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// frameStream is the session's jsonrpc2.ObjectStream: the LSP base
// protocol (Content-Length framed JSON, through jsonrpc2's VS Code codec)
// plus writeFrame, which sends a message the session encoded itself.
//
// Why: jsonrpc2.Conn.Reply marshals a result to a json.RawMessage, then
// marshals the response around it, then the stream marshals that again;
// encoding/json re-validates and compacts an embedded RawMessage on every
// pass, byte by byte. For an 8 000-token context/assemble answer
// (≈ 40 KB of JSON) those passes cost about 2 ms, a fifth of the request;
// replies (see session.reply) are encoded once instead.
type frameStream struct {
	conn io.Closer
	r    *bufio.Reader

	// maxBody is the largest body a frame may announce: MaxMessageBytes,
	// or MaxUnauthenticatedMessageBytes on a network face until the
	// client has presented the token (see limitFrames, admitFrames).
	maxBody atomic.Int64
	// deadlines, when set (a network connection), bound how long a frame
	// takes to arrive once its first byte has: frameTimeout, plus a second
	// per MiB the frame announces. Between frames there is no deadline.
	deadlines    readDeadliner
	frameTimeout time.Duration
	// limit is the ErrLimit that ended reading, if one did.
	limit atomic.Pointer[error]

	mu sync.Mutex // one frame at a time on w
	w  *bufio.Writer
}

// readDeadliner is a connection whose reads can be given a deadline
// (net.Conn).
type readDeadliner interface {
	SetReadDeadline(t time.Time) error
}

func newFrameStream(conn io.ReadWriteCloser) *frameStream {
	s := &frameStream{conn: conn, r: bufio.NewReader(conn), w: bufio.NewWriter(conn)}
	s.maxBody.Store(MaxMessageBytes)
	return s
}

// limitFrames puts the stream under the limits of a client that has not
// authenticated yet: frames of at most MaxUnauthenticatedMessageBytes,
// and, when the connection takes read deadlines, frameTimeout for a frame
// to arrive once it has started.
func (s *frameStream) limitFrames(conn io.Reader, frameTimeout time.Duration) {
	s.maxBody.Store(MaxUnauthenticatedMessageBytes)
	if d, ok := conn.(readDeadliner); ok && frameTimeout > 0 {
		s.deadlines, s.frameTimeout = d, frameTimeout
	}
}

// admitFrames lifts the frame size limit to MaxMessageBytes once the
// client has presented the token; the frame deadline stays.
func (s *frameStream) admitFrames() { s.maxBody.Store(MaxMessageBytes) }

// WriteObject implements jsonrpc2.ObjectStream.
func (s *frameStream) WriteObject(obj any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := (jsonrpc2.VSCodeObjectCodec{}).WriteObject(s.w, obj); err != nil {
		return err
	}
	return s.w.Flush()
}

// MaxMessageBytes is the largest message body the server reads. A frame
// that announces more is refused (the connection closes) before anything
// is allocated for it: a 10 MB file in a didOpen is 10 MB of JSON, and
// 64 MiB leaves room for the largest indexable buffers (1 MiB by default)
// many times over. Below the limit the body's buffer grows with the bytes
// that arrive, never to the announced size up front.
const MaxMessageBytes = 64 << 20

// MaxUnauthenticatedMessageBytes is the largest message body read from a
// network client before it has sent initialize with the token: the only
// message it may send then is initialize, whose params — the client's
// capabilities, its workspace folders, its settings — are a few KiB (VS
// Code's client, which lists nearly every capability of LSP 3.17, sends
// on the order of 10 KiB; Neovim and eglot less); 64 KiB leaves a margin
// of several times that. A client that has not proved it holds the token
// cannot make the server hold more than this per connection.
const MaxUnauthenticatedMessageBytes = 64 << 10

// frameBytesPerSecond is the slowest rate a frame's body may arrive at
// over a network face, on top of the frame timeout: a 64 MiB didOpen over
// a slow link (an SSH tunnel) gets 64 s more.
const frameBytesPerSecond = 1 << 20

// Header limits: a header line longer than maxHeaderLine, or more than
// maxHeaders lines, is a broken stream.
const (
	maxHeaderLine = 4096
	maxHeaders    = 32
)

// ReadObject implements jsonrpc2.ObjectStream: it reads the next frame
// into v. A framed body that is not JSON is answered with a Parse error
// (-32700, id null) and one that is JSON but not a message with Invalid
// Request (-32600), and reading goes on with the next frame, as JSON-RPC
// 2.0 asks; only a broken frame (bad headers, the stream ending) or one
// past a limit (a Content-Length over the stream's limit, a frame not
// arriving in time: ErrLimit, which the client is told before the
// connection closes) ends the connection.
func (s *frameStream) ReadObject(v any) error {
	for {
		body, err := s.readFrame()
		if err != nil {
			if errors.Is(err, ErrLimit) {
				s.limit.Store(&err)
				s.tellLimit(err)
			}
			return err
		}
		err = json.Unmarshal(body, v)
		if err == nil {
			return nil
		}
		code, msg := int64(jsonrpc2.CodeInvalidRequest), "invalid request: "+err.Error()
		if !json.Valid(body) {
			code, msg = jsonrpc2.CodeParseError, "parse error: the message body is not JSON"
		}
		reply, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}})
		if err := s.writeFrame(reply); err != nil {
			return err
		}
	}
}

// readFrame reads one frame's headers and body. Under read deadlines
// (limitFrames) it waits for the frame's first byte without one — an
// editor's connection is idle for hours — and from there gives the frame
// frameTimeout for its headers and, once its Content-Length is known, a
// second more per MiB of body; a frame that does not arrive in time ends
// the connection with an ErrLimit.
func (s *frameStream) readFrame() ([]byte, error) {
	var start time.Time
	allowed := s.frameTimeout
	if s.deadlines != nil {
		if _, err := s.r.Peek(1); err != nil {
			return nil, err
		}
		start = time.Now()
		s.deadlines.SetReadDeadline(start.Add(allowed))
		defer s.deadlines.SetReadDeadline(time.Time{})
	}
	body, err := s.readFrameBody(start, &allowed)
	if err != nil && s.deadlines != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		return nil, fmt.Errorf("%w: a frame did not arrive within %v of its first byte (the frame timeout of %v plus a second per MiB of body)",
			ErrLimit, allowed, s.frameTimeout)
	}
	return body, err
}

// readFrameBody reads a frame's headers and body; start is when its
// first byte arrived (zero without read deadlines), and *allowed the time
// the frame has from there, which readFrameBody extends by the body's
// size once it is known.
func (s *frameStream) readFrameBody(start time.Time, allowed *time.Duration) ([]byte, error) {
	n := int64(-1)
	for i := 0; ; i++ {
		if i == maxHeaders {
			return nil, fmt.Errorf("more than %d header lines", maxHeaders)
		}
		line, err := s.readLine()
		if err != nil {
			return nil, err
		}
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("malformed header line %q", line)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err = strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("bad Content-Length %q", strings.TrimSpace(value))
			}
		}
	}
	switch limit := s.maxBody.Load(); {
	case n < 0:
		return nil, errors.New("no Content-Length header")
	case n > limit && limit == MaxUnauthenticatedMessageBytes:
		return nil, fmt.Errorf("%w: Content-Length %d is over the limit of %d bytes for a client that has not sent initialize with the token",
			ErrLimit, n, limit)
	case n > limit:
		return nil, fmt.Errorf("%w: Content-Length %d is over the limit of %d bytes", ErrLimit, n, limit)
	}
	if s.deadlines != nil {
		*allowed += time.Duration(n/frameBytesPerSecond) * time.Second
		s.deadlines.SetReadDeadline(start.Add(*allowed))
	}
	return readBody(s.r, n)
}

// bodyChunk is the first buffer of a frame's body; it doubles as bytes
// arrive.
const bodyChunk = 64 << 10

// readBody reads a body of n bytes into a buffer that grows with what has
// arrived (doubling from bodyChunk), so that a frame announcing a large
// body and sending little costs little.
func readBody(r io.Reader, n int64) ([]byte, error) {
	body := make([]byte, 0, min(n, bodyChunk))
	for int64(len(body)) < n {
		next := min(n, max(int64(2*len(body)), bodyChunk))
		body = slices.Grow(body, int(next)-len(body))
		if _, err := io.ReadFull(r, body[len(body):next]); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		body = body[:next]
	}
	return body, nil
}

// limitErr is the ErrLimit that ended reading, or nil.
func (s *frameStream) limitErr() error {
	if p := s.limit.Load(); p != nil {
		return *p
	}
	return nil
}

// tellLimit tells the client, as an error answer with id null, which
// limit ends its connection — at most a second of writing, and nothing
// when another frame is being written (the connection closes anyway).
func (s *frameStream) tellLimit(limit error) {
	if !s.mu.TryLock() {
		return
	}
	defer s.mu.Unlock()
	if d, ok := s.conn.(interface{ SetWriteDeadline(time.Time) error }); ok {
		d.SetWriteDeadline(time.Now().Add(time.Second))
	}
	reply, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": jsonrpc2.CodeInvalidRequest, "message": limit.Error()}})
	fmt.Fprintf(s.w, "Content-Length: %d\r\n\r\n", len(reply))
	s.w.Write(reply)
	s.w.Flush()
}

// readLine reads one header line, without its "\r\n" (a bare "\n" is
// accepted too).
func (s *frameStream) readLine() (string, error) {
	var line []byte
	for {
		chunk, isPrefix, err := s.r.ReadLine()
		if err != nil {
			return "", err
		}
		line = append(line, chunk...)
		if len(line) > maxHeaderLine {
			return "", fmt.Errorf("a header line over %d bytes", maxHeaderLine)
		}
		if !isPrefix {
			return strings.TrimSuffix(string(line), "\r"), nil
		}
	}
}

// closeWrite flushes what is buffered and closes the connection's write
// side when it has one (TCP and Unix sockets), so that the peer reads the
// end of the stream while the session can still read. It reports whether
// it could.
func (s *frameStream) closeWrite() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w.Flush()
	cw, ok := s.conn.(interface{ CloseWrite() error })
	return ok && cw.CloseWrite() == nil
}

// Close implements jsonrpc2.ObjectStream.
func (s *frameStream) Close() error { return s.conn.Close() }

// writeFrame sends body, one JSON-RPC message, as one frame.
func (s *frameStream) writeFrame(body []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := fmt.Fprintf(s.w, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
		return err
	}
	if _, err := s.w.Write(body); err != nil {
		return err
	}
	return s.w.Flush()
}

// encodeResponse encodes a successful JSON-RPC response to id, result
// encoded once (without HTML escaping: the text is code, and '<' stays
// one byte).
func encodeResponse(id jsonrpc2.ID, result any) ([]byte, error) {
	idJSON, err := id.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.WriteString(`{"jsonrpc":"2.0","id":`)
	buf.Write(idJSON)
	buf.WriteString(`,"result":`)
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(result); err != nil {
		return nil, fmt.Errorf("encode the result: %w", err)
	}
	buf.Truncate(buf.Len() - 1) // Encode's newline
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
