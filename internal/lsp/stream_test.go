package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"
)

// TestEncodeResponse: replies encoded by the session decode as the
// jsonrpc2 library's own responses do, for every id form and result.
func TestEncodeResponse(t *testing.T) {
	for _, c := range []struct {
		id     jsonrpc2.ID
		result any
		want   string
	}{
		{jsonrpc2.ID{Num: 0}, nil, `{"jsonrpc":"2.0","id":0,"result":null}`},
		{jsonrpc2.ID{Num: 1<<53 + 1}, map[string]int{"a": 1}, `{"jsonrpc":"2.0","id":9007199254740993,"result":{"a":1}}`},
		{jsonrpc2.ID{Str: "x\"1", IsString: true}, "if a < b && c > d {", `{"jsonrpc":"2.0","id":"x\"1","result":"if a < b && c > d {"}`},
	} {
		body, err := encodeResponse(c.id, c.result)
		if err != nil {
			t.Fatal(err)
		}
		if string(body) != c.want {
			t.Errorf("encodeResponse(%v) = %s, want %s", c.id, body, c.want)
		}
		var resp jsonrpc2.Response
		if err := json.Unmarshal(body, &resp); err != nil || resp.ID != c.id || resp.Result == nil {
			t.Errorf("%s does not decode as a response to %v: %+v, %v", body, c.id, resp, err)
		}
	}
	if _, err := encodeResponse(jsonrpc2.ID{}, map[string]any{"f": func() {}}); err == nil {
		t.Error("an unencodable result did not fail")
	}
}

type nopCloser struct{ io.ReadWriter }

func (nopCloser) Close() error { return nil }

// TestFrameStream: frames from writeFrame and WriteObject interleave
// whole and read back through the library codec.
func TestFrameStream(t *testing.T) {
	var buf bytes.Buffer
	s := newFrameStream(nopCloser{&buf})
	if err := s.writeFrame([]byte(`{"jsonrpc":"2.0","id":1,"result":"é<"}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteObject(map[string]any{"jsonrpc": "2.0", "method": "m"}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "Content-Length: 39\r\n\r\n{") {
		t.Fatalf("frame = %q", buf.String())
	}
	r := bufio.NewReader(&buf)
	var first, second map[string]any
	if err := (jsonrpc2.VSCodeObjectCodec{}).ReadObject(r, &first); err != nil || first["result"] != "é<" {
		t.Fatalf("first frame: %v, %v", first, err)
	}
	if err := (jsonrpc2.VSCodeObjectCodec{}).ReadObject(r, &second); err != nil || second["method"] != "m" {
		t.Fatalf("second frame: %v, %v", second, err)
	}
}

// rwBuffers is a stream reading from in and writing to out.
type rwBuffers struct {
	io.Reader
	out *bytes.Buffer
}

func (b rwBuffers) Write(p []byte) (int, error) { return b.out.Write(p) }
func (rwBuffers) Close() error                  { return nil }

// TestReadObjectBadBodies: a framed body that is not JSON gets a Parse
// error (-32700, id null), JSON that is not a message gets Invalid Request
// (-32600), and the stream goes on with the next frame.
func TestReadObjectBadBodies(t *testing.T) {
	frame := func(body string) string { return "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body }
	in := frame("hello") + frame(`[1,2]`) + frame(`{"jsonrpc":"2.0","id":7,"method":"shutdown"}`)
	var out bytes.Buffer
	s := newFrameStream(rwBuffers{strings.NewReader(in), &out})
	var m map[string]any
	if err := s.ReadObject(&m); err != nil {
		t.Fatal(err)
	}
	if m["method"] != "shutdown" {
		t.Fatalf("read %v, want the shutdown request", m)
	}
	r := bufio.NewReader(&out)
	for _, want := range []int{-32700, -32600} {
		var resp struct {
			ID    any `json:"id"`
			Error struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := (jsonrpc2.VSCodeObjectCodec{}).ReadObject(r, &resp); err != nil {
			t.Fatal(err)
		}
		if resp.ID != nil || resp.Error.Code != want {
			t.Fatalf("answer %+v, want code %d with id null", resp, want)
		}
	}
}

// TestReadObjectRefusesHugeFrames: a Content-Length over the limit, a
// missing one and endless headers end the stream at once, without reading
// or allocating the announced body.
func TestReadObjectRefusesHugeFrames(t *testing.T) {
	for _, in := range []string{
		"Content-Length: 4000000000\r\n\r\n{",
		"Content-Length: -1\r\n\r\n",
		"Content-Type: x\r\n\r\n{}",
		strings.Repeat("X-A: b\r\n", 100),
		"Content-Length: " + strings.Repeat("9", 10000) + "\r\n",
	} {
		s := newFrameStream(rwBuffers{strings.NewReader(in), &bytes.Buffer{}})
		var v any
		if err := s.ReadObject(&v); err == nil {
			t.Errorf("%.40q: no error", in)
		}
	}
	var stats runtime.MemStats
	runtime.ReadMemStats(&stats)
	before := stats.TotalAlloc
	s := newFrameStream(rwBuffers{strings.NewReader("Content-Length: 4000000000\r\n\r\n{"), &bytes.Buffer{}})
	var v any
	err := s.ReadObject(&v)
	runtime.ReadMemStats(&stats)
	if err == nil || !strings.Contains(err.Error(), "over the limit") || stats.TotalAlloc-before > 1<<20 {
		t.Fatalf("err %v, %d bytes allocated", err, stats.TotalAlloc-before)
	}
}
