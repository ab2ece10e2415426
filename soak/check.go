package soak

import (
	"fmt"
	"math"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// Checks counts what the harness checked in the answers and what broke a
// promise.
type Checks struct {
	// Answers: results checked (context/assemble and context/expand, or
	// the MCP tools' results).
	Answers int `json:"answers"`
	// Parts: parts checked.
	Parts int `json:"parts"`
	// BufferParts: parts of a file the client had open (an editor
	// buffer) when it sent the request, or opened while it ran.
	BufferParts int `json:"bufferParts"`
	// StaleBufferParts: buffer parts whose text was not the buffer's
	// latest text (docs/reliability.md); StaleWhileIndexing of them came
	// in answers with stats.indexComplete false.
	StaleBufferParts   int `json:"staleBufferParts"`
	StaleWhileIndexing int `json:"staleWhileIndexing"`
	// DiskParts: parts of files not open in the session, checked against
	// the file on disk; DiskMismatches did not match it.
	DiskParts      int `json:"diskParts"`
	DiskMismatches int `json:"diskMismatches"`
	// BudgetExceeded: answers whose stats.totalTokens is over the budget
	// asked (or whose stats.maxTokens is not the budget asked).
	BudgetExceeded int `json:"budgetExceeded"`
	// PathsOutside: parts whose path or URI is not inside the folder
	// that answered.
	PathsOutside int `json:"pathsOutside"`
	// IndexingAnswers: answers with stats.indexComplete false.
	IndexingAnswers int `json:"indexingAnswers"`
	// PeerBufferParts: parts that show another client's buffer of the
	// file: a broken promise (they are DiskMismatches too), since each
	// session reads its own buffers only (docs/protocol.md, "Several
	// sessions, one index").
	PeerBufferParts int `json:"peerBufferParts"`
}

// maxFailures is how many failure descriptions of each kind a checker
// keeps.
const maxFailures = 10

// Failure kinds, in the order a report lists them.
var failureKinds = []string{"error", "budget", "path", "stale", "disk", "fresh"}

// checker accumulates Checks and the first failures of a phase.
type checker struct {
	mu       sync.Mutex
	c        Checks
	failures map[string][]string // by kind
	// peers are the other clients' texts: a part may show one (see
	// Checks.PeerBufferParts), and a wrong part says whose it shows.
	peers *peerTexts
	// isolated: another client's buffer is never to be seen (the
	// server's promise; the harness's own test also runs without it).
	isolated bool
	// clock orders the changes of every client of the phase.
	clock atomic.Int64
}

// failf records a failure description of a kind. k.mu is held.
func (k *checker) failf(kind, format string, args ...any) {
	if k.failures == nil {
		k.failures = map[string][]string{}
	}
	if len(k.failures[kind]) < maxFailures {
		k.failures[kind] = append(k.failures[kind], fmt.Sprintf(format, args...))
	}
}

// snapshot copies the counts and failures.
func (k *checker) snapshot() (Checks, []string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []string
	for _, kind := range failureKinds {
		out = append(out, k.failures[kind]...)
	}
	return k.c, out
}

// peerTexts are the text logs of every client of a phase, by name.
type peerTexts struct {
	mu   sync.Mutex
	logs map[string]*textLog
}

func newPeerTexts() *peerTexts { return &peerTexts{logs: map[string]*textLog{}} }

func (p *peerTexts) add(name string, t *textLog) {
	p.mu.Lock()
	p.logs[name] = t
	p.mu.Unlock()
}

// whose names the clients other than self that gave abs a buffer text
// that the part shows.
func (p *peerTexts) whose(self *textLog, abs string, part partJSON) string {
	if p == nil {
		return ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var names []string
	for name, t := range p.logs {
		if t == self {
			continue
		}
		t.mu.Lock()
		for _, v := range t.hist[abs] {
			if v.buffer && partMatches(v.text, part.Ranges, part.Text) {
				names = append(names, name)
				break
			}
		}
		t.mu.Unlock()
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// partJSON is a part of a result as the harness reads it (LSP parts carry
// uri and text; MCP parts come with the text from the rendered JSON).
type partJSON struct {
	ID     string      `json:"id"`
	URI    string      `json:"uri"`
	Path   string      `json:"path"`
	Ranges []lineRange `json:"ranges"`
	Text   string      `json:"text"`
	Level  string      `json:"level"`
}

// statsJSON is a result's stats.
type statsJSON struct {
	TotalTokens   int    `json:"totalTokens"`
	MaxTokens     int    `json:"maxTokens"`
	IndexState    string `json:"indexState"`
	IndexComplete bool   `json:"indexComplete"`
	Note          string `json:"note"`
}

// omittedJSON is a candidate a result left out.
type omittedJSON struct {
	Handle string `json:"handle"`
	Path   string `json:"path"`
}

// resultJSON is a context/assemble or context/expand result.
type resultJSON struct {
	Parts         []partJSON    `json:"parts"`
	Stats         statsJSON     `json:"stats"`
	Omitted       []omittedJSON `json:"omitted"`
	FromHeldState bool          `json:"fromHeldState"`
}

// version is one text a client gave a file: an editor buffer, or the disk
// text (after didClose, or written by an MCP client).
type version struct {
	seq    int64
	text   string
	buffer bool
	// until: a request sent before this change count may still show this
	// text though a newer one is recorded (a file being replaced on disk;
	// 0: no such grace).
	until int64
}

// textLog is the history of the texts a client gave its files: each file's
// versions in the order of clock, a change counter shared by the clients
// of a phase (so that a change of one client can be placed before or after
// a request of another).
type textLog struct {
	mu    sync.Mutex
	clock *atomic.Int64
	hist  map[string][]version // by absolute path
}

// newTextLog makes a log on clock (nil: a clock of its own).
func newTextLog(clock *atomic.Int64) *textLog {
	if clock == nil {
		clock = new(atomic.Int64)
	}
	return &textLog{clock: clock, hist: map[string][]version{}}
}

// keepVersions is how many old versions of a file are kept to say, in a
// failure, which older text a stale part showed.
const keepVersions = 16

// set records a new text of the file at abs.
func (t *textLog) set(abs, text string, buffer bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	h := append(t.hist[abs], version{seq: t.clock.Add(1), text: text, buffer: buffer})
	if len(h) > keepVersions+8 {
		h = append([]version(nil), h[len(h)-keepVersions:]...)
	}
	t.hist[abs] = h
}

// replace records that the file at abs changes on disk to text by write:
// the server may read the file at any moment of the write, so an answer
// to a request answered after the write began may show the new text, and
// one to a request sent before it ended the old (recorded only after
// the write would leave a request that ran between the two with a text
// the log does not know yet).
func (t *textLog) replace(abs, text string, write func() error) error {
	t.mu.Lock()
	h := t.hist[abs]
	oldSeq := int64(-1)
	if n := len(h); n > 0 {
		h[n-1].until = math.MaxInt64 // until the write has ended
		oldSeq = h[n-1].seq
	}
	t.mu.Unlock()
	t.set(abs, text, false)
	err := write()
	end := t.clock.Add(1)
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := range t.hist[abs] {
		if t.hist[abs][i].seq == oldSeq {
			t.hist[abs][i].until = end
		}
	}
	return err
}

// now is the current change count.
func (t *textLog) now() int64 { return t.clock.Load() }

// window returns the texts of abs an answer to a request sent at change
// count from and answered at change count to may show — the one current
// at from and every later one up to to — and the older ones kept (newest
// first). known is false when the client never gave the file a text.
func (t *textLog) window(abs string, from, to int64) (ok, older []version, known bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	h := t.hist[abs]
	if len(h) == 0 {
		return nil, nil, false
	}
	cur := -1
	for i, v := range h {
		if v.seq <= from {
			cur = i
		}
	}
	for i, v := range h {
		switch {
		case i == cur || (v.seq > from && v.seq <= to) || (i < cur && v.until > from):
			ok = append(ok, v)
		case i < cur:
			older = append([]version{v}, older...)
		}
	}
	return ok, older, true
}

// latest is the newest text of abs.
func (t *textLog) latest(abs string) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	h := t.hist[abs]
	if len(h) == 0 {
		return "", false
	}
	return h[len(h)-1].text, true
}

// diskTexts reads files from disk once (the trees do not change while
// LSP sessions run; MCP clients record what they write in a textLog).
type diskTexts struct {
	mu    sync.Mutex
	texts map[string]*string // nil: the file does not exist
}

func newDiskTexts() *diskTexts { return &diskTexts{texts: map[string]*string{}} }

func (d *diskTexts) get(abs string) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	t, seen := d.texts[abs]
	if !seen {
		if b, err := os.ReadFile(abs); err == nil {
			s := string(b)
			t = &s
		}
		d.texts[abs] = t
	}
	if t == nil {
		return "", false
	}
	return *t, true
}

// forget drops what was read under dir (a folder deleted and made again).
func (d *diskTexts) forget(dir string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for p := range d.texts {
		if strings.HasPrefix(p, dir+string(filepath.Separator)) {
			delete(d.texts, p)
		}
	}
}

// answer is what a check needs to know about one answer.
type answer struct {
	label     string // e.g. "s3 context/assemble query"
	root      string // the folder that answered (absolute)
	rootURI   string // its URI as the client spelled it
	askedMax  int    // the budget asked, 0 when none
	from, to  int64  // the client's change counts at send and answer
	texts     *textLog
	disk      *diskTexts
	checkURIs bool // LSP parts carry a uri
}

// check checks one result: the budget, every part's path, and every
// part's text against the texts the client had given its file.
func (k *checker) check(a answer, res *resultJSON) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.c.Answers++
	st := res.Stats
	if !st.IndexComplete {
		k.c.IndexingAnswers++
	}
	if st.TotalTokens > st.MaxTokens || (a.askedMax > 0 && st.MaxTokens != a.askedMax) {
		k.c.BudgetExceeded++
		k.failf("budget", "%s: budget: totalTokens %d, maxTokens %d, asked %d", a.label, st.TotalTokens, st.MaxTokens, a.askedMax)
	}
	for _, p := range res.Parts {
		k.c.Parts++
		abs, ok := insideRoot(a.root, p.Path)
		if ok && a.checkURIs && p.URI != fileURI(a.rootURI, p.Path) {
			ok = false
		}
		if !ok {
			k.c.PathsOutside++
			k.failf("path", "%s: part %s path %q (uri %q) is not inside the folder %s", a.label, p.ID, p.Path, p.URI, a.root)
			continue
		}
		k.checkText(a, st, p, abs)
	}
}

// checkText checks a part's text against the texts its file may show.
func (k *checker) checkText(a answer, st statsJSON, p partJSON, abs string) {
	var ok, older []version
	known := false
	if a.texts != nil {
		ok, older, known = a.texts.window(abs, a.from, a.to)
	}
	if !known {
		k.c.DiskParts++
		text, exists := a.disk.get(abs)
		if !exists {
			k.c.DiskMismatches++
			k.failf("disk", "%s: part %s of %s, which does not exist", a.label, p.ID, p.Path)
			return
		}
		if !partMatches(text, p.Ranges, p.Text) {
			// Another session's buffer: the server reads the sessions'
			// connections independently, so it may show any text that
			// session gave the file before the answer — not necessarily
			// its latest.
			if who := k.peers.whose(a.texts, abs, p); who != "" {
				k.c.PeerBufferParts++
				if !k.isolated {
					return
				}
				k.c.DiskMismatches++
				k.failf("disk", "%s: part %s %s lines %v shows the buffer of another client (%s); sessions are to be isolated", a.label, p.ID, p.Path, p.Ranges, who)
				return
			}
			k.c.DiskMismatches++
			what := "no text a client gave it"
			if who := k.peers.whose(a.texts, abs, p); who != "" {
				what = "the buffer of another client: " + who
			}
			k.failf("disk", "%s: part %s %s lines %v is not the file's text on disk: it is %s", a.label, p.ID, p.Path, p.Ranges, what)
		}
		return
	}
	buffer := false
	for _, v := range ok {
		buffer = buffer || v.buffer
		if partMatches(v.text, p.Ranges, p.Text) {
			if v.buffer {
				k.c.BufferParts++
			} else {
				k.c.DiskParts++
			}
			return
		}
	}
	what := "no text the client gave it"
	for i, v := range older {
		if partMatches(v.text, p.Ranges, p.Text) {
			kind := "disk text"
			if v.buffer {
				kind = "buffer text"
			}
			what = fmt.Sprintf("the %s of %d change(s) before", kind, i+1)
			break
		}
	}
	if !buffer {
		k.c.DiskParts++
		k.c.DiskMismatches++
		k.failf("disk", "%s: part %s %s lines %v (level %s) is not the file's text: it is %s", a.label, p.ID, p.Path, p.Ranges, p.Level, what)
		return
	}
	k.c.BufferParts++
	k.c.StaleBufferParts++
	if !st.IndexComplete {
		k.c.StaleWhileIndexing++
	}
	k.failf("stale", "%s: part %s %s lines %v (level %s, indexComplete %v) is not the buffer's latest text: it is %s",
		a.label, p.ID, p.Path, p.Ranges, p.Level, st.IndexComplete, what)
}

// insideRoot joins a part's slash path to root, and reports whether it is
// a clean relative path that stays inside root.
func insideRoot(root, rel string) (string, bool) {
	if rel == "" || path.IsAbs(rel) || strings.Contains(rel, "\\") || path.Clean(rel) != rel ||
		rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return filepath.Join(root, filepath.FromSlash(rel)), true
}

// fileURI is the URI of rel inside the folder whose URI is base, as the
// server builds it (each path segment escaped).
func fileURI(base, rel string) string {
	segs := strings.Split(rel, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.TrimSuffix(base, "/") + "/" + strings.Join(segs, "/")
}

// dirURI is the file: URI of an absolute directory.
func dirURI(abs string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}
