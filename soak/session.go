package soak

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Method names.
const (
	mAssemble = "context/assemble"
	mExpand   = "context/expand"
)

// Latency keys of the recorder.
const (
	latAssembleComplete = "assemble/complete" // stats.indexComplete true
	latAssembleIndexing = "assemble/indexing" // false
	latExpand           = "expand"
)

// queries are questions over the trees' packages.
var queries = []string{
	"how does the http server handle keep-alive connections",
	"parse a URL query string into values",
	"bufio scanner max token size",
	"context cancellation propagates to children",
	"strconv ParseFloat rounding",
	"how are cookies parsed from a header",
	"json decoder reading a stream of tokens",
	"tls handshake client hello",
	"template execution escapes html",
	"strings builder grow",
	"sort a slice with a less function",
	"wrap an error with fmt Errorf",
	"read a mime multipart form",
	"time parse layout",
	"sync once do",
}

// sessionConfig is one LSP session's part of a run.
type sessionConfig struct {
	id        int
	addr      string
	token     string
	tree      string   // the folder (absolute)
	files     []string // the tree files it opens (slash, relative)
	goroot    string
	extraRoot string        // where its extra folders go ("" for none)
	folderGap time.Duration // between adding and removing a folder
	until     time.Time
	timeout   time.Duration
	think     time.Duration // the most a session waits between steps
	seed      uint64
	rec       *recorder
	chk       *checker
	disk      *diskTexts
}

// document is a file a session opened.
type document struct {
	rel, abs, uri string
	disk          string
	text          string // the latest buffer text (when open)
	open          bool
	version       int
	markers       []string // marker words the text holds
}

// lspSession runs the workload of one session.
type lspSession struct {
	cfg     sessionConfig
	conn    *lspConn
	rng     *rand.Rand
	ed      *editor
	docs    []*document
	texts   *textLog
	treeURI string

	// The last tree answer with omitted handles, for context/expand.
	last     *resultJSON
	lastFrom int64
	lastDiff string

	extra      string   // the extra folder added, "" when none
	extraFiles []string // its files
	nextFolder time.Time
	folders    int // folders added
}

// runSession connects, initializes, runs steps until cfg.until, and shuts
// the session down. An error is a failure of the session itself (it could
// not connect, initialize or shut down).
func runSession(cfg sessionConfig) error {
	s := &lspSession{
		cfg:     cfg,
		rng:     rand.New(rand.NewPCG(cfg.seed, uint64(cfg.id))),
		texts:   newTextLog(&cfg.chk.clock),
		treeURI: dirURI(cfg.tree),
	}
	s.ed = &editor{rng: s.rng, session: cfg.id}
	cfg.chk.mu.Lock()
	if cfg.chk.peers == nil {
		cfg.chk.peers = newPeerTexts()
	}
	cfg.chk.mu.Unlock()
	cfg.chk.peers.add(fmt.Sprintf("session s%d", cfg.id), s.texts)
	conn, err := dialLSP(cfg.addr)
	if err != nil {
		return err
	}
	s.conn = conn
	defer conn.close()
	if err := s.initialize(); err != nil {
		return fmt.Errorf("session %d: %w", cfg.id, err)
	}
	for _, rel := range cfg.files {
		abs := filepath.Join(cfg.tree, filepath.FromSlash(rel))
		disk, ok := cfg.disk.get(abs)
		if !ok {
			return fmt.Errorf("session %d: %s is not in the tree", cfg.id, rel)
		}
		d := &document{rel: rel, abs: abs, uri: fileURI(s.treeURI, rel), disk: disk}
		s.texts.set(abs, disk, false)
		s.docs = append(s.docs, d)
	}
	// All but the last document open now, the last one a little later.
	for _, d := range s.docs[:len(s.docs)-1] {
		s.open(d)
	}
	if cfg.extraRoot != "" {
		s.nextFolder = time.Now().Add(cfg.folderGap/2 + time.Duration(s.rng.Int64N(int64(cfg.folderGap/2)+1)))
	}
	for time.Now().Before(cfg.until) {
		if err := s.step(); err != nil {
			return fmt.Errorf("session %d: %w", cfg.id, err)
		}
		if cfg.think > 0 {
			time.Sleep(time.Duration(s.rng.Int64N(int64(cfg.think) + 1)))
		}
	}
	if s.extra != "" {
		s.removeFolder()
	}
	if _, err := conn.request("shutdown", nil, cfg.timeout); err != nil {
		return fmt.Errorf("session %d: shutdown: %w", cfg.id, err)
	}
	conn.notify("exit", nil)
	return nil
}

