package soak

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// runMCPPhase starts `ctxls mcp --http` on the tree and runs
// cfg.MCPClients clients for cfg.MCPDuration; it returns their report and
// the panic lines of the server's log.
func runMCPPhase(ctx context.Context, cfg Config, tokenFile, token, cache string, pool []string, logPath string) (*PhaseReport, []string, error) {
	srv, err := startProc("ctxls mcp", cfg.Binary, []string{"mcp", "--http", "127.0.0.1:0", "--token-file", tokenFile,
		"--root", cfg.Tree, "--cache-dir", cache}, logPath)
	if err != nil {
		return nil, nil, err
	}
	defer srv.stop(10 * time.Second)
	m, err := srv.waitLine(regexp.MustCompile(`listening on (http://\S+)`), 0, 30*time.Second)
	if err != nil {
		return nil, nil, err
	}
	endpoint := m[1]
	rss := newRSSSampler(srv)
	rss.phase.Store("mcp")
	texts := newTextLog(nil)
	disk := newDiskTexts()
	var owned, origs []string
	for i := 0; i < cfg.MCPClients; i++ {
		rel := pool[(len(pool)-1-i+len(pool))%len(pool)]
		abs := filepath.Join(cfg.Tree, filepath.FromSlash(rel))
		b, err := os.ReadFile(abs)
		if err != nil {
			return nil, nil, fmt.Errorf("soak: %w", err)
		}
		texts.set(abs, string(b), false)
		owned, origs = append(owned, rel), append(origs, string(b))
	}
	var fresh, misses int
	var mu sync.Mutex
	rep := runPhase(cfg.MCPClients, cfg.MCPDuration, func(i int, rec *recorder, chk *checker, until time.Time) error {
		c := &mcpClient{
			id: i, tree: cfg.Tree, tmp: cfg.WorkDir, file: owned[i], texts: texts, disk: disk,
			rec: rec, chk: chk, timeout: cfg.Timeout, think: cfg.Think,
			rng: rand.New(rand.NewPCG(cfg.Seed, uint64(1000+i))),
		}
		c.orig = origs[i]
		err := c.run(ctx, endpoint, token, until)
		mu.Lock()
		fresh += c.fresh
		misses += c.misses
		mu.Unlock()
		return err
	})
	rep.Fresh, rep.FreshMisses = fresh, misses
	for i, rel := range owned { // the tree as it was
		os.WriteFile(filepath.Join(cfg.Tree, filepath.FromSlash(rel)), []byte(origs[i]), 0o644)
	}
	code, err := srv.stop(30 * time.Second)
	rss.stop()
	if err != nil {
		rep.ClientErrors = append(rep.ClientErrors, err.Error())
	} else if code != 0 {
		rep.ClientErrors = append(rep.ClientErrors, fmt.Sprintf("ctxls mcp exited with status %d after SIGTERM", code))
	}
	maxMB := 0.0
	for _, s := range rss.samples() {
		maxMB = max(maxMB, s.MB)
	}
	if rep.Other == nil {
		rep.Other = map[string]Latency{}
	}
	rep.Other["rssMaxMB"] = Latency{Max: maxMB}
	return &rep, srv.log.panicLines(), nil
}

// mcpClient is one MCP client of the MCP phase. It owns one tree file,
// which it rewrites on disk (a new function each time) between calls.
type mcpClient struct {
	id         int
	tree, tmp  string
	file, orig string
	texts      *textLog
	disk       *diskTexts
	rec        *recorder
	chk        *checker
	timeout    time.Duration
	think      time.Duration
	rng        *rand.Rand
	cs         *sdk.ClientSession

	n         int
	marker    string // the function the latest rewrite added
	last      *mcpResult
	lastFrom  int64
	fresh     int
	misses    int
	lastWrite bool // the previous step rewrote the file
}

// bearer adds the token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// run connects and calls tools until until.
func (c *mcpClient) run(ctx context.Context, endpoint, token string, until time.Time) error {
	client := sdk.NewClient(&sdk.Implementation{Name: "ctxls-soak", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{
		Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearer{token}}, DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		return fmt.Errorf("mcp client %d: connect: %w", c.id, err)
	}
	c.cs = cs
	defer cs.Close()
	for time.Now().Before(until) {
		if err := c.step(ctx); err != nil {
			return fmt.Errorf("mcp client %d: %w", c.id, err)
		}
		if c.think > 0 {
			time.Sleep(time.Duration(c.rng.Int64N(int64(c.think) + 1)))
		}
	}
	return nil
}

// step runs one action.
func (c *mcpClient) step(ctx context.Context) error {
	if c.lastWrite {
		c.lastWrite = false
		return c.findMarker(ctx)
	}
	switch r := c.rng.IntN(100); {
	case r < 20:
		return c.rewrite()
	case r < 55:
		return c.assemble(ctx, "query")
	case r < 75:
		return c.assemble(ctx, "focus")
	case r < 88:
		return c.expand(ctx)
	case r < 95:
		_, err := c.call(ctx, "find_symbol", map[string]any{"name": []string{"NewReader", "Parse", "String", "Close"}[c.rng.IntN(4)]})
		return err
	default:
		_, err := c.call(ctx, "index_status", map[string]any{})
		return err
	}
}

// rewrite writes the owned file anew: its original text and one function
// (written beside, then renamed over it).
func (c *mcpClient) rewrite() error {
	c.n++
	c.marker = fmt.Sprintf("soakMS%dE%dZ", c.id, c.n)
	text := c.orig
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	text += fmt.Sprintf("\n// %s was written by an MCP client of the soak.\nfunc %s() int { return %d }\n", c.marker, c.marker, c.n)
	abs := filepath.Join(c.tree, filepath.FromSlash(c.file))
	tmp := filepath.Join(c.tmp, fmt.Sprintf(".mcp-%d.tmp", c.id))
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		return err
	}
	if err := c.texts.replace(abs, text, func() error { return os.Rename(tmp, abs) }); err != nil {
		return err
	}
	c.lastWrite = true
	return nil
}

