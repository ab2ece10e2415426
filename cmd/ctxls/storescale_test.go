package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/internal/pgstore"
	"github.com/ctxls/ctxls/internal/pgstore/pgtest"
)

// scaleRepo is the tree of the i-th of a store's near-copies: the same
// files, one of them naming the repository's own subject.
func scaleRepo(i int) map[string]string {
	return map[string]string{
		"ledger.go":  "package ledger\n\n// Post records an entry in the ledger and returns its balance.\nfunc Post(balance, amount int64) int64 { return balance + amount }\n",
		"audit.go":   "package ledger\n\n// Audit checks that the ledger's entries sum to its balance.\nfunc Audit(entries []int64, balance int64) bool {\n\tvar sum int64\n\tfor _, e := range entries {\n\t\tsum += e\n\t}\n\treturn sum == balance\n}\n",
		"subject.go": fmt.Sprintf("package ledger\n\n// Subject%d names what repository %d keeps: the accounts of branch %d.\nfunc Subject%d() string { return \"branch-%d\" }\n", i, i, i, i, i),
	}
}

// publishScaleRepos publishes n near-copies (scaleRepo) as org/r0…
func publishScaleRepos(t *testing.T, url string, n int) {
	t.Helper()
	for i := range n {
		root := filepath.Join(t.TempDir(), "tree")
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		publishRepo(t, url, fmt.Sprintf("org/r%d", i), root, scaleRepo(i))
	}
}

// openFiles counts the open file descriptors of process pid (-1 where
// /proc does not say).
func openFiles(pid int) int {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return -1
	}
	return len(ents)
}

// A replica with --max-open-repos keeps at most that many repositories
// open: asking more closes the least recently used one, and asking it
// again reopens it from its checkout with the same answer, byte for byte.
func TestMCPStoreBoundedReplica(t *testing.T) {
	t.Parallel() // its own servers and directories: beside the package's other long tests
	srv := pgtest.Start(t)
	url := srv.NewDatabase(t, "org")
	const n = 6
	publishScaleRepos(t, url, n)
	st, err := pgstore.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tok, err := st.CreateToken(context.Background(), "assistant", []string{pgstore.AllRepos})
	if err != nil {
		t.Fatal(err)
	}
	r := startReplica(t, url, "--max-open-repos", "2")
	cs := r.client(t, tok)
	ask := func(i int) string {
		t.Helper()
		text, isErr := call(t, cs, "assemble_context", map[string]any{"query": "which branch's accounts are kept here", "repo": fmt.Sprintf("org/r%d", i), "budget": map[string]any{"maxTokens": 400}})
		if isErr || !strings.Contains(text, fmt.Sprintf("Subject%d", i)) {
			t.Fatalf("org/r%d: %s\n%s", i, text, r.log.String())
		}
		return text
	}
	first := ask(0)
	fds := 0
	for i := 1; i < n; i++ {
		ask(i)
		if i == 2 {
			fds = openFiles(r.cmd.Process.Pid)
		}
	}
	if !strings.Contains(r.log.String(), "org/r0: closed (unused, beyond the 2 repositories kept open") {
		t.Fatalf("org/r0 was not closed with %d repositories asked and 2 kept open:\n%s", n, r.log.String())
	}
	// Closed repositories let go of their files: asking more does not
	// hold more open.
	if now := openFiles(r.cmd.Process.Pid); fds > 0 && now > fds+2 {
		t.Errorf("open files grew from %d (3 repositories asked) to %d (%d asked) with 2 kept open", fds, now, n)
	}
	if again := ask(0); again != first {
		t.Fatalf("org/r0 reopened answers otherwise:\n--- first\n%s\n--- reopened\n%s", first, again)
	}
	if c := strings.Count(r.log.String(), "org/r0: checked out"); c != 2 {
		t.Errorf("org/r0 checked out %d times, want 2 (once more after it was closed):\n%s", c, r.log.String())
	}
}

