package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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

// ReadObject implements jsonrpc2.ObjectStream.
func (s *frameStream) ReadObject(v any) error {
	return (jsonrpc2.VSCodeObjectCodec{}).ReadObject(s.r, v)
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