// findMarker asks find_symbol for the function the last rewrite added:
// the file saved must be in the very next answer.
func (c *mcpClient) findMarker(ctx context.Context) error {
	res, err := c.call(ctx, "find_symbol", map[string]any{"name": c.marker})
	if err != nil || res == nil {
		return err
	}
	var out struct {
		Definitions []struct {
			Path string `json:"path"`
		} `json:"definitions"`
	}
	json.Unmarshal(res.structured, &out)
	for _, d := range out.Definitions {
		if d.Path == c.file {
			c.fresh++
			return nil
		}
	}
	c.misses++
	c.chk.mu.Lock()
	c.chk.failf("fresh", "mcp%d find_symbol %s: no definition in %s just after it was written (got %v)", c.id, c.marker, c.file, out.Definitions)
	c.chk.mu.Unlock()
	return nil
}

// mcpResult is a tool result: structured content and texts, the client's
// change count when it was sent, and its round trip.
type mcpResult struct {
	structured json.RawMessage
	texts      []string
	from       int64
	d          time.Duration
}

// call calls a tool and records it (the round trip under the tool's name
// but for assemble_context, whose caller files it by indexComplete); a
// tool error or a protocol error is a broken promise (recorded; nil
// result), a dead session an error.
func (c *mcpClient) call(ctx context.Context, tool string, args map[string]any) (*mcpResult, error) {
	from := c.texts.now()
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, c.timeout)
	res, err := c.cs.CallTool(cctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	cancel()
	d := time.Since(start)
	out := &mcpResult{from: from, d: d}
	if err == nil {
		for _, ct := range res.Content {
			if t, ok := ct.(*sdk.TextContent); ok {
				out.texts = append(out.texts, t.Text)
			}
		}
		if res.IsError {
			err = fmt.Errorf("tool error: %s", strings.Join(out.texts, " "))
		} else if out.structured, err = json.Marshal(res.StructuredContent); err != nil {
			err = fmt.Errorf("structured content: %w", err)
		}
	}
	key := tool
	if tool == "assemble_context" {
		key = ""
	}
	if err != nil && errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("no answer within %v", c.timeout)
	}
	var rerr error
	if err != nil {
		rerr = &rpcError{Code: -1, Message: err.Error()}
	}
	if c.rec.request(tool, rerr, false, key, d) {
		c.chk.mu.Lock()
		c.chk.failf("error", "mcp%d %s %v: %v", c.id, tool, args, err)
		c.chk.mu.Unlock()
		return nil, nil
	}
	return out, nil
}

// mcpAssembleOut is the structured content of assemble_context and
// expand_context.
type mcpAssembleOut struct {
	Root  string `json:"root"`
	Parts []struct {
		ID     string      `json:"id"`
		Path   string      `json:"path"`
		Ranges []lineRange `json:"ranges"`
		Level  string      `json:"level"`
	} `json:"parts"`
	Omitted []omittedJSON `json:"omitted"`
	Stats   struct {
		TotalTokens   int    `json:"totalTokens"`
		MaxTokens     int    `json:"maxTokens"`
		IndexState    string `json:"indexState"`
		IndexComplete bool   `json:"indexComplete"`
	} `json:"stats"`
	FromHeldState bool `json:"fromHeldState"`
}