// xactCommits is the number of transactions committed in url's database
// so far (pg_stat_database: flushed by each server process at most once
// a second while it works, within 10 s once it idles).
func xactCommits(t *testing.T, url string) int64 {
	t.Helper()
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	var n int64
	if err := c.QueryRow(context.Background(), "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// An organisation in small: 30 repositories served by a replica that
// keeps 5 open (and one that keeps them all). A round-robin over all of
// them holds a bounded number of files open; idle, the replicas cost the
// database well under a transaction a second whatever they hold open
// (they wait for the store's notifications, with a slow safety poll,
// where a poll every 2 s cost each over one a second); a new
// generation still reaches an open repository within seconds.
func TestStoreOrganisation(t *testing.T) {
	t.Parallel() // its own servers and directories: beside the package's other long tests
	srv := pgtest.Start(t)
	url := srv.NewDatabase(t, "org")
	const n = 30
	publishScaleRepos(t, url, n)
	st, err := pgstore.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tok, err := st.CreateToken(context.Background(), "assistant", []string{pgstore.AllRepos})
	if err != nil {
		t.Fatal(err)
	}
	small, all := startReplica(t, url, "--max-open-repos", "5"), startReplica(t, url, "--max-open-repos", fmt.Sprint(n))
	css := map[*replica]*sdk.ClientSession{small: small.client(t, tok), all: all.client(t, tok)}
	ask := func(r *replica, i int, want string) string {
		t.Helper()
		text, isErr := call(t, css[r], "assemble_context", map[string]any{"query": "which branch's accounts are kept here", "repo": fmt.Sprintf("org/r%d", i), "budget": map[string]any{"maxTokens": 400}})
		if isErr || !strings.Contains(text, want) {
			t.Fatalf("org/r%d: %s\n%s", i, text, r.log.String())
		}
		return text
	}
	fds := map[*replica]int{}
	for round := range 2 {
		for i := range n {
			for r := range css {
				ask(r, i, fmt.Sprintf("Subject%d", i))
			}
			if round == 0 && i == 5 {
				fds[small] = openFiles(small.cmd.Process.Pid)
			}
		}
	}
	if got := openFiles(small.cmd.Process.Pid); fds[small] > 0 && got > fds[small]+3 {
		t.Errorf("the replica keeping 5 repositories open holds %d files after asking %d, %d after asking 6", got, n, fds[small])
	}
	if c := strings.Count(small.log.String(), "closed (unused, beyond the 5 repositories kept open"); c < 2*n-5 {
		t.Errorf("the replica keeping 5 open closed %d repositories in two rounds over %d", c, n)
	}

	// Idle: whatever was pending flushed first, then counted.
	time.Sleep(11 * time.Second)
	const window = 10 * time.Second
	before := xactCommits(t, url)
	time.Sleep(window)
	idle := float64(xactCommits(t, url)-before-1) / window.Seconds()
	t.Logf("idle: %.1f transactions a second (two replicas, %d repositories open)", idle, n+5)
	if idle > 1 {
		t.Errorf("two idle replicas cost the store %.1f transactions a second, want at most 1 (a poll a minute each)", idle)
	}

	// A new generation of an open repository reaches both replicas.
	root := filepath.Join(t.TempDir(), "tree")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	files := scaleRepo(n - 1)
	files["subject.go"] = strings.ReplaceAll(files["subject.go"], "branch", "zanzibarite branch")
	start := time.Now()
	publishRepo(t, url, fmt.Sprintf("org/r%d", n-1), root, files)
	for r := range css {
		for !strings.Contains(r.log.String(), fmt.Sprintf("org/r%d: a new generation", n-1)) {
			if time.Since(start) > 10*time.Second {
				t.Fatalf("the new generation did not reach the replica in 10 s:\n%s", r.log.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
		ask(r, n-1, "zanzibarite")
	}
	t.Logf("a new generation reached both replicas in %v (publish included)", time.Since(start).Round(time.Millisecond))
}

// ctxls store gc deletes what republishes left behind, and a second run
// finds nothing left to delete; the repository reads as before.
func TestStoreGCCommand(t *testing.T) {
	t.Parallel() // its own server and directories: beside the package's other long tests
	srv := pgtest.Start(t)
	url := srv.NewDatabase(t, "org")
	root := filepath.Join(t.TempDir(), "tree")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	for g := range pgstore.KeepGenerations + 2 {
		files := scaleRepo(0)
		files["subject.go"] += fmt.Sprintf("\n// Revision %d.\n", g)
		publishRepo(t, url, "org/r0", root, files)
	}
	gc := func() pgstore.GCStats {
		t.Helper()
		out, err := ctxlsCmd("store", "gc", "--store", url, "--json").Output()
		var gs pgstore.GCStats
		if err != nil || json.Unmarshal(out, &gs) != nil {
			t.Fatalf("ctxls store gc: %v\n%s", err, out)
		}
		return gs
	}
	if gs := gc(); gs.Deleted == 0 || gs.Generations != pgstore.KeepGenerations {
		t.Fatalf("the first collection: %+v", gs)
	}
	if gs := gc(); gs.Deleted != 0 {
		t.Fatalf("the second collection deleted %d blobs", gs.Deleted)
	}
	out, err := ctxlsCmd("assemble", "--store", url, "--repo", "org/r0", "--query", "which branch's accounts", "--cache-dir", t.TempDir()).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "func Subject0") {
		t.Fatalf("the repository after collections: %v\n%s", err, out)
	}
}
