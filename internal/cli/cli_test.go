package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/ctxls/ctxls/internal/retrieve"
	"github.com/ctxls/ctxls/internal/tokens"
)

var (
	regOnce sync.Once
	reg     *tokens.Registry
)

// workspace extracts testdata/shop.txtar into a temporary directory and
// adds files that must never show up (ignored, secret).
func workspace(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	ar, err := txtar.ParseFile(filepath.Join("testdata", "shop.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		p := filepath.Join(dst, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dst, "secrets"), 0o755))
	must(os.WriteFile(filepath.Join(dst, "secrets", "key.txt"), []byte("checkout tax secret\n"), 0o644))
	must(os.WriteFile(filepath.Join(dst, "debug.log"), []byte("checkout tax log\n"), 0o644))
	must(os.WriteFile(filepath.Join(dst, "id_rsa"), []byte("-----BEGIN OPENSSH PRIVATE KEY-----\ncheckout tax\n-----END OPENSSH PRIVATE KEY-----\n"), 0o600))
	return dst
}

// ctxls runs a command and returns stdout, stderr and the exit status.
func ctxls(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	regOnce.Do(func() { reg = tokens.NewRegistry() })
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Tokens: reg})
	return out.String(), errb.String(), code
}

func assembleJSON(t *testing.T, args ...string) *retrieve.Response {
	t.Helper()
	out, stderr, code := ctxls(t, "", append([]string{"assemble", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r retrieve.Response
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	return &r
}

func paths(r *retrieve.Response) []string {
	var out []string
	for _, p := range r.Parts {
		out = append(out, p.Path+":"+p.Symbol)
	}
	return out
}

func has(r *retrieve.Response, path, symbolPart string) bool {
	for _, p := range r.Parts {
		if p.Path == path && strings.Contains(p.Symbol+"\n"+p.Text, symbolPart) {
			return true
		}
	}
	return false
}

func TestAssembleQuery(t *testing.T) {
	ws := workspace(t)
	cache := t.TempDir()
	r := assembleJSON(t, "--root", ws, "--cache-dir", cache, "--query", "how is the tax computed at checkout", "--budget", "1500")
	if !has(r, "tax/rates.go", "Compute") || !has(r, "cart/cart.go", "Checkout") {
		t.Fatalf("query: parts = %v", paths(r))
	}
	if r.Stats.TotalTokens > 1500 || !r.Stats.IndexComplete || r.Stats.IndexState == "" {
		t.Fatalf("stats = %+v", r.Stats)
	}
	for _, p := range r.Parts {
		if strings.HasPrefix(p.Path, "secrets/") || p.Path == "debug.log" || p.Path == "id_rsa" || p.Path == ".env" {
			t.Fatalf("ignored or secret file %s in the context", p.Path)
		}
	}
	// Byte-identical across runs and across a fresh rebuild of the index.
	out1, _, _ := ctxls(t, "", "assemble", "--root", ws, "--cache-dir", cache, "--query", "how is the tax computed at checkout", "--budget", "1500")
	out2, _, _ := ctxls(t, "", "assemble", "--root", ws, "--cache-dir", cache, "--query", "how is the tax computed at checkout", "--budget", "1500")
	out3, _, _ := ctxls(t, "", "assemble", "--root", ws, "--cache-dir", t.TempDir(), "--query", "how is the tax computed at checkout", "--budget", "1500")
	if out1 != out2 || out1 != out3 || out1 == "" {
		t.Fatalf("output differs between runs or after a rebuild:\n%s\n---\n%s\n---\n%s", out1, out2, out3)
	}
}

func TestAssembleFocus(t *testing.T) {
	ws := workspace(t)
	// Line 54 is inside Checkout, which calls Subtotal and tax.Compute.
	r := assembleJSON(t, "--root", ws, "--cache-dir", t.TempDir(), "--focus", "cart/cart.go:54", "--budget", "2000")
	if !has(r, "cart/cart.go", "Checkout") || !has(r, "tax/rates.go", "Compute") {
		t.Fatalf("focus: parts = %v", paths(r))
	}
	if r.Parts[0].Path != "cart/cart.go" {
		t.Errorf("the focused file is not first: %v", paths(r))
	}
}

func TestAssembleDiff(t *testing.T) {
	ws := workspace(t)
	diff := `--- a/tax/rates.go
+++ b/tax/rates.go
@@ -19,4 +19,4 @@ func RateFor(region string) int64 {
 func Compute(region string, cents int64) int64 {
 	bp := RateFor(region)
-	return (cents*bp + 5000) / 10000
+	return (cents*bp + 9999) / 10000
 }
`
	out, stderr, code := ctxls(t, diff, "assemble", "--root", ws, "--cache-dir", t.TempDir(), "--diff-file", "-", "--budget", "2000", "--format", "json", "--explain")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var resp retrieve.Response
	if err := json.Unmarshal([]byte(out), &resp); err != nil {
		t.Fatal(err)
	}
	// The caller of tax.Compute is what a reviewer needs.
	if !has(&resp, "cart/cart.go", "Checkout") {
		t.Fatalf("diff: parts = %v", paths(&resp))
	}
	found := false
	for _, e := range resp.Explain {
		if e.Part != "" && e.Channels[retrieve.ChanDiff] > 0 {
			found = true
		}
	}
	if !found {
		t.Errorf("--explain names no part brought by the diff channel: %+v", resp.Explain)
	}
}

func TestAssembleGitDiff(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ws := workspace(t)
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.email=t@t", "-c", "user.name=t"}, args...)...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-qm", "init")
	b, _ := os.ReadFile(filepath.Join(ws, "tax", "rates.go"))
	os.WriteFile(filepath.Join(ws, "tax", "rates.go"), bytes.Replace(b, []byte("5000"), []byte("4999"), 1), 0o644)
	out, stderr, code := ctxls(t, "", "assemble", "--root", ws, "--cache-dir", t.TempDir(), "--diff", "HEAD", "--budget", "2000")
	if code != 0 || !strings.Contains(out, "Checkout") {
		t.Fatalf("exit %d: %s\n%s", code, stderr, out)
	}
}

func TestExitCodes(t *testing.T) {
	ws := workspace(t)
	cart, err := os.ReadFile(filepath.Join(ws, "cart", "cart.go"))
	if err != nil {
		t.Fatal(err)
	}
	cartLines := strings.Count(string(cart), "\n")
	cases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no command", nil, 2, "usage"},
		{"unknown command", []string{"frobnicate"}, 2, "unknown command"},
		{"bad flag", []string{"assemble", "--root", ws, "--query", "x", "--bogus"}, 2, "usage: ctxls assemble"},
		{"missing root flag", []string{"assemble", "--query", "x"}, 2, "--root is required"},
		{"missing root dir", []string{"assemble", "--root", filepath.Join(ws, "nope"), "--query", "x"}, 2, "no such directory"},
		{"focus outside root", []string{"assemble", "--root", ws, "--focus", "/etc/passwd:1"}, 2, "outside the root"},
		{"focus malformed", []string{"assemble", "--root", ws, "--focus", "cart/cart.go"}, 2, "want path:line"},
		{"unknown encoding", []string{"assemble", "--root", ws, "--query", "x", "--encoding", "p50k"}, 2, "--encoding"},
		{"unknown format", []string{"assemble", "--root", ws, "--query", "x", "--format", "html"}, 2, "--format"},
		{"bad budget", []string{"assemble", "--root", ws, "--query", "x", "--budget", "0"}, 2, "--budget"},
		{"nothing to do", []string{"assemble", "--root", ws, "--query", "  "}, 2, "at least one of"},
		{"bad diff", []string{"assemble", "--root", ws, "--diff-file", "/dev/null", "--query", "x", "--diff", "HEAD"}, 2, "not both"},
		{"bad weights syntax", []string{"assemble", "--root", ws, "--query", "x", "--weights", "graph"}, 2, "--weights"},
		{"unknown mode", []string{"assemble", "--root", ws, "--cache-dir", t.TempDir(), "--query", "x", "--mode", "audit"}, 2, `--mode: unknown mode "audit"`},
		{"review without a diff", []string{"assemble", "--root", ws, "--cache-dir", t.TempDir(), "--query", "x", "--mode", "review"}, 2, "--mode: mode review needs a diff"},
		{"unknown channel", []string{"assemble", "--root", ws, "--cache-dir", t.TempDir(), "--query", "x", "--weights", "magic=1"}, 2, "--weights: unknown channel"},
		{"focus not indexed", []string{"assemble", "--root", ws, "--cache-dir", t.TempDir(), "--focus", "secrets/key.txt:1"}, 2, "is not indexed"},
		{"focus past the end", []string{"assemble", "--root", ws, "--cache-dir", t.TempDir(), "--focus", "cart/cart.go:99999"}, 2,
			fmt.Sprintf("--focus: line 99999 is past the end of cart/cart.go (%d lines)", cartLines)},
		{"focus one past the end", []string{"assemble", "--root", ws, "--cache-dir", t.TempDir(), "--focus", fmt.Sprintf("cart/cart.go:%d", cartLines+1)}, 2,
			fmt.Sprintf("--focus: line %d is past the end of cart/cart.go (%d lines)", cartLines+1, cartLines)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := ctxls(t, "", c.args...)
			if code != c.code || !strings.Contains(stderr, c.msg) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, stderr, c.code, c.msg)
			}
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
				t.Fatalf("stack trace in stderr: %s", stderr)
			}
		})
	}
}

