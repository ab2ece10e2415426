package soak

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf16"
)

// applyLSP applies content changes the way the protocol defines them,
// independently of the harness's own bookkeeping: positions are UTF-16
// code units of "\n"-separated lines.
func applyLSP(t *testing.T, text string, changes []contentChange) string {
	t.Helper()
	for _, c := range changes {
		if c.Range == nil {
			text = c.Text
			continue
		}
		off := func(p position) int {
			lines := strings.SplitAfter(text, "\n")
			if p.Line >= len(lines) {
				return len(text)
			}
			o := 0
			for _, l := range lines[:p.Line] {
				o += len(l)
			}
			u := utf16.Encode([]rune(strings.TrimSuffix(lines[p.Line], "\n")))
			if p.Character > len(u) {
				t.Fatalf("character %d past the line's %d units", p.Character, len(u))
			}
			return o + len(string(utf16.Decode(u[:p.Character])))
		}
		a, b := off(c.Range.Start), off(c.Range.End)
		text = text[:a] + c.Text + text[b:]
	}
	return text
}

// Every edit the editor makes says the text that follows from its
// changes, also on lines with characters outside the BMP.
func TestEditorChangesMatchText(t *testing.T) {
	disk := "package p\n\n// héllo 𝄞 wörld\nfunc A() {}\n\nfunc B() { _ = \"𝄞𝄞\" }\n"
	text := disk
	e := &editor{rng: rand.New(rand.NewPCG(7, 7)), session: 1}
	var markers []string
	kinds := map[string]int{}
	for i := 0; i < 2000; i++ {
		ed := e.next("p/p.go", text, disk, markers)
		got := applyLSP(t, text, ed.changes)
		if got != ed.text {
			t.Fatalf("edit %d (%s): applying the changes gives\n%q\nthe edit says\n%q", i, ed.kind, got, ed.text)
		}
		kinds[ed.kind]++
		text = ed.text
		if ed.marker != "" {
			markers = append(markers, ed.marker)
		}
		kept := markers[:0]
		for _, m := range markers {
			if m != ed.removed && strings.Contains(text, m) {
				kept = append(kept, m)
			}
		}
		markers = kept
	}
	for _, k := range []string{"add-func", "add-comment", "add-broken", "remove-line", "replace", "two-changes", "full"} {
		if kinds[k] == 0 {
			t.Errorf("no %s edit in 2000: %v", k, kinds)
		}
	}
}

// The diffs of the edits apply with git to the text before and give the
// text after.
func TestEditorDiffsApply(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed")
	}
	disk := "package p\n\nfunc A() {}\n\nfunc B() {}\n\nfunc C() {}\n"
	text := disk
	e := &editor{rng: rand.New(rand.NewPCG(3, 3)), session: 2}
	var markers []string
	dir := t.TempDir()
	applied := 0
	for i := 0; i < 60; i++ {
		ed := e.next("p.go", text, disk, markers)
		if ed.marker != "" {
			markers = append(markers, ed.marker)
		}
		if ed.diff != "" {
			if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("git", "apply", "-")
			cmd.Dir, cmd.Stdin = dir, strings.NewReader(ed.diff)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("edit %d (%s): git apply: %v\n%s\ndiff:\n%s", i, ed.kind, err, out, ed.diff)
			}
			b, _ := os.ReadFile(filepath.Join(dir, "p.go"))
			if string(b) != ed.text {
				t.Fatalf("edit %d (%s): the diff gives\n%q\nwant\n%q", i, ed.kind, b, ed.text)
			}
			applied++
		}
		text = ed.text
	}
	if applied < 20 {
		t.Fatalf("only %d diffs in 60 edits", applied)
	}
}

