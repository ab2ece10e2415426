package soak

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// badRequest is a generated request that must be answered with an error:
// its JSON params (raw: they may hold invalid UTF-8), the error code, and
// for InvalidParams the field data.field must name.
type badRequest struct {
	kind   string
	method string
	params string
	code   int
	field  string
}

// Error codes the bad requests get.
const (
	codeMethodNotFound       = -32601
	codeServerNotInitialized = -32002
)

// wrongValues are JSON values of the wrong type for a field of each type.
var wrongValues = map[string][]string{
	"string": {`5`, `-1.5`, `true`, `[]`, `["a"]`, `{}`, `{"a":1}`},
	"int":    {`"5"`, `true`, `[]`, `{}`, `1.5`, `1e30`, `-9999999999999999999999`},
	"array":  {`"**/*.go"`, `5`, `{}`, `[1,2]`, `true`},
	"object": {`"x"`, `5`, `[]`, `true`, `[{}]`},
}

// hugeString is a 1 MiB JSON string.
var hugeString = `"` + strings.Repeat("a", 1<<20) + `"`

// invalidUTF8 is a JSON string holding bytes that are not UTF-8.
const invalidUTF8 = "\"\xff\xfe\xc3(\xa0\xa1\""

// badRequests generates n bad requests over the tree whose URI is
// treeURI (with a file file in it, of lines lines), seeded.
func badRequests(rng *rand.Rand, n int, treeURI, file string, lines int) []badRequest {
	fileURI := treeURI + "/" + file
	pick := func(vs []string) string { return vs[rng.IntN(len(vs))] }
	q := `"query":"parse a URL"`
	gens := []func() badRequest{
		// params that are not an object
		func() badRequest {
			m := pick([]string{"context/assemble", "context/expand"})
			return badRequest{"params not an object", m, pick([]string{`5`, `"x"`, `[1]`, `true`, `[]`}), codeInvalidParams, "params"}
		},
		// wrong types, each field
		func() badRequest {
			f := pick([]string{"query", "diff", "encoding", "format", "strategy"})
			p := `{"` + f + `":` + pick(wrongValues["string"]) + `}`
			return badRequest{"wrong type: " + f, "context/assemble", p, codeInvalidParams, f}
		},
		func() badRequest {
			f := pick([]string{"include", "exclude"})
			return badRequest{"wrong type: " + f, "context/assemble", `{` + q + `,"` + f + `":` + pick(wrongValues["array"]) + `}`, codeInvalidParams, f}
		},
		func() badRequest {
			return badRequest{"wrong type: focus", "context/assemble", `{"focus":` + pick(wrongValues["object"]) + `}`, codeInvalidParams, "focus"}
		},
		func() badRequest {
			return badRequest{"wrong type: focus.uri", "context/assemble", `{"focus":{"uri":` + pick(wrongValues["string"]) + `,"position":{"line":1,"character":0}}}`, codeInvalidParams, "focus.uri"}
		},
		func() badRequest {
			return badRequest{"wrong type: focus.position", "context/assemble", `{"focus":{"uri":"` + fileURI + `","position":` + pick(wrongValues["object"]) + `}}`, codeInvalidParams, "focus.position"}
		},
		func() badRequest {
			f := pick([]string{"line", "character"})
			other := map[string]string{"line": "character", "character": "line"}[f]
			return badRequest{"wrong type: focus.position." + f, "context/assemble",
				`{"focus":{"uri":"` + fileURI + `","position":{"` + f + `":` + pick(wrongValues["int"]) + `,"` + other + `":0}}}`, codeInvalidParams, "focus.position." + f}
		},
		func() badRequest {
			return badRequest{"wrong type: budget", "context/assemble", `{` + q + `,"budget":` + pick(wrongValues["object"]) + `}`, codeInvalidParams, "budget"}
		},
		func() badRequest {
			f := pick([]string{"maxTokens", "perFileMaxTokens", "perPartMaxTokens"})
			return badRequest{"wrong type: budget." + f, "context/assemble", `{` + q + `,"budget":{"` + f + `":` + pick(wrongValues["int"]) + `}}`, codeInvalidParams, "budget." + f}
		},
		// values out of range
		func() badRequest {
			f := pick([]string{"maxTokens", "perFileMaxTokens", "perPartMaxTokens"})
			v := pick([]string{`-1`, `-100000`})
			if f == "maxTokens" {
				v = pick([]string{`0`, `-1`, `10000001`, `2147483647`})
			}
			return badRequest{"bad value: budget." + f, "context/assemble", `{` + q + `,"budget":{"` + f + `":` + v + `}}`, codeInvalidParams, "budget." + f}
		},
		func() badRequest {
			f := pick([]string{"encoding", "format", "strategy"})
			v := pick([]string{`"gpt2"`, `""`, `"YAML"`, hugeString, invalidUTF8, `"markdown "`})
			if f == "format" && v == `""` {
				v = `"yaml"`
			}
			if v == `""` {
				v = `"none"`
			}
			return badRequest{"bad value: " + f, "context/assemble", `{` + q + `,"` + f + `":` + v + `}`, codeInvalidParams, f}
		},
		func() badRequest {
			f := pick([]string{"include", "exclude"})
			return badRequest{"bad glob: " + f, "context/assemble", `{` + q + `,"` + f + `":["` + pick([]string{`[`, `a[b`, `{a,`, `[z-a`}) + `"]}`, codeInvalidParams, f}
		},
		func() badRequest {
			return badRequest{"nothing to do", "context/assemble", pick([]string{`{}`, `{"query":"   "}`, `{"query":"","diff":""}`, `{"explain":true}`}), codeInvalidParams, "query"}
		},
		func() badRequest {
			return badRequest{"not a diff", "context/assemble", `{"diff":` + pick([]string{`"not a diff"`, `"@@ -1 +1 @@\n-a\n+b\n"`, hugeString}) + `}`, codeInvalidParams, "diff"}
		},
		// URIs outside the roots, not files, not URIs
		func() badRequest {
			u := pick([]string{"file:///etc/passwd", "file:///", "http://example.com/a.go", "untitled:Untitled-1", "relative/a.go",
				"file://otherhost/etc/passwd", treeURI + "/../../etc/passwd", "file:///%00", "\xff\xfe", strings.Repeat("x", 1<<16)})
			b, _ := json.Marshal(u)
			if !strings.HasPrefix(u, "\xff") {
				return badRequest{"uri outside: focus.uri", "context/assemble", `{"focus":{"uri":` + string(b) + `,"position":{"line":0,"character":0}}}`, codeInvalidParams, "focus.uri"}
			}
			return badRequest{"uri outside: focus.uri", "context/assemble", `{"focus":{"uri":"` + u + `","position":{"line":0,"character":0}}}`, codeInvalidParams, "focus.uri"}
		},
		func() badRequest {
			f, v := pick([]string{"line", "character"}), pick([]string{`-1`, `-2147483648`})
			other := map[string]string{"line": "character", "character": "line"}[f]
			return badRequest{"bad position: " + f, "context/assemble", `{"focus":{"uri":"` + fileURI + `","position":{"` + f + `":` + v + `,"` + other + `":0}}}`, codeInvalidParams, "focus.position." + f}
		},
		func() badRequest {
			line := pick([]string{fmt.Sprint(lines + 1), fmt.Sprint(lines + 1000), `2147483647`})
			return badRequest{"line past the end", "context/assemble", `{"focus":{"uri":"` + fileURI + `","position":{"line":` + line + `,"character":0}}}`, codeInvalidParams, "focus.position.line"}
		},
		func() badRequest {
			return badRequest{"missing: focus.uri/position", "context/assemble", pick([]string{`{"focus":{}}`, `{"focus":{"position":{"line":1,"character":1}}}`}), codeInvalidParams, "focus.uri"}
		},
		// context/expand
		func() badRequest {
			return badRequest{"expand: nothing", "context/expand", pick([]string{`{}`, `{"handles":[]}`, `{"indexState":"x"}`}), codeInvalidParams, "handles"}
		},
		func() badRequest {
			return badRequest{"expand: wrong type: handles", "context/expand", `{"handles":` + pick(wrongValues["array"]) + `}`, codeInvalidParams, "handles"}
		},
		func() badRequest {
			h := pick([]string{"abc", "a.go#Lx", "a.go#L5-2", "a.go#L0-3", "#L1-2", "../../etc/passwd#L1-2", "/etc/passwd#L1-2", "a.go#L1-2#L3", "a.go#L-1-2"})
			b, _ := json.Marshal([]string{h})
			return badRequest{"expand: bad handle", "context/expand", `{"handles":` + string(b) + `}`, codeInvalidParams, "handles"}
		},
		func() badRequest {
			u, _ := json.Marshal(pick([]string{"file:///etc/passwd", "http://x/a.go", "relative.go"}))
			return badRequest{"expand: uri outside", "context/expand", `{"uri":` + string(u) + `,"range":{"start":1,"end":2}}`, codeInvalidParams, "uri"}
		},
		func() badRequest {
			r := pick([]string{`{"start":5,"end":2}`, `{"start":0,"end":2}`, `{"start":-3,"end":2}`, `"1-2"`, `5`, `{"start":{"line":5,"character":0},"end":{"line":1,"character":0}}`, `{"start":{"line":-1,"character":0},"end":{"line":1,"character":0}}`})
			return badRequest{"expand: bad range", "context/expand", `{"uri":"` + fileURI + `","range":` + r + `}`, codeInvalidParams, "range"}
		},
		func() badRequest {
			return badRequest{"expand: uri without range", "context/expand", `{"uri":"` + fileURI + `"}`, codeInvalidParams, "range"}
		},
		func() badRequest {
			f := pick([]string{"encoding", "format"})
			return badRequest{"expand: bad " + f, "context/expand", `{"handles":["` + file + `#L1-2"],"` + f + `":` + pick([]string{`"zzz"`, `5`, invalidUTF8}) + `}`, codeInvalidParams, f}
		},
		func() badRequest {
			if rng.IntN(2) == 0 {
				return badRequest{"expand: bad budget", "context/expand", `{"handles":["` + file + `#L1-2"],"budget":` + pick(wrongValues["object"]) + `}`, codeInvalidParams, "budget"}
			}
			return badRequest{"expand: bad budget.maxTokens", "context/expand", `{"handles":["` + file + `#L1-2"],"budget":{"maxTokens":` + pick([]string{`0`, `-3`, `"x"`, `1.5`}) + `}}`, codeInvalidParams, "budget.maxTokens"}
		},
		// unknown methods
		func() badRequest {
			m := pick([]string{"context/unknown", "textDocument/hover", "workspace/symbol", "$/unknownRequest", "Context/Assemble", "", strings.Repeat("m", 4096), "context/assemble\x00"})
			b, _ := json.Marshal(m)
			return badRequest{"unknown method", string(b), `{}`, codeMethodNotFound, ""}
		},
		// a second initialize
		func() badRequest {
			return badRequest{"initialize again", `"initialize"`, `{"capabilities":{}}`, -32600, ""}
		},
	}
	out := make([]badRequest, n)
	for i := range out {
		r := gens[rng.IntN(len(gens))]()
		if !strings.HasPrefix(r.method, `"`) {
			r.method = `"` + r.method + `"`
		}
		out[i] = r
	}
	return out
}