// initialize sends initialize (with the token) and initialized.
func (s *lspSession) initialize() error {
	params := map[string]any{
		"processId":             nil,
		"clientInfo":            map[string]any{"name": "ctxls-soak", "version": "1"},
		"rootUri":               s.treeURI,
		"workspaceFolders":      []map[string]any{{"uri": s.treeURI, "name": filepath.Base(s.cfg.tree)}},
		"capabilities":          map[string]any{"workspace": map[string]any{"workspaceFolders": true}},
		"initializationOptions": map[string]any{"token": s.cfg.token},
	}
	if _, err := s.conn.request("initialize", params, s.cfg.timeout); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	return s.notify("initialized", map[string]any{})
}

// notify sends a notification and counts it.
func (s *lspSession) notify(method string, params any) error {
	if err := s.conn.notify(method, params); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	s.cfg.rec.notified(method)
	return nil
}

// open sends didOpen with the document's disk text.
func (s *lspSession) open(d *document) error {
	d.open, d.version, d.text, d.markers = true, 1, d.disk, nil
	s.texts.set(d.abs, d.text, true)
	return s.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": d.uri, "languageId": "go", "version": d.version, "text": d.text}})
}

// step runs one action: an edit, a request, a folder change.
func (s *lspSession) step() error {
	if s.cfg.extraRoot != "" && time.Now().After(s.nextFolder) {
		s.nextFolder = time.Now().Add(s.cfg.folderGap)
		if s.extra == "" {
			return s.addFolder()
		}
		return s.removeFolder()
	}
	if d := s.docs[len(s.docs)-1]; !d.open && s.rng.IntN(8) == 0 {
		return s.open(d)
	}
	switch r := s.rng.IntN(100); {
	case r < 32:
		return s.editSome()
	case r < 35:
		return s.closeOne()
	case r < 55:
		return s.assemble("query", false, false)
	case r < 70:
		return s.assemble("focus", false, false)
	case r < 78:
		return s.assemble("diff", false, false)
	case r < 87:
		return s.expand()
	case r < 93:
		return s.assemble("query", true, false) // cancelled
	default:
		return s.assemble("focus", false, true) // an edit while it runs
	}
}

// openDocs lists the open documents.
func (s *lspSession) openDocs() []*document {
	var out []*document
	for _, d := range s.docs {
		if d.open {
			out = append(out, d)
		}
	}
	return out
}

// editSome edits an open document.
func (s *lspSession) editSome() error {
	open := s.openDocs()
	if len(open) == 0 {
		return s.open(s.docs[0])
	}
	return s.edit(open[s.rng.IntN(len(open))])
}

// edit sends the next edit of d.
func (s *lspSession) edit(d *document) error {
	e := s.ed.next(d.rel, d.text, d.disk, d.markers)
	d.version++
	d.text = e.text
	if e.kind == "full" {
		d.markers = nil
	}
	if e.marker != "" {
		d.markers = append(d.markers, e.marker)
	}
	kept := d.markers[:0]
	for _, m := range d.markers {
		if m != e.removed && strings.Contains(d.text, m) {
			kept = append(kept, m)
		}
	}
	d.markers = kept
	if e.diff != "" {
		s.lastDiff = e.diff
	}
	s.texts.set(d.abs, d.text, true)
	return s.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": d.uri, "version": d.version},
		"contentChanges": e.changes,
	})
}

// closeOne closes an open document (its disk text comes back).
func (s *lspSession) closeOne() error {
	open := s.openDocs()
	if len(open) < 2 {
		return nil
	}
	d := open[s.rng.IntN(len(open))]
	d.open = false
	s.texts.set(d.abs, d.disk, false)
	return s.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": d.uri}})
}

// budget picks a request's budget; it returns the params and maxTokens.
func (s *lspSession) budget() (map[string]any, int) {
	maxTok := []int{800, 2000, 4000, 8000}[s.rng.IntN(4)]
	b := map[string]any{"maxTokens": maxTok}
	if s.rng.IntN(4) == 0 {
		b["perFileMaxTokens"] = maxTok / 2
	}
	if s.rng.IntN(4) == 0 {
		b["perPartMaxTokens"] = maxTok / 4
	}
	return b, maxTok
}