// The checker tells a part with the latest buffer text from one with an
// older text, an elided part from a wrong one, a budget overrun and a
// path outside the folder.
func TestCheckerFindsBrokenPromises(t *testing.T) {
	clock := new(atomic.Int64)
	root := t.TempDir()
	abs := filepath.Join(root, "a.go")
	disk := "package a\n\nfunc A() {}\n\nfunc B() {}\n"
	if err := os.WriteFile(abs, []byte(disk), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(root, "b.go")
	if err := os.WriteFile(other, []byte("package a\n\nvar X = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	texts := newTextLog(clock)
	texts.set(abs, disk, false)
	v1 := "package a\n\nfunc A() { one() }\n\nfunc B() {}\n"
	texts.set(abs, v1, true)
	from := texts.now()
	v2 := "package a\n\nfunc A() { two() }\n\nfunc B() {}\n"
	texts.set(abs, v2, true) // sent while the request ran
	to := texts.now()
	rootURI := dirURI(root)
	a := answer{label: "t", root: root, rootURI: rootURI, askedMax: 100, from: from, to: to, texts: texts, disk: newDiskTexts(), checkURIs: true}
	part := func(path, text string, rs ...lineRange) partJSON {
		return partJSON{ID: "p1", URI: fileURI(rootURI, path), Path: path, Ranges: rs, Text: text}
	}
	cases := []struct {
		name string
		res  resultJSON
		want Checks
	}{
		{"the buffer at send", resultJSON{Parts: []partJSON{part("a.go", "func A() { one() }\n", lineRange{3, 3})}, Stats: statsJSON{IndexComplete: true}},
			Checks{Answers: 1, Parts: 1, BufferParts: 1}},
		{"the buffer sent while it ran", resultJSON{Parts: []partJSON{part("a.go", "func A() { two() }\n[... 1 line elided ...]\nfunc B() {}\n", lineRange{3, 3}, lineRange{5, 5})}, Stats: statsJSON{IndexComplete: true}},
			Checks{Answers: 1, Parts: 1, BufferParts: 1}},
		{"the disk text of an open buffer", resultJSON{Parts: []partJSON{part("a.go", "func A() {}\n", lineRange{3, 3})}, Stats: statsJSON{IndexComplete: false}},
			Checks{Answers: 1, Parts: 1, BufferParts: 1, StaleBufferParts: 1, StaleWhileIndexing: 1, IndexingAnswers: 1}},
		{"lines past the end", resultJSON{Parts: []partJSON{part("a.go", "x\n", lineRange{9, 9})}, Stats: statsJSON{IndexComplete: true}},
			Checks{Answers: 1, Parts: 1, BufferParts: 1, StaleBufferParts: 1}},
		{"a closed file as on disk", resultJSON{Parts: []partJSON{part("b.go", "var X = 1\n", lineRange{3, 3})}, Stats: statsJSON{IndexComplete: true}},
			Checks{Answers: 1, Parts: 1, DiskParts: 1}},
		{"a closed file not as on disk", resultJSON{Parts: []partJSON{part("b.go", "var X = 2\n", lineRange{3, 3})}, Stats: statsJSON{IndexComplete: true}},
			Checks{Answers: 1, Parts: 1, DiskParts: 1, DiskMismatches: 1}},
		{"over budget", resultJSON{Stats: statsJSON{TotalTokens: 101, MaxTokens: 100, IndexComplete: true}},
			Checks{Answers: 1, BudgetExceeded: 1}},
		{"another budget", resultJSON{Stats: statsJSON{TotalTokens: 10, MaxTokens: 200, IndexComplete: true}},
			Checks{Answers: 1, BudgetExceeded: 1}},
		{"a path climbing out", resultJSON{Parts: []partJSON{part("../x/a.go", "", lineRange{1, 1})}, Stats: statsJSON{IndexComplete: true}},
			Checks{Answers: 1, Parts: 1, PathsOutside: 1}},
		{"a uri elsewhere", resultJSON{Parts: []partJSON{{ID: "p1", URI: "file:///etc/passwd", Path: "a.go", Ranges: []lineRange{{1, 1}}}}, Stats: statsJSON{IndexComplete: true}},
			Checks{Answers: 1, Parts: 1, PathsOutside: 1}},
	}
	for _, c := range cases {
		k := &checker{}
		res := c.res
		if res.Stats.MaxTokens == 0 {
			res.Stats.MaxTokens = 100
		}
		k.check(a, &res)
		got, failures := k.snapshot()
		if got != c.want {
			t.Errorf("%s: checks %+v, want %+v (failures %q)", c.name, got, c.want, failures)
		}
	}
}

// A part whose text is an older buffer says which one.
func TestCheckerNamesTheOlderText(t *testing.T) {
	clock := new(atomic.Int64)
	root := t.TempDir()
	abs := filepath.Join(root, "a.go")
	texts := newTextLog(clock)
	texts.set(abs, "a\nb\n", false)
	texts.set(abs, "a\nB1\n", true)
	texts.set(abs, "a\nB2\n", true)
	k := &checker{}
	k.check(answer{label: "t", root: root, rootURI: dirURI(root), from: texts.now(), to: texts.now(), texts: texts, disk: newDiskTexts()},
		&resultJSON{Parts: []partJSON{{ID: "p1", Path: "a.go", Ranges: []lineRange{{2, 2}}, Text: "B1\n"}}, Stats: statsJSON{MaxTokens: 1, IndexComplete: true}})
	c, f := k.snapshot()
	if c.StaleBufferParts != 1 || len(f) != 1 || !strings.Contains(f[0], "the buffer text of 1 change(s) before") {
		t.Fatalf("checks %+v, failures %q", c, f)
	}
}

// A file replaced on disk: a request that ran during the write may show
// the old text or the new; one sent after it, the new text only; one
// answered before the write began, the old text only.
func TestTextLogReplace(t *testing.T) {
	texts := newTextLog(nil)
	abs := "/tree/a.go"
	texts.set(abs, "old\n", false)
	before := texts.now()
	var during int64
	if err := texts.replace(abs, "new\n", func() error { during = texts.now(); return nil }); err != nil {
		t.Fatal(err)
	}
	after := texts.now()
	shows := func(from, to int64) []string {
		ok, _, _ := texts.window(abs, from, to)
		var out []string
		for _, v := range ok {
			out = append(out, strings.TrimSpace(v.text))
		}
		return out
	}
	for _, c := range []struct {
		name     string
		from, to int64
		want     string
	}{
		{"answered before the write", before, before, "old"},
		{"sent during the write, answered after it", during, after, "old new"},
		{"sent and answered during the write", during, during, "old new"},
		{"sent after the write", after, after, "new"},
	} {
		if got := strings.Join(shows(c.from, c.to), " "); got != c.want {
			t.Errorf("%s: may show %q, want %q", c.name, got, c.want)
		}
	}
	if err := texts.replace(abs, "x\n", func() error { return os.ErrPermission }); err != os.ErrPermission {
		t.Errorf("the write's error: %v", err)
	}
}

func TestSummarize(t *testing.T) {
	var ms []float64
	for i := 1; i <= 100; i++ {
		ms = append(ms, float64(i))
	}
	if l := summarize(ms); l.N != 100 || l.P50 != 50 || l.P95 != 95 || l.Max != 100 {
		t.Fatalf("summarize(1..100) = %+v", l)
	}
	if l := summarize(nil); l.N != 0 {
		t.Fatalf("summarize(nil) = %+v", l)
	}
}

// A part of a file the client does not have open may show another
// client's buffer (a server sharing one index among sessions); with
// isolated sessions that is a broken promise.
func TestCheckerPeerBuffer(t *testing.T) {
	root := t.TempDir()
	abs := filepath.Join(root, "a.go")
	if err := os.WriteFile(abs, []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, isolated := range []bool{false, true} {
		k := &checker{peers: newPeerTexts(), isolated: isolated}
		mine, theirs := newTextLog(&k.clock), newTextLog(&k.clock)
		k.peers.add("session s1", mine)
		k.peers.add("session s2", theirs)
		theirs.set(abs, "a\nB\n", true)
		from := mine.now()
		k.check(answer{label: "t", root: root, rootURI: dirURI(root), texts: mine, disk: newDiskTexts(), from: from, to: from},
			&resultJSON{Parts: []partJSON{{ID: "p1", Path: "a.go", Ranges: []lineRange{{2, 2}}, Text: "B\n"}}, Stats: statsJSON{MaxTokens: 1, IndexComplete: true}})
		c, f := k.snapshot()
		want := Checks{Answers: 1, Parts: 1, DiskParts: 1, PeerBufferParts: 1}
		if isolated {
			want.DiskMismatches = 1
		}
		if c != want || (len(f) > 0) != isolated || (isolated && !strings.Contains(f[0], "another client (session s2)")) {
			t.Errorf("isolated %v: checks %+v, want %+v; failures %q", isolated, c, want, f)
		}
	}
}
