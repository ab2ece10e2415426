package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
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