// assemble sends a context/assemble of the kind (query, focus, diff),
// cancelled right after it is sent, or followed by an edit while it runs.
func (s *lspSession) assemble(kind string, cancel, editWhile bool) error {
	b, maxTok := s.budget()
	params := map[string]any{
		"budget":   b,
		"format":   []string{"markdown", "xml", "json"}[s.rng.IntN(3)],
		"strategy": []string{"grouped", "interleaved", "score"}[s.rng.IntN(3)],
	}
	if s.rng.IntN(5) == 0 {
		params["encoding"] = []string{"approx", "o200k_base"}[s.rng.IntN(2)]
	}
	open := s.openDocs()
	switch {
	case kind == "diff" && s.lastDiff != "":
		params["diff"] = s.lastDiff
	case kind == "focus" && len(open) > 0:
		d := open[s.rng.IntN(len(open))]
		pos := s.focusIn(d)
		params["focus"] = map[string]any{"uri": d.uri, "position": pos}
		kind = fmt.Sprintf("focus (%s line %d of %d, 0-based, at send)", d.rel, pos.Line, numLines(d.text))
	default:
		kind = "query"
		params["query"] = s.query(open)
	}
	var after func()
	if editWhile && len(open) > 0 {
		d := open[s.rng.IntN(len(open))]
		after = func() { s.edit(d) }
		kind += ", then an edit of " + d.rel
	}
	res, from, err := s.request(mAssemble, kind, params, cancel, after)
	if err != nil || res == nil {
		return err
	}
	s.cfg.chk.check(s.answer(mAssemble+" "+kind, s.cfg.tree, s.treeURI, maxTok, from), res)
	if len(res.Omitted) > 0 || len(res.Parts) > 0 {
		s.last, s.lastFrom = res, from
	}
	return nil
}

// focusIn picks a focus position in d: a marker's line, else any line.
func (s *lspSession) focusIn(d *document) position {
	starts := lineStarts(d.text)
	if len(starts) == 0 {
		return position{}
	}
	off := starts[s.rng.IntN(len(starts))]
	if len(d.markers) > 0 && s.rng.IntN(2) == 0 {
		if i := strings.Index(d.text, d.markers[s.rng.IntN(len(d.markers))]); i >= 0 {
			off = i
		}
	}
	ls := strings.LastIndexByte(d.text[:off], '\n') + 1
	le := strings.IndexByte(d.text[ls:], '\n')
	if le < 0 {
		le = len(d.text) - ls
	}
	p := posAt(d.text, ls)
	p.Character = s.rng.IntN(utf16Len(d.text[ls:ls+le]) + 1)
	return p
}

// query is a marker the session's buffers hold (so that the answer shows
// the buffer), or a question about the tree.
func (s *lspSession) query(open []*document) string {
	if len(open) > 0 && s.rng.IntN(3) != 0 {
		d := open[s.rng.IntN(len(open))]
		if len(d.markers) > 0 {
			return d.markers[s.rng.IntN(len(d.markers))] + " " + queries[s.rng.IntN(len(queries))]
		}
	}
	return queries[s.rng.IntN(len(queries))]
}

// expand sends a context/expand of handles of the last answer (with its
// indexState), or of lines of an open document.
func (s *lspSession) expand() error {
	b, maxTok := s.budget()
	params := map[string]any{"budget": b}
	from := int64(-1)
	open := s.openDocs()
	switch {
	case s.last != nil && s.rng.IntN(4) != 0:
		var hs []string
		for _, o := range s.last.Omitted {
			if len(hs) < 3 && o.Handle != "" {
				hs = append(hs, o.Handle)
			}
		}
		if len(hs) == 0 {
			for _, p := range s.last.Parts {
				hs = append(hs, p.Path+"#L"+fmt.Sprint(p.Ranges[0].Start)+"-"+fmt.Sprint(p.Ranges[0].End))
				break
			}
		}
		params["handles"] = hs
		params["indexState"] = s.last.Stats.IndexState
		from = s.lastFrom
	case len(open) > 0:
		d := open[s.rng.IntN(len(open))]
		n := numLines(d.text)
		a := 1 + s.rng.IntN(max1(n))
		e := min(n, a+s.rng.IntN(40))
		params["uri"] = d.uri
		params["ranges"] = []lineRange{{Start: a, End: max(a, e)}}
	default:
		return s.assemble("query", false, false)
	}
	res, sentAt, err := s.request(mExpand, "", params, false, nil)
	if err != nil || res == nil {
		return err
	}
	// An answer from the held state shows the state of the earlier
	// answer: any text from when that request was sent.
	if !res.FromHeldState || from < 0 {
		from = sentAt
	}
	s.cfg.chk.check(s.answer(mExpand, s.cfg.tree, s.treeURI, maxTok, from), res)
	return nil
}

