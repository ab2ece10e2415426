package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/internal/pgstore"
	"github.com/ctxls/ctxls/internal/pgstore/pgtest"
)

// storeRepos are three small repositories, each about one thing.
var storeRepos = map[string]map[string]string{
	"org/billing": {
		"invoice.go": "package billing\n\n// Invoice totals the lines of an order and adds the sales tax.\nfunc Invoice(lines []int64, taxRate int64) int64 {\n\tvar sum int64\n\tfor _, l := range lines {\n\t\tsum += l\n\t}\n\treturn sum + sum*taxRate/10000\n}\n",
		"refund.go":  "package billing\n\n// Refund returns the money of a cancelled invoice.\nfunc Refund(amount int64) int64 { return -amount }\n",
	},
	"org/auth": {
		"login.go": "package auth\n\n// Login checks a password against its bcrypt hash and opens a session.\nfunc Login(user, password string) (string, error) { return \"session-\" + user, nil }\n",
	},
	"team/search": {
		"rank.py": "def rank(documents, query):\n    \"\"\"Rank documents by bm25 against the query terms.\"\"\"\n    return sorted(documents, key=lambda d: score(d, query), reverse=True)\n\n\ndef score(document, query):\n    return sum(document.count(t) for t in query.split())\n",
	},
}

// ctxlsCmd is this test binary run as ctxls.
func ctxlsCmd(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), runAsMain+"=1")
	return cmd
}

// publishRepo writes files into root and publishes root as repo.
func publishRepo(t *testing.T, url, repo, root string, files map[string]string) {
	t.Helper()
	for p, text := range files {
		if err := os.WriteFile(filepath.Join(root, p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := ctxlsCmd("index", "--root", root, "--cache-dir", filepath.Join(root, "..", filepath.Base(root)+".cache"), "--store", url, "--repo", repo).CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("publish: "+repo)) {
		t.Fatalf("publish %s: %v\n%s", repo, err, out)
	}
}

// replica is one `ctxls mcp --http --store` process.
type replica struct {
	cmd *exec.Cmd
	url string
	log *syncBuffer
}

func startReplica(t *testing.T, storeURL string, extra ...string) *replica {
	t.Helper()
	r := &replica{log: &syncBuffer{}}
	r.cmd = ctxlsCmd(append([]string{"mcp", "--http", "127.0.0.1:0", "--store", storeURL, "--cache-dir", t.TempDir()}, extra...)...)
	r.cmd.Stderr = r.log
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r.cmd.Process.Kill() //nolint:errcheck // may be dead already
		r.cmd.Wait()         //nolint:errcheck // killed
	})
	listening := regexp.MustCompile(`listening on (http://\S+)`)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := listening.FindStringSubmatch(r.log.String()); m != nil {
			r.url = m[1]
			return r
		}
	}
	t.Fatalf("the replica did not listen:\n%s", r.log.String())
	return nil
}

