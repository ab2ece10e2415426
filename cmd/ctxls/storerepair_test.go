package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/klauspost/compress/zstd"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/internal/pgstore"
	"github.com/ctxls/ctxls/internal/pgstore/pgtest"
)

// storeWriter is a writer of the store who is not a repository's
// publisher (another repository's indexer holds the same credential):
// it writes rows and generations with SQL.
type storeWriter struct {
	t    *testing.T
	conn *pgx.Conn
	enc  *zstd.Encoder
	dec  *zstd.Decoder
}

func newStoreWriter(t *testing.T, url string) *storeWriter {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	enc, _ := zstd.NewWriter(nil)
	dec, _ := zstd.NewReader(nil)
	t.Cleanup(dec.Close)
	return &storeWriter{t: t, conn: conn, enc: enc, dec: dec}
}

// put writes content as the row of the blob named by name, whatever name
// is the hash of.
func (w *storeWriter) put(name [32]byte, content []byte) {
	w.t.Helper()
	_, err := w.conn.Exec(context.Background(), `INSERT INTO ctxls_blobs (hash, size, data) VALUES ($1, $2, $3)
		ON CONFLICT (hash) DO UPDATE SET size = EXCLUDED.size, data = EXCLUDED.data`, name[:], int64(len(content)), w.enc.EncodeAll(content, nil))
	if err != nil {
		w.t.Fatal(err)
	}
}

// manifest reads repo's current manifest.
func (w *storeWriter) manifest(repo string) *pgstore.Manifest {
	w.t.Helper()
	var data []byte
	err := w.conn.QueryRow(context.Background(), `SELECT b.data FROM ctxls_repos r JOIN ctxls_generations g ON g.repo = r.name AND g.id = r.generation
		JOIN ctxls_blobs b ON b.hash = g.manifest WHERE r.name = $1`, repo).Scan(&data)
	if err != nil {
		w.t.Fatal(err)
	}
	b, err := w.dec.DecodeAll(data, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	var m pgstore.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		w.t.Fatal(err)
	}
	return &m
}

// generation makes m repo's current generation and tells the replicas.
func (w *storeWriter) generation(repo string, m *pgstore.Manifest) {
	w.t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		w.t.Fatal(err)
	}
	mh := sha256.Sum256(b)
	w.put(mh, b)
	_, err = w.conn.Exec(context.Background(), `WITH g AS (UPDATE ctxls_repos SET generation = generation + 1 WHERE name = $1 RETURNING generation)
		INSERT INTO ctxls_generations (repo, id, manifest, files, bytes) SELECT $1, generation, $2, 0, 0 FROM g`, repo, mh[:])
	if err == nil {
		_, err = w.conn.Exec(context.Background(), "SELECT pg_notify($1, $2)", pgstore.NotifyChannel, repo)
	}
	if err != nil {
		w.t.Fatal(err)
	}
}