func max1(n int) int { return max(n, 1) }

// answer describes an answer for the checker.
func (s *lspSession) answer(what, root, rootURI string, maxTok int, from int64) answer {
	return answer{
		label: fmt.Sprintf("s%d %s", s.cfg.id, what), root: root, rootURI: rootURI,
		askedMax: maxTok, from: from, to: s.texts.now(), texts: s.texts, disk: s.cfg.disk, checkURIs: true,
	}
}

// request sends a request (cancelling it at once when cancel; calling
// after once it is sent), waits for the answer, records it, and returns
// the result (nil after an error) and the change count when it was sent.
// A broken promise (an error answer) is recorded, not returned: only a
// connection that cannot go on is an error.
func (s *lspSession) request(method, kind string, params any, cancel bool, after func()) (*resultJSON, int64, error) {
	from := s.texts.now()
	start := time.Now()
	id, ch, err := s.conn.call(method, params)
	if err != nil {
		return nil, from, err
	}
	if cancel {
		s.conn.notify("$/cancelRequest", map[string]any{"id": id})
	}
	if after != nil {
		after()
	}
	m, err := wait(ch, s.cfg.timeout)
	d := time.Since(start)
	if err == nil && m.Error != nil {
		err = m.Error
	}
	var res resultJSON
	if err == nil {
		if uerr := json.Unmarshal(m.Result, &res); uerr != nil {
			err = fmt.Errorf("%s: a result that does not decode: %w", method, uerr)
		}
	}
	key := ""
	if err == nil && !cancel {
		switch {
		case method == mExpand:
			key = latExpand
		case res.Stats.IndexComplete:
			key = latAssembleComplete
		default:
			key = latAssembleIndexing
		}
	}
	if s.cfg.rec.request(method, err, cancel, key, d) {
		s.cfg.chk.mu.Lock()
		s.cfg.chk.failf("error", "s%d %s %s: %v", s.cfg.id, method, kind, err)
		s.cfg.chk.mu.Unlock()
	}
	if errors.Is(err, errConnClosed) {
		return nil, from, fmt.Errorf("%s: the server closed the connection", method)
	}
	if err != nil {
		return nil, from, nil
	}
	return &res, from, nil
}

// addFolder makes a small folder under the extra root, adds it as a
// workspace folder, and asks for context focused in one of its files.
func (s *lspSession) addFolder() error {
	s.folders++
	dir := filepath.Join(s.cfg.extraRoot, fmt.Sprintf("s%d-f%d", s.cfg.id, s.folders))
	files, err := makeExtraFolder(s.cfg.goroot, s.cfg.id+s.folders, dir)
	if err != nil {
		return err
	}
	s.cfg.disk.forget(dir)
	s.extra, s.extraFiles = dir, files
	if err := s.notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{
		"added": []map[string]any{{"uri": dirURI(dir), "name": filepath.Base(dir)}}, "removed": []any{}}}); err != nil {
		return err
	}
	rel := files[s.rng.IntN(len(files))]
	text, _ := s.cfg.disk.get(filepath.Join(dir, filepath.FromSlash(rel)))
	b, maxTok := s.budget()
	params := map[string]any{"budget": b, "focus": map[string]any{
		"uri": fileURI(dirURI(dir), rel), "position": position{Line: s.rng.IntN(max1(numLines(text)))}}}
	res, from, err := s.request(mAssemble, "focus in an added folder", params, false, nil)
	if err != nil || res == nil {
		return err
	}
	s.cfg.chk.check(s.answer(mAssemble+" focus in an added folder", dir, dirURI(dir), maxTok, from), res)
	return nil
}

// removeFolder removes the extra folder and deletes it from disk.
func (s *lspSession) removeFolder() error {
	dir := s.extra
	s.extra = ""
	err := s.notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{
		"added": []any{}, "removed": []map[string]any{{"uri": dirURI(dir), "name": filepath.Base(dir)}}}})
	os.RemoveAll(dir)
	return err
}