// client connects to a replica with a token.
func (r *replica) client(t *testing.T, token string) *sdk.ClientSession {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: r.url, HTTPClient: &http.Client{Transport: bearerTransport{token}}}, nil)
	if err != nil {
		t.Fatalf("connect to %s: %v\n%s", r.url, err, r.log.String())
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and returns its text and whether it was an error.
func call(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// Stateless replicas over one store: a token reads the repositories it
// grants and no other; killing a replica leaves the other answering; a
// new generation reaches a running replica within 5 s; with the primary
// stopped, a replica reading through the standby answers, and once the
// primary is back publishing works again.
func TestMCPStoreReplicas(t *testing.T) {
	t.Parallel() // its own servers and directories: beside the package's other long tests
	primary := pgtest.Start(t)
	url := primary.NewDatabase(t, "org")
	trees := map[string]string{}
	for repo, files := range storeRepos {
		trees[repo] = filepath.Join(t.TempDir(), "tree")
		if err := os.MkdirAll(trees[repo], 0o755); err != nil {
			t.Fatal(err)
		}
		publishRepo(t, url, repo, trees[repo], files)
	}
	st, err := pgstore.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tokBilling, err := st.CreateToken(context.Background(), "billing-bot", []string{"org/billing"})
	if err != nil {
		t.Fatal(err)
	}
	tokAll, err := st.CreateToken(context.Background(), "assistant", []string{pgstore.AllRepos})
	if err != nil {
		t.Fatal(err)
	}
	standby := pgtest.StartStandby(t, primary)
	r1, r2 := startReplica(t, url), startReplica(t, url)

	// A token for one repository: it lists that one, reads it without
	// naming it, and never reads another's code.
	bill := r1.client(t, tokBilling)
	if text, isErr := call(t, bill, "list_repos", nil); isErr || strings.Contains(text, "auth") {
		t.Fatalf("list_repos with the billing token: %s", text)
	}
	text, isErr := call(t, bill, "assemble_context", map[string]any{"query": "how is the sales tax added to an invoice", "budget": map[string]any{"maxTokens": 500}})
	if isErr || !strings.Contains(text, "func Invoice") {
		t.Fatalf("billing token, its repository: %s", text)
	}
	for _, repo := range []string{"org/auth", "team/search", "org/nope"} {
		text, isErr := call(t, bill, "assemble_context", map[string]any{"query": "password session bm25", "repo": repo})
		if !isErr || strings.Contains(text, "Login") || strings.Contains(text, "rank") {
			t.Fatalf("billing token read %s: %s", repo, text)
		}
	}
	// A token for every repository names the one it reads.
	all := r2.client(t, tokAll)
	if text, isErr := call(t, all, "assemble_context", map[string]any{"query": "password"}); !isErr || !strings.Contains(text, "name the repository") {
		t.Fatalf("no repo with several readable: %s", text)
	}
	if text, isErr := call(t, all, "assemble_context", map[string]any{"query": "how does login check the password", "repo": "org/auth"}); isErr || !strings.Contains(text, "func Login") {
		t.Fatalf("auth: %s", text)
	}
	// Across repositories: one context over every one the token reads.
	// The repositories that answer come first; what fills the rest of
	// the budget (if anything) comes after them.
	text, isErr = call(t, all, "assemble_context", map[string]any{"query": "the invoice refund and the login password check", "repos": []string{"*"}, "budget": map[string]any{"maxTokens": 600}})
	search := strings.Index(text, "team/search")
	if isErr || !strings.Contains(text, "org/billing/refund.go") || !strings.Contains(text, "org/auth/login.go") ||
		(search >= 0 && (search < strings.Index(text, "org/billing/refund.go") || search < strings.Index(text, "org/auth/login.go"))) {
		t.Fatalf("across repositories: %s", text)
	}
	// The billing token cannot widen its reach with repos.
	if text, isErr := call(t, bill, "assemble_context", map[string]any{"query": "login password", "repos": []string{"org/billing", "org/auth"}}); !isErr || strings.Contains(text, "func Login") {
		t.Fatalf("billing token across repositories: %s", text)
	}
	if text, isErr := call(t, bill, "assemble_context", map[string]any{"query": "login password", "repos": []string{"*"}}); isErr || strings.Contains(text, "func Login") {
		t.Fatalf("billing token, every repository it reads: %s", text)
	}
	// A wrong token is refused before any tool.
	c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil)
	if _, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: r1.url, HTTPClient: &http.Client{Transport: bearerTransport{"ctxls_forged"}}}, nil); err == nil {
		t.Fatal("a forged token connected")
	}

	// Behind a load balancer (round robin, the next replica when one
	// does not answer), one client's calls go to both replicas; kill one:
	// the calls go on.
	lb := balancer(t, r1.url, r2.url)
	viaLB := (&replica{url: lb, log: &syncBuffer{}}).client(t, tokBilling)
	for i := range 4 {
		if text, isErr := call(t, viaLB, "assemble_context", map[string]any{"query": "sales tax of an invoice", "budget": map[string]any{"maxTokens": 300}}); isErr || !strings.Contains(text, "Invoice") {
			t.Fatalf("call %d through the balancer: %s", i, text)
		}
	}
	r1.cmd.Process.Signal(syscall.SIGKILL) //nolint:errcheck // checked by the calls below
	r1.cmd.Wait()                          //nolint:errcheck // killed
	for i := range 4 {
		if text, isErr := call(t, viaLB, "assemble_context", map[string]any{"query": "sales tax of an invoice", "budget": map[string]any{"maxTokens": 300}}); isErr || !strings.Contains(text, "Invoice") {
			t.Fatalf("call %d through the balancer, a replica killed: %s", i, text)
		}
	}
	bill2 := r2.client(t, tokBilling)
	if text, isErr := call(t, bill2, "assemble_context", map[string]any{"query": "refund a cancelled invoice", "budget": map[string]any{"maxTokens": 400}}); isErr || !strings.Contains(text, "func Refund") {
		t.Fatalf("the surviving replica: %s", text)
	}

	// A new generation reaches the running replica within 5 s.
	publishRepo(t, url, "org/billing", trees["org/billing"], map[string]string{
		"credit.go": "package billing\n\n// CreditNote issues a zanzibarite credit note for a disputed invoice.\nfunc CreditNote(amount int64) int64 { return amount }\n",
	})
	published := time.Now()
	for {
		text, isErr := call(t, bill2, "assemble_context", map[string]any{"query": "zanzibarite credit note", "budget": map[string]any{"maxTokens": 300}})
		if !isErr && strings.Contains(text, "func CreditNote") {
			break
		}
		if time.Since(published) > 5*time.Second {
			t.Fatalf("generation 2 did not reach the replica in 5 s: %s\n%s", text, r2.log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}

	// The primary down: a replica reading through the standby (a
	// multi-host URL: the first that answers) checks out and answers.
	waitReplicated(t, st, standby.URL("org"))
	primary.Stop()
	both := strings.Replace(url, "127.0.0.1:"+itoa(primary.Port), "127.0.0.1:"+itoa(primary.Port)+",127.0.0.1:"+itoa(standby.Port), 1)
	r3 := startReplica(t, both)
	if text, isErr := call(t, r3.client(t, tokAll), "assemble_context", map[string]any{"query": "rank documents by bm25", "repo": "team/search"}); isErr || !strings.Contains(text, "def rank") {
		t.Fatalf("through the standby: %s\n%s", text, r3.log.String())
	}
	// The running replica keeps answering for what it has checked out.
	if text, isErr := call(t, bill2, "assemble_context", map[string]any{"query": "refund", "budget": map[string]any{"maxTokens": 300}}); isErr || !strings.Contains(text, "func Refund") {
		t.Fatalf("a checked-out repository with the primary down: %s", text)
	}
	// What needs the store says so, clearly, while it is down...
	if text, isErr := call(t, bill2, "list_repos", nil); !isErr || !strings.Contains(text, "cannot be read now") {
		t.Fatalf("list_repos with the store down: %v %s", isErr, text)
	}
	// ...and works again by itself once it is back.
	primary.Start()
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		text, isErr := call(t, bill2, "list_repos", nil)
		if !isErr && strings.Contains(text, "org/billing") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("list_repos after the store came back: %s", text)
		}
	}
	// The primary back: publishing works again.
	publishRepo(t, url, "org/auth", trees["org/auth"], map[string]string{"logout.go": "package auth\n\n// Logout ends a session.\nfunc Logout(s string) {}\n"})
}

