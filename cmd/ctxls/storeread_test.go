package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/klauspost/compress/zstd"

	"github.com/ctxls/ctxls/internal/pgstore"
	"github.com/ctxls/ctxls/internal/pgstore/pgtest"
)

// storeRows writes into a store what a publisher holding the publish
// role could: rows of any size and data, manifests of any content, new
// generations the replicas are notified of.
type storeRows struct {
	t    *testing.T
	conn *pgx.Conn
	enc  *zstd.Encoder
	dec  *zstd.Decoder
}

func newStoreRows(t *testing.T, url string) *storeRows {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dec.Close)
	return &storeRows{t: t, conn: conn, enc: enc, dec: dec}
}

// row writes the blob row named by the hex hash h as it is given.
func (w *storeRows) row(h string, size int64, data []byte) {
	w.t.Helper()
	hb, _ := hex.DecodeString(h)
	if _, err := w.conn.Exec(context.Background(), `INSERT INTO ctxls_blobs (hash, size, data) VALUES ($1, $2, $3)
		ON CONFLICT (hash) DO UPDATE SET size = EXCLUDED.size, data = EXCLUDED.data`, hb, size, data); err != nil {
		w.t.Fatal(err)
	}
}

func hexHash(raw []byte) string {
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// blob writes raw as a well-formed blob and returns its name.
func (w *storeRows) blob(raw []byte) string {
	w.t.Helper()
	h := hexHash(raw)
	w.row(h, int64(len(raw)), w.enc.EncodeAll(raw, nil))
	return h
}

// read returns the blob named h.
func (w *storeRows) read(h []byte) []byte {
	w.t.Helper()
	var data []byte
	if err := w.conn.QueryRow(context.Background(), "SELECT data FROM ctxls_blobs WHERE hash = $1", h).Scan(&data); err != nil {
		w.t.Fatal(err)
	}
	raw, err := w.dec.DecodeAll(data, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	return raw
}

// manifest returns repo's current manifest.
func (w *storeRows) manifest(repo string) *pgstore.Manifest {
	w.t.Helper()
	var mh []byte
	if err := w.conn.QueryRow(context.Background(), `SELECT g.manifest FROM ctxls_repos r
		JOIN ctxls_generations g ON g.repo = r.name AND g.id = r.generation WHERE r.name = $1`, repo).Scan(&mh); err != nil {
		w.t.Fatal(err)
	}
	var m pgstore.Manifest
	if err := json.Unmarshal(w.read(mh), &m); err != nil {
		w.t.Fatal(err)
	}
	return &m
}

// publish makes m repo's next generation and notifies the replicas, as
// a publish does.
func (w *storeRows) publish(repo string, m *pgstore.Manifest) {
	w.t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		w.t.Fatal(err)
	}
	mh, _ := hex.DecodeString(w.blob(b))
	ctx := context.Background()
	tx, err := w.conn.Begin(ctx)
	if err != nil {
		w.t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit, a no-op
	var gen int64
	if err := tx.QueryRow(ctx, "SELECT generation + 1 FROM ctxls_repos WHERE name = $1 FOR UPDATE", repo).Scan(&gen); err != nil {
		w.t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO ctxls_generations (repo, id, manifest, files, bytes) VALUES ($1, $2, $3, 0, 0)", repo, gen, mh); err != nil {
		w.t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "UPDATE ctxls_repos SET generation = $2 WHERE name = $1", repo, gen); err != nil {
		w.t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "SELECT pg_notify($1, $2)", pgstore.NotifyChannel, repo); err != nil {
		w.t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		w.t.Fatal(err)
	}
}

// replaceImageFile makes the file name of repo's index image hold raw.
func (w *storeRows) replaceImageFile(repo, name string, raw []byte) {
	w.t.Helper()
	var ih []byte
	if err := w.conn.QueryRow(context.Background(), "SELECT image FROM ctxls_images WHERE repo = $1", repo).Scan(&ih); err != nil {
		w.t.Fatalf("%s has no index image: %v", repo, err)
	}
	var im map[string]any
	if err := json.Unmarshal(w.read(ih), &im); err != nil {
		w.t.Fatal(err)
	}
	files, _ := im["files"].([]any)
	found := false
	for _, f := range files {
		if e, _ := f.(map[string]any); e["name"] == name {
			e["size"], e["blocks"], found = len(raw), []string{w.blob(raw)}, true
		}
	}
	if !found {
		w.t.Fatalf("the index image of %s has no %s", repo, name)
	}
	b, _ := json.Marshal(im)
	nh, _ := hex.DecodeString(w.blob(b))
	if _, err := w.conn.Exec(context.Background(), "UPDATE ctxls_images SET image = $1 WHERE repo = $2", nh, repo); err != nil {
		w.t.Fatal(err)
	}
}

// peakRSS is a process's peak resident memory (VmHWM), in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`VmHWM:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		t.Fatal("no VmHWM")
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return kb << 10
}

// Replicas facing a publisher's rows that are not what they say —
// negative and huge sizes of blobs and side files, texts of another size
// than their manifest's, a compression bomb, an index image whose
// completeness marker is damaged — keep serving every other repository:
// a running replica keeps the generation it has of the bad one, says
// what is wrong once in its log and to the repository's clients
// (index_status), and a cold one (every restart) answers a client asking
// for the bad repository with what is wrong, on mcp --http and on serve
// --listen alike. A damaged image is left out: the repository is served
// from its chunks.
func TestStoreReplicaUnusableContent(t *testing.T) {
	t.Parallel() // its own servers and directories: beside the package's other long tests
	srv := pgtest.Start(t)
	url := srv.NewDatabase(t, "unusable")
	for _, repo := range []string{"org/billing", "org/auth"} {
		root := filepath.Join(t.TempDir(), "tree")
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		publishRepo(t, url, repo, root, storeRepos[repo])
	}
	st, err := pgstore.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tok, err := st.CreateToken(context.Background(), "all", []string{pgstore.AllRepos})
	if err != nil {
		t.Fatal(err)
	}
	rows := newStoreRows(t, url)
	r1 := startReplica(t, url)
	cs := r1.client(t, tok)
	ask := func(repo, query string) (string, bool) {
		t.Helper()
		return call(t, cs, "assemble_context", map[string]any{"query": query, "repo": repo, "budget": map[string]any{"maxTokens": 400}})
	}
	for repo, want := range map[string]string{"org/billing": "func Invoice", "org/auth": "func Login"} {
		if text, isErr := ask(repo, "invoice sales tax login password"); isErr || !strings.Contains(text, want) {
			t.Fatalf("%s before: %s", repo, text)
		}
	}

	base := rows.manifest("org/auth")
	block := bytes.Repeat([]byte("side file block "), 1<<12)
	var bomb bytes.Buffer
	enc, err := zstd.NewWriter(&bomb)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := enc.Write(make([]byte, 1<<30)); err != nil {
		t.Fatal(err)
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		make func(text []byte) *pgstore.Manifest
		want string // in the log, once
	}{
		{"a blob of size -1", func(text []byte) *pgstore.Manifest {
			h := hexHash(text)
			rows.row(h, -1, rows.enc.EncodeAll(text, nil))
			return withStoreFile(base, h, int64(len(text)))
		}, "declares -1 bytes"},
		{"a blob of 2^45 bytes", func(text []byte) *pgstore.Manifest {
			h := hexHash(text)
			rows.row(h, 1<<45, rows.enc.EncodeAll(text, nil))
			return withStoreFile(base, h, int64(len(text)))
		}, "declares 35184372088832 bytes"},
		{"a side file of size -1", func(text []byte) *pgstore.Manifest {
			m := withStoreFile(base, rows.blob(text), int64(len(text)))
			m.Sides = []pgstore.SideEntry{{Name: "history.v2", Size: -1, Blocks: []string{rows.blob(block)}}}
			return m
		}, "history.v2: size -1"},
		{"a side file of 2^45 bytes", func(text []byte) *pgstore.Manifest {
			m := withStoreFile(base, rows.blob(text), int64(len(text)))
			m.Sides = []pgstore.SideEntry{{Name: "history.v2", Size: 1 << 45, Blocks: []string{rows.blob(block)}}}
			return m
		}, "35184372088832 bytes in 1 blocks"},
		{"a compression bomb", func(text []byte) *pgstore.Manifest {
			h := hexHash(text)
			rows.row(h, 1<<20, bomb.Bytes())
			return withStoreFile(base, h, 1<<20)
		}, "decompresses to more than the 1048576 bytes"},
	}
	for i, tc := range cases {
		text := fmt.Appendf(nil, "package auth\n\n// Case %d.\nfunc Case%d() {}\n", i, i)
		rows.publish("org/auth", tc.make(text))
		// The notification is enough: no request.
		for deadline := time.Now().Add(10 * time.Second); !strings.Contains(r1.log.String(), tc.want); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) || r1.cmd.ProcessState != nil {
				t.Fatalf("%s: the replica did not say %q:\n%s", tc.name, tc.want, r1.log.String())
			}
		}
		if text, isErr := ask("org/billing", "how is the sales tax added to an invoice"); isErr || !strings.Contains(text, "func Invoice") {
			t.Fatalf("%s: org/billing: %s\n%s", tc.name, text, r1.log.String())
		}
		if text, isErr := ask("org/auth", "how does login check the password"); isErr || !strings.Contains(text, "func Login") {
			t.Fatalf("%s: org/auth from the generation it had: %s", tc.name, text)
		}
	}
	// Polls go on (every 2 s): each generation is logged once.
	time.Sleep(4500 * time.Millisecond)
	for _, tc := range cases {
		if n := strings.Count(r1.log.String(), tc.want); n != 1 {
			t.Errorf("%s: logged %d times:\n%s", tc.name, n, r1.log.String())
		}
	}
	if rss := peakRSS(t, r1.cmd.Process.Pid); rss > 400<<20 {
		t.Errorf("the replica's peak memory: %d MiB", rss>>20)
	} else {
		t.Logf("the replica's peak memory after the bomb: %d MiB", rss>>20)
	}
	if text, isErr := call(t, cs, "index_status", map[string]any{"repo": "org/auth"}); isErr || !strings.Contains(text, cases[len(cases)-1].want) {
		t.Fatalf("index_status of org/auth does not say what is wrong: %s", text)
	}

	// A cold replica (and every restart): the bad repository is an error
	// that says what is wrong, logged once; the others answer.
	r2 := startReplica(t, url)
	cs2 := r2.client(t, tok)
	for range 3 {
		text, isErr := call(t, cs2, "assemble_context", map[string]any{"query": "login", "repo": "org/auth"})
		if !isErr || !strings.Contains(text, "cannot be used") || !strings.Contains(text, cases[len(cases)-1].want) || strings.Contains(text, "try again") {
			t.Fatalf("a cold replica, the bad repository: %v %s", isErr, text)
		}
	}
	if text, isErr := call(t, cs2, "assemble_context", map[string]any{"query": "how is the sales tax added to an invoice", "repo": "org/billing"}); isErr || !strings.Contains(text, "func Invoice") {
		t.Fatalf("a cold replica, a good repository: %s\n%s", text, r2.log.String())
	}
	if n := strings.Count(r2.log.String(), cases[len(cases)-1].want); n != 1 {
		t.Errorf("a cold replica logged the bad repository %d times:\n%s", n, r2.log.String())
	}

	// serve --listen --store, cold.
	p := startStoreProcess(t, "serve", url)
	defer p.stop()
	log, addr := p.log, p.addr
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	send := func(id int, method, params string) string {
		t.Helper()
		if err := frame(c, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)); err != nil {
			t.Fatal(err)
		}
		for {
			resp, err := readFrame(r)
			if err != nil {
				t.Fatalf("%s: %v\n%s", method, err, log.String())
			}
			if strings.Contains(resp, fmt.Sprintf(`"id":%d`, id)) {
				return resp
			}
		}
	}
	if resp := send(1, "initialize", fmt.Sprintf(`{"capabilities":{},"initializationOptions":{"token":%q}}`, tok)); !strings.Contains(resp, `"contextAssemble"`) {
		t.Fatalf("initialize: %s", resp)
	}
	if resp := send(2, "context/assemble", `{"query":"login","repo":"org/auth"}`); !strings.Contains(resp, `"error"`) || !strings.Contains(resp, "cannot be used") || !strings.Contains(resp, cases[len(cases)-1].want) {
		t.Fatalf("serve, the bad repository: %s", resp)
	}
	if resp := send(3, "context/assemble", `{"query":"how is the sales tax added to an invoice","repo":"org/billing","budget":{"maxTokens":500}}`); !strings.Contains(resp, "func Invoice") {
		t.Fatalf("serve, a good repository: %s\n%s", resp, log.String())
	}
}