// A cache directory that cannot be written fails `ctxls index` (status 1,
// one line naming the directory and why); `ctxls assemble` answers from an
// index in memory, with one warning. Before, `ctxls index` warned and
// exited 0, having saved nothing.
func TestCacheDirNotWritable(t *testing.T) {
	ws := workspace(t)
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(blocker, "cache")
	out, stderr, code := ctxls(t, "", "index", "--root", ws, "--cache-dir", cache)
	if code != 1 {
		t.Fatalf("ctxls index: exit %d, stdout %q, stderr %q; want exit 1", code, out, stderr)
	}
	want := fmt.Sprintf("ctxls: cannot write the index of %s to %s (", ws, cache)
	if !strings.HasPrefix(stderr, want) || !strings.Contains(stderr, "not a directory") || strings.Count(stderr, "\n") != 1 || strings.Contains(stderr, "warning") {
		t.Errorf("ctxls index: stderr %q, want one line starting %q and saying why", stderr, want)
	}
	if out != "" {
		t.Errorf("ctxls index printed %q", out)
	}
	out, stderr, code = ctxls(t, "", "assemble", "--root", ws, "--cache-dir", cache, "--query", "cart total")
	if code != 0 || !strings.Contains(out, "cart") {
		t.Fatalf("ctxls assemble: exit %d, stderr %q", code, stderr)
	}
	if strings.Count(stderr, "ctxls: warning: index: cannot write the index of") != 1 || !strings.Contains(stderr, "in memory") {
		t.Errorf("ctxls assemble: stderr %q, want one warning that the index is in memory", stderr)
	}
}

