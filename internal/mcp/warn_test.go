package mcp

//lint:file-ignore SA1019 the logging feature, deprecated as of the protocol version 2026-07-28, is how the server warns (warn.go)

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/internal/index"
)

// A cache directory that cannot be written (here: below a file) gives an
// index in memory; index_status says so in warnings, and each client is
// sent the warning once, as notifications/message at level warning naming
// the directory, once it listens: a client of a protocol before
// 2026-07-28 after logging/setLevel, one of 2026-07-28 on a call whose
// _meta names a level. Before, only the server log said it.
func TestCacheDirNotWritableIsTold(t *testing.T) {
	root := writeFixture(t)
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(blocker, "cache")
	opts := testOptions(root)
	opts.IndexOptions = func(string) index.Options { return index.Options{CacheDir: cache} }
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	})
	type client struct {
		cs     *sdk.ClientSession
		logged chan *sdk.LoggingMessageParams
	}
	connectLogged := func(version string) client {
		c := client{logged: make(chan *sdk.LoggingMessageParams, 16)}
		ct, st := sdk.NewInMemoryTransports()
		ss, err := srv.SDK().Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cl := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{
			LoggingMessageHandler: func(_ context.Context, req *sdk.LoggingMessageRequest) { c.logged <- req.Params }})
		if c.cs, err = cl.Connect(context.Background(), ct, &sdk.ClientSessionOptions{ProtocolVersion: version}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			c.cs.Close()
			ss.Wait()
		})
		return c
	}
	// calls calls index_status with _meta and returns the messages sent
	// with it: the client handles notifications apart from results, so it
	// waits up to 5 s for want of them, then 200 ms for any more.
	calls := func(c client, meta map[string]any, want int) []*sdk.LoggingMessageParams {
		t.Helper()
		params := &sdk.CallToolParams{Name: ToolIndexStatus, Arguments: map[string]any{}}
		if meta != nil {
			params.SetMeta(meta)
		}
		res, err := c.cs.CallTool(context.Background(), params)
		if err != nil || res.IsError {
			t.Fatalf("index_status: %v %+v", err, res)
		}
		var out IndexStatusOutput
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &out); err != nil || len(out.Roots) != 1 {
			t.Fatalf("index_status: %s (%v)", b, err)
		}
		st := out.Roots[0]
		if len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], cache) || !strings.Contains(st.Warnings[0], "in memory") || st.CacheDir != "" {
			t.Errorf("index_status warnings %q (cacheDir %q), want one naming %s and saying in memory", st.Warnings, st.CacheDir, cache)
		}
		var got []*sdk.LoggingMessageParams
		deadline := time.After(5 * time.Second)
		for len(got) < want {
			select {
			case m := <-c.logged:
				got = append(got, m)
			case <-deadline:
				return got
			}
		}
		for grace := time.After(200 * time.Millisecond); ; {
			select {
			case m := <-c.logged:
				got = append(got, m)
			case <-grace:
				return got
			}
		}
	}
	isWarning := func(got []*sdk.LoggingMessageParams) bool {
		msg, _ := got[0].Data.(string)
		return len(got) == 1 && got[0].Level == "warning" && strings.Contains(msg, cache) && strings.Contains(msg, "not a directory")
	}

	old := connectLogged("2025-06-18")
	// Waits for the build: the warning is given by then.
	if text, isErr := call(t, old.cs, ToolFindSymbol, map[string]any{"name": "Cart"}, nil); isErr || !strings.Contains(text, "Cart") {
		t.Fatalf("the in-memory index does not answer: %s", text)
	}
	if got := calls(old, nil, 0); len(got) != 0 {
		t.Errorf("before logging/setLevel: %d messages, want none", len(got))
	}
	if err := old.cs.SetLoggingLevel(context.Background(), &sdk.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	if got := calls(old, nil, 1); len(got) != 1 || !isWarning(got) {
		t.Errorf("after logging/setLevel: %+v, want one warning naming %s and why", got, cache)
	}
	if got := calls(old, nil, 0); len(got) != 0 {
		t.Errorf("a second call: %d messages, want none", len(got))
	}

	cur := connectLogged("")
	if got := calls(cur, nil, 0); len(got) != 0 {
		t.Errorf("2026-07-28, no level: %d messages, want none", len(got))
	}
	if got := calls(cur, map[string]any{sdk.MetaKeyLogLevel: "error"}, 0); len(got) != 0 {
		t.Errorf("2026-07-28, level error: %d messages, want none", len(got))
	}
	level := map[string]any{sdk.MetaKeyLogLevel: "warning"}
	if got := calls(cur, level, 1); len(got) != 1 || !isWarning(got) {
		t.Errorf("2026-07-28, level warning: %+v, want one warning naming %s and why", got, cache)
	}
	if got := calls(cur, level, 0); len(got) != 0 {
		t.Errorf("2026-07-28, a second call: %d messages, want none", len(got))
	}
}