// rawCall sends a request whose method and params are raw JSON.
func (l *lspConn) rawCall(method, params string) (int64, <-chan *message, error) {
	l.mu.Lock()
	l.nextID++
	id := l.nextID
	ch := make(chan *message, 1)
	l.pending[id] = ch
	l.mu.Unlock()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%s,"params":%s}`, id, method, params)
	l.wmu.Lock()
	defer l.wmu.Unlock()
	if _, err := fmt.Fprintf(l.w, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		return 0, nil, err
	}
	return id, ch, l.w.Flush()
}

// fieldOf is an error's data.field.
func fieldOf(e *rpcError) string {
	var d struct {
		Field string `json:"field"`
	}
	json.Unmarshal(e.Data, &d)
	return d.Field
}

// 1 000 generated bad requests — wrong types, bad values and ranges, URIs
// outside the roots, huge and invalid-UTF-8 strings, unknown methods,
// requests before initialize — are each answered with an error naming the
// field, while another session is served as usual.
func TestBadRequests(t *testing.T) {
	root := faultTree(t)
	p, addr, token := serveFace(t, t.TempDir(), root)
	treeURI := dirURI(root)
	const file = "net/url/url.go"
	text, _ := newDiskTexts().get(root + "/" + file)
	lines := numLines(text)

	// Another session works all along.
	good := lspInit(t, addr, token, root)
	var goodOK, goodErr atomic.Int64
	var firstGoodErr atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			_, err := sessionAssemble(good, map[string]any{"query": queries[i%len(queries)], "budget": map[string]any{"maxTokens": 1500}})
			if err != nil {
				goodErr.Add(1)
				firstGoodErr.CompareAndSwap(nil, err.Error())
			} else {
				goodOK.Add(1)
			}
		}
	}()

	n := faultEnvInt(t, "CTXLS_BAD_REQUESTS", 1000)
	rng := faultRand(t, 5)
	before := 50
	// Requests before initialize, on a connection of their own.
	pre, err := dialLSP(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer pre.close()
	type outcome struct {
		r   badRequest
		got *message
		err error
	}
	var outcomes []outcome
	for i := range before {
		m := []string{"context/assemble", "context/expand", "shutdown", "context/unknown"}[i%4]
		code := codeServerNotInitialized
		if m == "context/unknown" {
			code = codeMethodNotFound
		}
		pre.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": treeURI + "/x.go", "text": "x"}})
		_, ch, err := pre.rawCall(`"`+m+`"`, `{"query":"x"}`)
		if err != nil {
			t.Fatal(err)
		}
		got, err := wait(ch, 30*time.Second)
		outcomes = append(outcomes, outcome{badRequest{"before initialize", m, "", code, ""}, got, err})
	}

	bad := lspInit(t, addr, token, root)
	reqs := badRequests(rng, n-before, treeURI, file, lines)
	// Sent in pipelined groups of 25, with broken notifications between.
	for i := 0; i < len(reqs); i += 25 {
		var chans []<-chan *message
		group := reqs[i:min(i+25, len(reqs))]
		for _, r := range group {
			_, ch, err := bad.rawCall(r.method, r.params)
			if err != nil {
				t.Fatalf("send: %v", err)
			}
			chans = append(chans, ch)
			if rng.IntN(4) == 0 {
				bad.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": treeURI + "/" + file, "version": 2},
					"contentChanges": []map[string]any{{"range": map[string]any{"start": map[string]int{"line": 5, "character": 0}, "end": map[string]int{"line": 1, "character": 0}}, "text": "x"}}})
			}
		}
		for j, ch := range chans {
			got, err := wait(ch, 60*time.Second)
			outcomes = append(outcomes, outcome{group[j], got, err})
		}
	}
	// The bad session itself still works.
	if r, err := sessionAssemble(bad, map[string]any{"query": "parse a URL query string"}); err != nil || len(r.Parts) == 0 {
		t.Errorf("after the bad requests, a good one on the same connection: %v", err)
	}
	close(stop)
	wg.Wait()

	byKind := map[string][2]int{}
	wrong := 0
	maxMsg, maxMsgKind := 0, ""
	for _, o := range outcomes {
		k := byKind[o.r.kind]
		k[0]++
		ok := o.err == nil && o.got.Error != nil && o.got.Error.Code == o.r.code &&
			(o.r.code != codeInvalidParams || (fieldOf(o.got.Error) == o.r.field && strings.HasPrefix(o.got.Error.Message, o.r.field+":")))
		if ok {
			k[1]++
			if n := len(o.got.Error.Message); n > maxMsg {
				maxMsg, maxMsgKind = n, o.r.kind+" "+abbreviate(o.r.params, 60)
			}
		} else {
			wrong++
			if wrong <= 15 {
				var what string
				switch {
				case o.err != nil:
					what = o.err.Error()
				case o.got.Error == nil:
					what = "a result: " + abbreviate(string(o.got.Result), 120)
				default:
					what = fmt.Sprintf("error %d field %q: %s", o.got.Error.Code, fieldOf(o.got.Error), abbreviate(o.got.Error.Message, 160))
				}
				t.Errorf("%s: %s %s: want error %d naming %q, got %s", o.r.kind, abbreviate(o.r.method, 40), abbreviate(o.r.params, 120), o.r.code, o.r.field, what)
			}
		}
		byKind[o.r.kind] = k
	}
	var kinds []string
	for k, v := range byKind {
		kinds = append(kinds, fmt.Sprintf("%s %d/%d", k, v[1], v[0]))
	}
	t.Logf("%d bad requests, %d answered as they should (%d kinds: %s); longest error message %d bytes; meanwhile another session: %d answers, %d errors",
		len(outcomes), len(outcomes)-wrong, len(byKind), strings.Join(kinds, "; "), maxMsg, goodOK.Load(), goodErr.Load())
	if len(outcomes) != n {
		t.Errorf("%d outcomes for %d requests", len(outcomes), n)
	}
	if goodErr.Load() > 0 || goodOK.Load() == 0 {
		t.Errorf("the other session: %d answers, %d errors (first: %v)", goodOK.Load(), goodErr.Load(), firstGoodErr.Load())
	}
	if maxMsg > 4096 {
		t.Errorf("an error message of %d bytes (%s): a huge input is echoed back", maxMsg, maxMsgKind)
	}
	if lines := p.log.panicLines(); len(lines) > 0 {
		t.Errorf("the server log reports %q", lines)
	}
}

// abbreviate cuts s to n bytes for a message.
func abbreviate(s string, n int) string {
	if len(s) > n {
		return s[:n] + fmt.Sprintf("… (%d bytes)", len(s))
	}
	return s
}
