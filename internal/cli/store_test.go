package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/pgstore/pgtest"
)

// gitRepo makes ws a git repository with a history: the initial commit,
// then commits that change files together (the history channel's
// co-changes).
func gitRepo(t *testing.T, ws string) func(msg string, edits map[string]string) {
	t.Helper()
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.email=t@t", "-c", "user.name=t", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE=2026-01-02T03:04:05Z", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	commit := func(msg string, edits map[string]string) {
		for p, text := range edits {
			if err := os.WriteFile(filepath.Join(ws, filepath.FromSlash(p)), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		git("add", "-A")
		git("commit", "-qm", msg)
	}
	git("init", "-q")
	commit("init", nil)
	return commit
}

// appendTo returns path's text in ws with s appended.
func appendTo(t *testing.T, ws, path, s string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ws, filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + s
}

// The context assembled from the store is the one the local index of the
// same tree gives, byte for byte, for a question, a cursor and a diff;
// a later generation reaches the replica; secrets are never published.
func TestStoreParity(t *testing.T) {
	url := pgtest.Start(t).NewDatabase(t, "parity")
	ws := workspace(t)
	commit := gitRepo(t, ws)
	for i, word := range []string{"rounding", "discount", "receipt"} {
		commit("change tax and cart together "+word, map[string]string{
			"tax/rates.go": appendTo(t, ws, "tax/rates.go", "\n// "+word+" rule "+strings.Repeat("x", i)+"\n"),
			"cart/cart.go": appendTo(t, ws, "cart/cart.go", "\n// "+word+" note\n"),
		})
	}
	local, replica := t.TempDir(), t.TempDir()
	out, stderr, code := ctxls(t, "", "index", "--root", ws, "--cache-dir", local, "--store", url, "--repo", "org/shop", "--store-vectors")
	if code != 0 || !strings.Contains(out, "publish: org/shop generation 1:") {
		t.Fatalf("index --store: exit %d\n%s%s", code, out, stderr)
	}
	diff := `--- a/tax/rates.go
+++ b/tax/rates.go
@@ -19,4 +19,4 @@ func RateFor(region string) int64 {
 func Compute(region string, cents int64) int64 {
 	bp := RateFor(region)
-	return (cents*bp + 5000) / 10000
+	return (cents*bp + 9999) / 10000
 }
`
	cases := []struct {
		stdin string
		args  []string
	}{
		{"", []string{"--query", "how is the tax computed at checkout", "--budget", "1500"}},
		{"", []string{"--query", "cart total discount", "--budget", "800", "--format", "xml", "--strategy", "score"}},
		{"", []string{"--focus", "cart/cart.go:12", "--budget", "1200"}},
		{diff, []string{"--diff-file", "-", "--budget", "1500"}},
		{diff, []string{"--diff-file", "-", "--budget", "1500", "--mode", "review"}},
	}
	check := func(gen string) {
		t.Helper()
		for _, c := range cases {
			want, stderr, code := ctxls(t, c.stdin, append([]string{"assemble", "--root", ws, "--cache-dir", local}, c.args...)...)
			if code != 0 || want == "" {
				t.Fatalf("local %v: exit %d: %s", c.args, code, stderr)
			}
			got, stderr, code := ctxls(t, c.stdin, append([]string{"assemble", "--store", url, "--repo", "org/shop", "--cache-dir", replica}, c.args...)...)
			if code != 0 {
				t.Fatalf("store %v: exit %d: %s", c.args, code, stderr)
			}
			if got != want {
				t.Fatalf("%s %v: the store's context differs from the local one\n--- local\n%s\n--- store\n%s", gen, c.args, want, got)
			}
		}
	}
	check("generation 1")
	// The replica has the history and the vectors it was published with.
	_, stderr, code = ctxls(t, "", "assemble", "--store", url, "--repo", "org/shop", "--cache-dir", replica, "--query", "tax", "--explain")
	if code != 0 || !strings.Contains(stderr, "history: ") || strings.Contains(stderr, "history: none") ||
		!strings.Contains(stderr, "semantic: ") || strings.Contains(stderr, "semantic: none") {
		t.Fatalf("the replica's channels: exit %d\n%s", code, stderr)
	}

	// What the walk left out (a secret, an ignored log, a private key)
	// is in no checkout.
	trees, _ := filepath.Glob(filepath.Join(replica, "*", "tree"))
	if len(trees) != 1 {
		t.Fatalf("checkouts: %v", trees)
	}
	for _, p := range []string{"secrets/key.txt", "debug.log", "id_rsa"} {
		if _, err := os.Stat(filepath.Join(trees[0], p)); err == nil {
			t.Errorf("%s was published", p)
		}
	}

	// Nothing changed: no new generation.
	out, stderr, code = ctxls(t, "", "index", "--root", ws, "--cache-dir", local, "--store", url, "--repo", "org/shop", "--store-vectors")
	if code != 0 || !strings.Contains(out, "generation 1 unchanged") {
		t.Fatalf("index again: exit %d\n%s%s", code, out, stderr)
	}
	// One file changed, published without the vectors (the replica
	// computes its own): a few new blobs, and the replica answers with it,
	// as the local index does.
	commit("add a refund", map[string]string{"cart/cart.go": appendTo(t, ws, "cart/cart.go", "\n// Refund gives a zanzibarite refund.\nfunc Refund() {}\n")})
	out, stderr, code = ctxls(t, "", "index", "--root", ws, "--cache-dir", local, "--store", url, "--repo", "org/shop")
	m := regexp.MustCompile(`generation 2: \d+ files, (\d+) of (\d+) blobs new`).FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("index after a change: exit %d\n%s%s", code, out, stderr)
	}
	// Its text, its chunks, the history's changed blocks, the manifest.
	if n := atoi(t, m[1]); n > 6 || n > atoi(t, m[2]) {
		t.Errorf("one changed file wrote %s blobs (of %s looked for)", m[1], m[2])
	}
	got, stderr, code := ctxls(t, "", "assemble", "--store", url, "--repo", "org/shop", "--cache-dir", replica, "--query", "zanzibarite refund", "--budget", "300")
	if code != 0 || !strings.Contains(got, "func Refund") {
		t.Fatalf("the replica did not see generation 2: exit %d: %s\n%s", code, stderr, got)
	}
	cases = append(cases, struct {
		stdin string
		args  []string
	}{"", []string{"--query", "zanzibarite refund", "--budget", "600"}})
	check("generation 2")
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// A question across repositories gets one context over them, each
// repository's paths under its name, with parts of the repositories that
// answer it and none of one that does not.
func TestStoreAcrossRepos(t *testing.T) {
	url := pgtest.Start(t).NewDatabase(t, "across")
	repos := map[string]map[string]string{
		"org/billing": {
			"invoice.go": "package billing\n\n// Invoice totals the lines of an order and adds the sales tax.\nfunc Invoice(lines []int64, taxRate int64) int64 {\n\tvar sum int64\n\tfor _, l := range lines {\n\t\tsum += l\n\t}\n\treturn sum + sum*taxRate/10000\n}\n",
			"refund.go":  "package billing\n\n// Refund returns the money of a cancelled invoice.\nfunc Refund(amount int64) int64 { return -amount }\n",
		},
		"org/auth": {
			"login.go": "package auth\n\n// Login checks a password against its bcrypt hash and opens a session.\nfunc Login(user, password string) (string, error) { return \"session-\" + user, nil }\n",
		},
		"team/search": {
			"rank.py": "def rank(documents, query):\n    \"\"\"Rank documents by bm25 against the query terms.\"\"\"\n    return sorted(documents, key=lambda d: score(d, query), reverse=True)\n",
		},
	}
	for name, files := range repos {
		root := t.TempDir()
		for p, text := range files {
			if err := os.WriteFile(filepath.Join(root, p), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, stderr, code := ctxls(t, "", "index", "--root", root, "--cache-dir", t.TempDir(), "--store", url, "--repo", name); code != 0 {
			t.Fatalf("publish %s: %s", name, stderr)
		}
	}
	cache := t.TempDir()
	q := []string{"--query", "the invoice refund of a cancelled order, and the login password check", "--budget", "600"}
	for _, sel := range [][]string{{"--repo", "*"}, {"--repo", "org/billing", "--repo", "org/auth", "--repo", "team/search"}} {
		out, stderr, code := ctxls(t, "", append(append([]string{"assemble", "--store", url, "--cache-dir", cache}, sel...), q...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", sel, code, stderr)
		}
		for _, want := range []string{"org/billing/refund.go", "org/auth/login.go", "func Refund", "func Login"} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: no %s in\n%s", sel, want, out)
			}
		}
		if strings.Contains(out, "team/search") {
			t.Errorf("%v: the search repository answered a question about billing and login:\n%s", sel, out)
		}
	}
	// A repository that does not exist fails the request, by name.
	if _, stderr, code := ctxls(t, "", append([]string{"assemble", "--store", url, "--cache-dir", cache, "--repo", "org/billing", "--repo", "org/nope"}, q...)...); code == 0 || !strings.Contains(stderr, "org/nope") {
		t.Fatalf("a missing repository: exit %d: %s", code, stderr)
	}
}

// A review bot with no index of its own: the base branch's index from the
// store, the pull request's files laid over it in memory. The context
// shows the pull request's code, not the base's, and none of a file it
// deletes.
func TestStoreReviewOverlay(t *testing.T) {
	url := pgtest.Start(t).NewDatabase(t, "review")
	base := workspace(t)
	commit := gitRepo(t, base)
	if _, stderr, code := ctxls(t, "", "index", "--root", base, "--cache-dir", t.TempDir(), "--store", url, "--repo", "shop"); code != 0 {
		t.Fatal(stderr)
	}
	// The pull request: a new function in tax/rates.go, a new file, a
	// file deleted.
	commit("the pull request", map[string]string{
		"tax/rates.go":  appendTo(t, base, "tax/rates.go", "\n// Surcharge adds the zanzibarite surcharge to a rate.\nfunc Surcharge(bp int64) int64 { return bp + 25 }\n"),
		"tax/exempt.go": "package tax\n\n// Exempt reports whether a zanzibarite region pays no tax.\nfunc Exempt(region string) bool { return region == \"zz\" }\n",
	})
	deleted := "scripts/report.py"
	if err := os.Remove(filepath.Join(base, filepath.FromSlash(deleted))); err != nil {
		t.Fatal(err)
	}
	commit("delete "+deleted, nil)
	cmd := exec.Command("git", "diff", "HEAD~2", "HEAD")
	cmd.Dir = base
	diff, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	q := []string{"--query", "zanzibarite surcharge exempt, and the sales report script", "--budget", "3000"}
	cache := t.TempDir()
	// Without the overlay, the base's files answer: the deleted script
	// among them, the new functions not.
	out, stderr, code := ctxls(t, string(diff), append([]string{"assemble", "--store", url, "--repo", "shop", "--cache-dir", cache, "--diff-file", "-"}, q...)...)
	if code != 0 || !strings.Contains(out, deleted) || strings.Contains(out, "func Exempt") {
		t.Fatalf("without the overlay: exit %d: %s\n%s", code, stderr, out)
	}
	out, stderr, code = ctxls(t, string(diff), append([]string{"assemble", "--store", url, "--repo", "shop", "--cache-dir", cache, "--diff-file", "-", "--overlay", base}, q...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"func Surcharge", "func Exempt", "tax/exempt.go"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the review context:\n%s", want, out)
		}
	}
	if strings.Contains(out, deleted) {
		t.Errorf("the deleted %s is in the review context:\n%s", deleted, out)
	}
	// --overlay without a diff, or without a store, is bad usage.
	if _, _, code := ctxls(t, "", "assemble", "--store", url, "--repo", "shop", "--overlay", base, "--query", "x"); code != 2 {
		t.Errorf("--overlay without --diff-file: exit %d", code)
	}
	if _, _, code := ctxls(t, "", "assemble", "--root", base, "--overlay", base, "--query", "x"); code != 2 {
		t.Errorf("--overlay without --store: exit %d", code)
	}
}

// The store's flags: bad combinations and URLs are bad usage (exit 2),
// an unreachable store an error that says which (exit 1).
func TestStoreUsage(t *testing.T) {
	ws := workspace(t)
	for _, args := range [][]string{
		{"assemble", "--store", "postgres://x@127.0.0.1:1/db", "--query", "q"},
		{"assemble", "--repo", "a", "--query", "q"},
		{"assemble", "--root", ws, "--store", "postgres://x@127.0.0.1:1/db", "--repo", "a", "--query", "q"},
		{"assemble", "--store", "not a url", "--repo", "a", "--query", "q"},
		{"assemble", "--store", "postgres://x@127.0.0.1:1/db", "--repo", "../a", "--query", "q"},
		{"assemble", "--store", "postgres://x@127.0.0.1:1/db", "--repo", "a", "--diff", "HEAD", "--query", "q"},
		{"index", "--root", ws, "--store", "postgres://x@127.0.0.1:1/db"},
		{"index", "--root", ws, "--repo", "a"},
		{"store", "token", "--store", "not a url", "--name", "n", "--repos", "a"},
		{"store"},
	} {
		if _, stderr, code := ctxls(t, "", args...); code != 2 || strings.Contains(stderr, "goroutine") {
			t.Errorf("%v: exit %d, want 2: %s", args, code, stderr)
		}
	}
	_, stderr, code := ctxls(t, "", "assemble", "--store", "postgres://x@127.0.0.1:1/db", "--repo", "a", "--query", "q")
	if code != 1 || !strings.Contains(stderr, "--store") || !strings.Contains(stderr, "127.0.0.1:1") {
		t.Errorf("an unreachable store: exit %d: %s", code, stderr)
	}
}