// asResult joins the structured parts and the texts of the rendered JSON
// (asked with format json) into a resultJSON the checker reads.
func (r *mcpResult) asResult() (*resultJSON, *mcpAssembleOut, error) {
	var out mcpAssembleOut
	if err := json.Unmarshal(r.structured, &out); err != nil {
		return nil, nil, fmt.Errorf("structured content: %w", err)
	}
	var rendered struct {
		Parts []struct {
			ID   int    `json:"id"`
			Path string `json:"path"`
			Text string `json:"text"`
		} `json:"parts"`
	}
	if len(r.texts) == 0 {
		return nil, nil, errors.New("no text content")
	}
	if err := json.Unmarshal([]byte(r.texts[0]), &rendered); err != nil {
		return nil, nil, fmt.Errorf("the rendered JSON context does not parse: %w", err)
	}
	if len(rendered.Parts) != len(out.Parts) {
		return nil, nil, fmt.Errorf("%d rendered parts, %d structured", len(rendered.Parts), len(out.Parts))
	}
	res := &resultJSON{Omitted: out.Omitted, FromHeldState: out.FromHeldState}
	res.Stats = statsJSON{TotalTokens: out.Stats.TotalTokens, MaxTokens: out.Stats.MaxTokens,
		IndexState: out.Stats.IndexState, IndexComplete: out.Stats.IndexComplete}
	for i, p := range out.Parts {
		rp := rendered.Parts[i]
		if "p"+strconv.Itoa(rp.ID) != p.ID || rp.Path != p.Path {
			return nil, nil, fmt.Errorf("rendered part %d (%s) is not structured part %s (%s)", rp.ID, rp.Path, p.ID, p.Path)
		}
		res.Parts = append(res.Parts, partJSON{ID: p.ID, Path: p.Path, Ranges: p.Ranges, Text: rp.Text, Level: p.Level})
	}
	return res, &out, nil
}

// budget picks a budget.
func (c *mcpClient) budget() (map[string]any, int) {
	maxTok := []int{800, 2000, 4000, 8000}[c.rng.IntN(4)]
	b := map[string]any{"maxTokens": maxTok}
	if c.rng.IntN(4) == 0 {
		b["perFile"] = maxTok / 2
	}
	return b, maxTok
}

// assemble calls assemble_context by query (the latest marker, or a
// question) or by focus (a line of the owned file), and checks it.
func (c *mcpClient) assemble(ctx context.Context, kind string) error {
	b, maxTok := c.budget()
	args := map[string]any{"budget": b, "format": "json"}
	if kind == "focus" {
		text, _ := c.texts.latest(filepath.Join(c.tree, filepath.FromSlash(c.file)))
		args["focus"] = fmt.Sprintf("%s:%d", c.file, 1+c.rng.IntN(max1(numLines(text))))
	} else if c.marker != "" && c.rng.IntN(2) == 0 {
		args["query"] = c.marker + " " + queries[c.rng.IntN(len(queries))]
	} else {
		args["query"] = queries[c.rng.IntN(len(queries))]
	}
	r, err := c.call(ctx, "assemble_context", args)
	if err != nil || r == nil {
		return err
	}
	res, out, err := r.asResult()
	if err != nil {
		c.brokenResult("assemble_context", err)
		return nil
	}
	key := latAssembleComplete
	if !res.Stats.IndexComplete {
		key = latAssembleIndexing
	}
	c.rec.latencyAdd(key, r.d)
	c.checkResult("assemble_context "+kind, out.Root, maxTok, r.from, res)
	c.last, c.lastFrom = r, r.from
	return nil
}

// expand calls expand_context with handles the last answer left out.
func (c *mcpClient) expand(ctx context.Context) error {
	if c.last == nil {
		return c.assemble(ctx, "query")
	}
	last, _, err := c.last.asResult()
	if err != nil || len(last.Omitted) == 0 {
		return c.assemble(ctx, "query")
	}
	var hs []string
	for _, o := range last.Omitted {
		if len(hs) < 3 {
			hs = append(hs, o.Handle)
		}
	}
	b, maxTok := c.budget()
	r, err := c.call(ctx, "expand_context", map[string]any{"handles": hs, "index_state": last.Stats.IndexState, "budget": b, "format": "json"})
	if err != nil || r == nil {
		return err
	}
	res, out, err := r.asResult()
	if err != nil {
		c.brokenResult("expand_context", err)
		return nil
	}
	from := r.from
	if res.FromHeldState {
		from = c.lastFrom
	}
	c.checkResult("expand_context", out.Root, maxTok, from, res)
	return nil
}

// checkResult checks a result read from root.
func (c *mcpClient) checkResult(what, root string, maxTok int, from int64, res *resultJSON) {
	if root != c.tree {
		c.chk.mu.Lock()
		c.chk.c.PathsOutside++
		c.chk.failf("path", "mcp%d %s: root %q is not the tree %s", c.id, what, root, c.tree)
		c.chk.mu.Unlock()
	}
	c.chk.check(answer{
		label: fmt.Sprintf("mcp%d %s", c.id, what), root: c.tree, askedMax: maxTok,
		from: from, to: c.texts.now(), texts: c.texts, disk: c.disk,
	}, res)
}

// brokenResult records a result whose shape is wrong.
func (c *mcpClient) brokenResult(tool string, err error) {
	c.rec.mu.Lock()
	m := c.rec.method(tool)
	m.Errors++
	if m.ErrorCodes == nil {
		m.ErrorCodes = map[string]int{}
	}
	m.ErrorCodes["malformed"]++
	c.rec.mu.Unlock()
	c.chk.mu.Lock()
	c.chk.failf("error", "mcp%d %s: %v", c.id, tool, err)
	c.chk.mu.Unlock()
}