// waitReplicated waits until the standby at url has the store's current
// generations.
func waitReplicated(t *testing.T, primary *pgstore.Store, url string) {
	t.Helper()
	want, err := primary.Repos(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		s, err := pgstore.Open(context.Background(), url)
		if err != nil {
			continue
		}
		got, err := s.Repos(context.Background(), nil)
		s.Close()
		if err == nil && len(got) == len(want) && got[0].Generation == want[0].Generation && got[len(got)-1].Generation == want[len(want)-1].Generation {
			return
		}
	}
	t.Fatal("the standby did not catch up in 30 s")
}

func itoa(n int) string { return strconv.Itoa(n) }

// balancer is a round-robin load balancer in front of the replicas at
// urls (their /mcp endpoints) that tries the next one when one does not
// answer; it returns its own /mcp URL.
func balancer(t *testing.T, urls ...string) string {
	t.Helper()
	var next atomic.Uint64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		start := next.Add(1)
		for i := range len(urls) {
			u := urls[(int(start)+i)%len(urls)]
			req, _ := http.NewRequestWithContext(r.Context(), r.Method, u, bytes.NewReader(body))
			req.Header = r.Header.Clone()
			resp, err := http.DefaultTransport.RoundTrip(req)
			if err != nil {
				continue // that replica is down: the next one
			}
			for k, v := range resp.Header {
				w.Header()[k] = v
			}
			w.WriteHeader(resp.StatusCode)
			io.Copy(w, resp.Body) //nolint:errcheck // the client's loss
			resp.Body.Close()
			return
		}
		http.Error(w, "no replica answers", http.StatusBadGateway)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// The language server of a store: a workspace folder names a repository
// (part URIs are under the client's folder), context/assemble may name
// another the token grants, or several; a repository the token does not
// grant is refused as one that does not exist, and so is a forged token.
func TestServeStore(t *testing.T) {
	srv := pgtest.Start(t)
	url := srv.NewDatabase(t, "lsp")
	for repo, files := range storeRepos {
		root := filepath.Join(t.TempDir(), "tree")
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		publishRepo(t, url, repo, root, files)
	}
	st, err := pgstore.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tok, err := st.CreateToken(context.Background(), "editor", []string{"org/billing", "org/auth"})
	if err != nil {
		t.Fatal(err)
	}
	log := &syncBuffer{}
	cmd := ctxlsCmd("serve", "--listen", "127.0.0.1:0", "--store", url, "--cache-dir", t.TempDir())
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }() //nolint:errcheck // the test's end
	var addr string
	listening := regexp.MustCompile(`listening on (\S+)`)
	for deadline := time.Now().Add(30 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := listening.FindStringSubmatch(log.String()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		t.Fatalf("serve did not listen:\n%s", log.String())
	}
	connect := func() (func(id int, method, params string) string, func()) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(c)
		send := func(id int, method, params string) string {
			if err := frame(c, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)); err != nil {
				t.Fatal(err)
			}
			for {
				resp, err := readFrame(r)
				if err != nil {
					return "EOF: " + err.Error()
				}
				if strings.Contains(resp, fmt.Sprintf(`"id":%d`, id)) {
					return resp
				}
			}
		}
		return send, func() { c.Close() }
	}
	send, done := connect()
	defer done()
	init := fmt.Sprintf(`{"capabilities":{},"initializationOptions":{"token":%q},"workspaceFolders":[{"uri":"file:///home/dev/billing","name":"org/billing"}]}`, tok)
	if resp := send(1, "initialize", init); !strings.Contains(resp, `"contextAssemble"`) {
		t.Fatalf("initialize: %s\n%s", resp, log.String())
	}
	resp := send(2, "context/assemble", `{"query":"how is the sales tax added to an invoice","budget":{"maxTokens":500}}`)
	if !strings.Contains(resp, "func Invoice") || !strings.Contains(resp, "file:///home/dev/billing/invoice.go") {
		t.Fatalf("the folder's repository: %s", resp)
	}
	resp = send(3, "context/assemble", `{"query":"how does login check the password","repo":"org/auth","budget":{"maxTokens":500}}`)
	if !strings.Contains(resp, "func Login") {
		t.Fatalf("repo org/auth: %s", resp)
	}
	resp = send(4, "context/assemble", `{"query":"the invoice refund and the login password","repos":["*"],"budget":{"maxTokens":600}}`)
	if !strings.Contains(resp, "org/billing/refund.go") || !strings.Contains(resp, "org/auth/login.go") || strings.Contains(resp, "team/search") {
		t.Fatalf("repos *: %s", resp)
	}
	for i, params := range []string{`{"query":"rank documents","repo":"team/search"}`, `{"query":"rank documents","repos":["org/billing","team/search"]}`} {
		if resp := send(5+i, "context/assemble", params); !strings.Contains(resp, `"error"`) || strings.Contains(resp, "def rank") {
			t.Fatalf("a repository the token does not grant: %s", resp)
		}
	}
	// The store down: a repository not checked out yet is an error that
	// says so; the store back, the same request answers, no restart.
	all, err := st.CreateToken(context.Background(), "all", []string{pgstore.AllRepos})
	if err != nil {
		t.Fatal(err)
	}
	send2, done3 := connect()
	defer done3()
	if resp := send2(1, "initialize", fmt.Sprintf(`{"capabilities":{},"initializationOptions":{"token":%q}}`, all)); !strings.Contains(resp, `"contextAssemble"`) {
		t.Fatalf("initialize: %s", resp)
	}
	srv.Stop()
	if resp := send2(2, "context/assemble", `{"query":"rank documents by bm25","repo":"team/search"}`); !strings.Contains(resp, `"error"`) || !strings.Contains(resp, "cannot be read now") {
		t.Fatalf("the store down: %s", resp)
	}
	srv.Start()
	if resp := send2(3, "context/assemble", `{"query":"rank documents by bm25","repo":"team/search"}`); !strings.Contains(resp, "def rank") {
		t.Fatalf("the store back: %s\n%s", resp, log.String())
	}
	forged, done2 := connect()
	defer done2()
	if resp := forged(1, "initialize", `{"capabilities":{},"initializationOptions":{"token":"ctxls_forged"}}`); !strings.Contains(resp, `"error"`) {
		t.Fatalf("a forged token: %s", resp)
	}
}