// A repository whose index image has a damaged completeness marker is
// served from its stored chunks by a cold replica, which says in its log
// that the image was left out.
func TestStoreReplicaDamagedImage(t *testing.T) {
	t.Parallel() // its own servers and directories: beside the package's other long tests
	srv := pgtest.Start(t)
	url := srv.NewDatabase(t, "image")
	root := filepath.Join(t.TempDir(), "tree")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	publishRepo(t, url, "org/billing", root, storeRepos["org/billing"])
	st, err := pgstore.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tok, err := st.CreateToken(context.Background(), "all", []string{pgstore.AllRepos})
	if err != nil {
		t.Fatal(err)
	}
	newStoreRows(t, url).replaceImageFile("org/billing", "COMPLETE", []byte("{not a marker"))
	r := startReplica(t, url)
	if text, isErr := call(t, r.client(t, tok), "assemble_context", map[string]any{"query": "how is the sales tax added to an invoice"}); isErr || !strings.Contains(text, "func Invoice") {
		t.Fatalf("a repository with a damaged image: %s\n%s", text, r.log.String())
	}
	if !strings.Contains(r.log.String(), "org/billing: the store's index image cannot be used") {
		t.Errorf("the replica did not say the image was left out:\n%s", r.log.String())
	}
}

// withStoreFile returns a copy of m with one more file, zz.go, whose text
// is the blob h and whose size the manifest says is size.
func withStoreFile(m *pgstore.Manifest, h string, size int64) *pgstore.Manifest {
	c := *m
	c.Files = append(append([]pgstore.FileEntry(nil), m.Files...), pgstore.FileEntry{Path: "zz.go", Size: size, Text: h, Chunks: m.Files[0].Chunks})
	return &c
}