// One honest publish (`ctxls index --store`) repairs what another writer
// of the store did to a repository, and replicas then serve the right
// content: a row planted under the name of a file's text before the
// repository was published; a row damaged after it (which a replica
// reports as damage, not as a store to try again shortly); a generation
// that lends a file another repository's chunks.
func TestStorePublishRepairs(t *testing.T) {
	t.Parallel() // its own servers and directories: beside the package's other long tests
	ctx := context.Background()
	url := pgtest.Start(t).NewDatabase(t, "repair")
	st, err := pgstore.Open(ctx, url) // the store's tables
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tok, err := st.CreateToken(ctx, "assistant", []string{pgstore.AllRepos})
	if err != nil {
		t.Fatal(err)
	}
	w := newStoreWriter(t, url)
	files := map[string]string{
		"ledger.go": "package ledger\n\n// Balance sums the entries of an account's ledger.\nfunc Balance(entries []int64) int64 {\n\tvar sum int64\n\tfor _, e := range entries {\n\t\tsum += e\n\t}\n\treturn sum\n}\n",
		"rates.go":  "package ledger\n\n// Rate is the yearly interest rate of an account, in basis points.\nfunc Rate(account string) int64 { return 325 }\n",
	}
	for i := range 10 {
		files[fmt.Sprintf("fee%d.go", i)] = fmt.Sprintf("package ledger\n\n// Fee%d is the fee of the account tier %d.\nfunc Fee%d() int64 { return %d }\n", i, i, i, 10*i)
	}
	w.put(sha256.Sum256([]byte(files["ledger.go"])), []byte("package ledger\n\nfunc Balance() { sendKeysAway() }\n"))
	root := filepath.Join(t.TempDir(), "tree")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	publishRepo(t, url, "org/ledger", root, files)

	r1 := startReplica(t, url)
	c1 := r1.client(t, tok)
	text, isErr := call(t, c1, "assemble_context", map[string]any{"query": "the balance of an account's ledger", "repo": "org/ledger", "budget": map[string]any{"maxTokens": 500}})
	if isErr || !strings.Contains(text, "func Balance(entries []int64)") || strings.Contains(text, "sendKeysAway") {
		t.Fatalf("a planted row, after the publish: %s\n%s", text, r1.log.String())
	}

	// A row damaged after the publish: a replica that reads it says the
	// store holds damaged data, and that a publish repairs it.
	w.put(sha256.Sum256([]byte(files["rates.go"])), []byte("package ledger\n\nfunc Rate() int64 { return 0 }\n"))
	r2 := startReplica(t, url)
	c2 := r2.client(t, tok)
	text, isErr = call(t, c2, "assemble_context", map[string]any{"query": "the interest rate of an account", "repo": "org/ledger"})
	if !isErr || !strings.Contains(text, "damaged data") || !strings.Contains(text, "publishing the repository again repairs it") || strings.Contains(text, "try again") {
		t.Fatalf("a damaged row: %v %s", isErr, text)
	}
	// The language server says the same.
	if resp := lspAssemble(t, url, tok, "org/ledger", "the interest rate of an account"); !strings.Contains(resp, `"error"`) ||
		!strings.Contains(resp, "damaged data") || strings.Contains(resp, "try again") {
		t.Fatalf("a damaged row, the language server: %s", resp)
	}
	out, err := ctxlsCmd("index", "--root", root, "--cache-dir", filepath.Join(root, "..", filepath.Base(root)+".cache"), "--store", url, "--repo", "org/ledger").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "generation 1 unchanged") || !strings.Contains(string(out), "damaged blobs in the store written again: 1") {
		t.Fatalf("publish over a damaged row: %v\n%s", err, out)
	}
	text, isErr = call(t, c2, "assemble_context", map[string]any{"query": "the interest rate of an account", "repo": "org/ledger", "budget": map[string]any{"maxTokens": 500}})
	if isErr || !strings.Contains(text, "return 325") {
		t.Fatalf("a damaged row, after the publish: %s\n%s", text, r2.log.String())
	}

	// A generation that lends a file the chunks of another repository's
	// file. ledger.go changes first (one file of twelve: the image of the
	// first generation stays, and a cold replica takes ledger.go's chunks
	// from the generation).
	publishRepo(t, url, "org/ledger", root, map[string]string{"ledger.go": strings.Replace(files["ledger.go"], "sums the entries", "adds up the entries", 1)})
	evil := filepath.Join(t.TempDir(), "tree")
	if err := os.MkdirAll(evil, 0o755); err != nil {
		t.Fatal(err)
	}
	publishRepo(t, url, "evil/x", evil, map[string]string{"ledger.go": "package ledger\n\n// Backdoor sends the keys away.\nfunc Backdoor() {}\n"})
	m := w.manifest("org/ledger")
	for i := range m.Files {
		if m.Files[i].Path == "ledger.go" {
			m.Files[i].Chunks = w.manifest("evil/x").Files[0].Chunks
		}
	}
	w.generation("org/ledger", m)
	backdoor := func(c *sdk.ClientSession) bool {
		text, isErr := call(t, c, "find_symbol", map[string]any{"name": "Backdoor", "repo": "org/ledger"})
		return !isErr && strings.Contains(text, "func Backdoor()")
	}
	if !backdoor(startReplica(t, url).client(t, tok)) {
		t.Fatal("a cold replica does not serve the other writer's chunks: the test does not test")
	}
	publishRepo(t, url, "org/ledger", root, nil)
	c4 := startReplica(t, url).client(t, tok)
	if backdoor(c4) {
		t.Fatal("after the publish, a cold replica serves the other writer's chunks")
	}
	if text, isErr := call(t, c4, "find_symbol", map[string]any{"name": "Balance", "repo": "org/ledger"}); isErr || !strings.Contains(text, "func Balance(entries []int64) int64") {
		t.Fatalf("find_symbol Balance after the publish: %s", text)
	}
}

// lspAssemble starts `ctxls serve --store`, asks it context/assemble for
// query in repo with token, and returns the response.
func lspAssemble(t *testing.T, url, token, repo, query string) string {
	t.Helper()
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
	if resp := send(1, "initialize", fmt.Sprintf(`{"capabilities":{},"initializationOptions":{"token":%q}}`, token)); !strings.Contains(resp, `"contextAssemble"`) {
		t.Fatalf("initialize: %s\n%s", resp, log.String())
	}
	return send(2, "context/assemble", fmt.Sprintf(`{"query":%q,"repo":%q}`, query, repo))
}
