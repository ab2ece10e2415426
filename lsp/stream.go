package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

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

	mu sync.Mutex // one frame at a time on w
	w  *bufio.Writer
}

func newFrameStream(conn io.ReadWriteCloser) *frameStream {
	return &frameStream{conn: conn, r: bufio.NewReader(conn), w: bufio.NewWriter(conn)}
}

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
// many times over.
const MaxMessageBytes = 64 << 20

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
// 2.0 asks; only a broken frame (bad headers, a Content-Length over
// MaxMessageBytes, the stream ending) ends the connection.
func (s *frameStream) ReadObject(v any) error {
	for {
		body, err := s.readFrame()
		if err != nil {
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

// readFrame reads one frame's headers and body.
func (s *frameStream) readFrame() ([]byte, error) {
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
	switch {
	case n < 0:
		return nil, errors.New("no Content-Length header")
	case n > MaxMessageBytes:
		return nil, fmt.Errorf("Content-Length %d is over the limit of %d bytes", n, MaxMessageBytes)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(s.r, body); err != nil {
		return nil, err
	}
	return body, nil
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