func TestIndexCommand(t *testing.T) {
	ws := workspace(t)
	cache := t.TempDir()
	out, stderr, code := ctxls(t, "", "index", "--root", ws, "--cache-dir", cache, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	type stats struct {
		Mode      string `json:"mode"`
		Files     int    `json:"files"`
		Chunks    int    `json:"chunks"`
		Changed   int    `json:"changed"`
		StateRoot string `json:"stateRoot"`
	}
	var st stats
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.Mode != "build" || st.Files < 5 {
		t.Fatalf("stats %s (%v)", out, err)
	}
	out, _, code = ctxls(t, "", "index", "--root", ws, "--cache-dir", cache)
	if code != 0 || !strings.HasPrefix(out, "open:") {
		t.Fatalf("second run: exit %d, %q", code, out)
	}
	// Nothing changed (told without opening the index), a change, then
	// nothing changed again: each run reports the state it leaves.
	index := func() stats {
		t.Helper()
		out, stderr, code := ctxls(t, "", "index", "--root", ws, "--cache-dir", cache, "--json")
		var st stats
		if code != 0 || json.Unmarshal([]byte(out), &st) != nil {
			t.Fatalf("ctxls index: exit %d, %q, %s", code, out, stderr)
		}
		return st
	}
	if again := index(); again.Mode != "open" || again.Files != st.Files || again.Chunks != st.Chunks || again.StateRoot != st.StateRoot {
		t.Fatalf("nothing changed: %+v, built %+v", again, st)
	}
	if err := os.WriteFile(filepath.Join(ws, "cart", "quickword.go"), []byte("package cart\n\n// quokkaquill marks the newest file.\nfunc quokkaquill() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	changed := index()
	if changed.Mode != "refresh" || changed.Changed != 1 || changed.Files != st.Files+1 || changed.StateRoot == st.StateRoot {
		t.Fatalf("after a change: %+v, before %+v", changed, st)
	}
	if again := index(); again.Mode != "open" || again.StateRoot != changed.StateRoot || again.Files != changed.Files || again.Chunks != changed.Chunks {
		t.Fatalf("nothing changed after the change: %+v, refreshed %+v", again, changed)
	}
	out, stderr, code = ctxls(t, "", "assemble", "--root", ws, "--cache-dir", cache, "--query", "quokkaquill")
	if code != 0 || !strings.Contains(out, "func quokkaquill") {
		t.Fatalf("the new file is not found: exit %d, %q, %s", code, out, stderr)
	}
}

func TestAssembleIncludeExclude(t *testing.T) {
	ws := workspace(t)
	cache := t.TempDir()
	r := assembleJSON(t, "--root", ws, "--cache-dir", cache, "--query", "tax computed at checkout", "--budget", "4000", "--include", "**/*.go", "--exclude", "tax/**")
	if len(r.Parts) == 0 {
		t.Fatal("no parts")
	}
	for _, p := range r.Parts {
		if !strings.HasSuffix(p.Path, ".go") || strings.HasPrefix(p.Path, "tax/") {
			t.Fatalf("part %s violates --include/--exclude", p.Path)
		}
	}
}

// TestWriteExplainChannels checks that --explain prints every channel's
// contribution, overview included, in its fixed order.
func TestWriteExplainChannels(t *testing.T) {
	resp := &retrieve.Response{Explain: []retrieve.Explanation{
		{Handle: "h1", Part: "p1", Symbol: "Checkout", Score: 1.5, Channels: map[string]float64{
			retrieve.ChanOverview: 0.2, retrieve.ChanNeighbor: 0.1, retrieve.ChanLexical: 0.5,
			retrieve.ChanSymbol: 0.25, retrieve.ChanPath: 0.125, retrieve.ChanGraph: 0.0625,
			retrieve.ChanFocus: 1, retrieve.ChanDiff: 0.75,
		}},
		{Handle: "h2", Symbol: "Compute", Score: 0.2, Reason: "budget", Channels: map[string]float64{retrieve.ChanOverview: 0.2}},
	}}
	var b strings.Builder
	writeExplain(&b, resp)
	want := "in p1    h1 Checkout score=1.500 [focus=1.000 diff=0.750 symbol=0.250 lexical=0.500 path=0.125 graph=0.062 neighbor=0.100 overview=0.200]\n" +
		"out: budget h2 Compute score=0.200 [overview=0.200]\n"
	if got := b.String(); got != want {
		t.Errorf("writeExplain:\n got %q\nwant %q", got, want)
	}
}
