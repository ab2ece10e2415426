package main

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// refsRepos is a store with a Go module whose function has a caller.
var refsRepos = map[string]map[string]string{
	"org/pay": {
		"go.mod": "module example.com/pay\n\ngo 1.22\n",
		"pay.go": "package pay\n\n// Refund returns the money of a cancelled order.\nfunc Refund(amount int64) int64 { return -amount }\n",
		"use.go": "package pay\n\n// Cancel cancels an order.\nfunc Cancel(amount int64) int64 { return Refund(amount) }\n",
	},
}

// structured calls a tool and decodes its structured content.
func structured(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any, out any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("%s: %v %+v", tool, err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
}

type refsOut struct {
	Exact      bool `json:"exact"`
	References []struct {
		Path   string `json:"path"`
		Line   int    `json:"line"`
		Symbol string `json:"symbol"`
		Kind   string `json:"kind"`
	} `json:"references"`
}

// find_references and impact answer over Streamable HTTP, and on a
// stateless replica of an index store, by types for a Go module.
func TestReferencesOverHTTPAndStore(t *testing.T) {
	url, token := mcpHTTP(t)
	client := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport{token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var out struct {
		Target struct {
			Path string `json:"path"`
		} `json:"target"`
	}
	structured(t, cs, "find_references", map[string]any{"symbol": "Checkout"}, &out)
	if out.Target.Path != "shop.go" {
		t.Errorf("over HTTP: %+v", out)
	}

	s := newReplicaStore(t, "refs", refsRepos)
	tok := s.token(t, "agent", "org/pay")
	c := startReplica(t, s.url).client(t, tok)
	var r refsOut
	structured(t, c, "find_references", map[string]any{"symbol": "Refund", "repo": "org/pay"}, &r)
	if !r.Exact || len(r.References) != 1 || r.References[0].Path != "use.go" || r.References[0].Line != 4 || r.References[0].Symbol != "pay.Cancel" || r.References[0].Kind != "call" {
		t.Errorf("on a replica: %+v", r)
	}
	var imp struct {
		Reached []struct {
			Symbol string `json:"symbol"`
			Hop    int    `json:"hop"`
		} `json:"reached"`
	}
	diff := "--- a/pay.go\n+++ b/pay.go\n@@ -4 +4 @@\n-func Refund(amount int64) int64 { return -amount }\n+func Refund(amount int64) int64 { return -amount }\n"
	structured(t, c, "impact", map[string]any{"diff": diff, "repo": "org/pay"}, &imp)
	if len(imp.Reached) != 2 || imp.Reached[1].Symbol != "pay.Cancel" || imp.Reached[1].Hop != 1 {
		t.Errorf("impact on a replica: %+v", imp)
	}
}
