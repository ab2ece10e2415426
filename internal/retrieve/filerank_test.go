package retrieve

import (
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
)

// fileRankWorkspace is a workspace where a guide says in prose what the
// question asks, word for word, while the code it is about matches fewer
// of its words: the lexical channel ranks the guide first.
func fileRankWorkspace() map[string]string {
	return map[string]string{
		"go.mod": "module example.com/m\n",
		"client/retry_backoff.md": "# Retries\n\nThe client retries a request that failed with a timeout: the retry\n" +
			"backoff doubles after each failed request, and the client gives up after\nthe retry limit. " +
			"A request that failed with a timeout is retried with backoff.\n",
		"client/wait.go":        "package client\n\n// pause is the backoff before the n-th attempt.\nfunc pause(n int) time.Duration {\n\treturn time.Duration(1<<n) * 100 * time.Millisecond\n}\n",
		"client/client.go":      "package client\n\n// Client sends requests.\ntype Client struct {\n\tlimit int\n}\n\n// Do sends req.\nfunc (c *Client) Do(req *Request) error {\n\treturn c.send(req)\n}\n",
		"client/limits.go":      "package client\n\n// maxAttempts bounds the attempts at a request.\nconst maxAttempts = 5\n",
		"client/client_test.go": "package client\n\nfunc TestDo(t *testing.T) {\n\tc := &Client{}\n\tc.Do(nil)\n}\n",
	}
}

// fileFeaturesByPath is the file model's features of each explained file.
func fileFeaturesByPath(res *Response) map[string]map[string]float64 {
	feats := map[string]map[string]float64{}
	for _, e := range res.Explain {
		if e.FileFeatures != nil {
			feats[e.Path] = e.FileFeatures
		}
	}
	return feats
}

// TestFileRankFeatures: with --explain a question's best files carry the
// file model's features, computed from what the channels found.
func TestFileRankFeatures(t *testing.T) {
	snap := indexFiles(t, fileRankWorkspace())
	req := Request{Query: "the retry backoff of a request that failed with a timeout", Budget: assemble.Budget{MaxTokens: 4000}}
	off := DefaultOptions()
	off.FileRank = 0
	res, _ := assembleOpts(t, snap, off, req)
	feats := fileFeaturesByPath(res)
	guide, code := feats["client/retry_backoff.md"], feats["client/wait.go"]
	if guide == nil || code == nil {
		t.Fatalf("no file features for the guide or wait.go: %v", feats)
	}
	if guide["prose"] != 1 || code["prose"] != 0 {
		t.Errorf("prose: guide %v, wait.go %v; want 1, 0", guide["prose"], code["prose"])
	}
	if tf := feats["client/client_test.go"]; tf != nil && tf["test"] != 1 {
		t.Errorf("client_test.go: test = %v, want 1", tf["test"])
	}
	if code["depth"] != 1 || code["maxLexical"] <= 0 {
		t.Errorf("wait.go: depth %v, maxLexical %v; want 1 and > 0", code["depth"], code["maxLexical"])
	}
	// Exactly one file is the best (rank 0, relScore 0); the others are
	// below it.
	best := 0
	for p, f := range feats {
		switch {
		case f["rank"] == 0 && f["relScore"] == 0:
			best++
		case f["relScore"] > 0 || f["rank"] <= 0:
			t.Errorf("%s: relScore %v, rank %v; want < 0 and > 0 below the best file", p, f["relScore"], f["rank"])
		}
	}
	if best != 1 {
		t.Errorf("%d files ranked first, want 1", best)
	}
	// Without --explain nothing is recorded (and without a question the
	// model does not run).
	res, _ = assembleOpts(t, snap, off, Request{Focus: &Focus{Path: "client/client.go", Line: 10}, Budget: assemble.Budget{MaxTokens: 4000}})
	for _, e := range res.Explain {
		if e.FileFeatures != nil {
			t.Fatalf("a cursor request has file features: %s %v", e.Path, e.FileFeatures)
		}
	}
}

// TestFileRankOrdersByEvidence: the guide the words match best (and by
// its name) comes before some of the code without the file model; with it,
// after all of it — a prose file a question's words match is rarely what
// the question is about — and it stays in the context. With the model at
// 0 no prior is recorded.
func TestFileRankOrdersByEvidence(t *testing.T) {
	snap := indexFiles(t, fileRankWorkspace())
	req := Request{Query: "the retry backoff of a request that failed with a timeout", Budget: assemble.Budget{MaxTokens: 4000}, Strategy: assemble.ByScore}
	if DefaultOptions().FileRank <= 0 {
		t.Error("FileRank is off by default")
	}
	// guideAt is the guide's place among the context's files (in the
	// order of their first parts), and how many files there are.
	guideAt := func(opts Options) (int, int, *Response) {
		res, _ := assembleOpts(t, snap, opts, req)
		var files []string
		for _, p := range res.Parts {
			if !slices.Contains(files, p.Path) {
				files = append(files, p.Path)
			}
		}
		return slices.Index(files, "client/retry_backoff.md"), len(files), res
	}
	off := DefaultOptions()
	off.FileRank = 0
	at, n, res := guideAt(off)
	if at < 0 || at == n-1 {
		t.Fatalf("without the file model the guide is file %d of %d, want before the last: the test no longer shows the model's effect", at, n)
	}
	for _, e := range res.Explain {
		for _, p := range e.Priors {
			if strings.Contains(p, "file model") {
				t.Fatalf("FileRank 0 recorded a prior: %s %s", e.Path, p)
			}
		}
	}
	on := DefaultOptions()
	on.FileRank = 1
	if at, n, _ := guideAt(on); at != n-1 {
		t.Errorf("with the file model the guide is file %d of %d, want the last", at, n)
	}
}

// TestFileRankDiffFeatures: for a diff, the files carry the diff's own
// features: the file it changes, the others of its directory, its test.
func TestFileRankDiffFeatures(t *testing.T) {
	files := fileRankWorkspace() // the tree holds the diff's new version
	files["client/client.go"] = strings.Replace(files["client/client.go"], "c.send(req)", "c.sendWithBackoff(req, pause(maxAttempts))", 1)
	snap := indexFiles(t, files)
	diff := "diff --git a/client/client.go b/client/client.go\n--- a/client/client.go\n+++ b/client/client.go\n" +
		"@@ -8,3 +8,3 @@ type Client struct {\n // Do sends req.\n func (c *Client) Do(req *Request) error {\n-\treturn c.send(req)\n+\treturn c.sendWithBackoff(req, pause(maxAttempts))\n"
	res, _ := assembleOpts(t, snap, DefaultOptions(), Request{Diff: diff, Budget: assemble.Budget{MaxTokens: 4000}, Explain: true})
	feats := fileFeaturesByPath(res)
	want := map[string][3]float64{ // own, diffDir, diffStem
		"client/client.go":      {1, 0, 0},
		"client/client_test.go": {0, 1, 1},
		"client/wait.go":        {0, 1, 0},
		"client/limits.go":      {0, 1, 0},
	}
	for p, w := range want {
		f := feats[p]
		if f == nil {
			t.Errorf("%s: no file features", p)
			continue
		}
		if got := [3]float64{f["own"], f["diffDir"], f["diffStem"]}; got != w {
			t.Errorf("%s: own, diffDir, diffStem = %v, want %v", p, got, w)
		}
	}
	if f := feats["client/wait.go"]; f != nil && f["maxDiff"] <= 0 {
		t.Errorf("wait.go, which the changed line calls: maxDiff %v, want > 0", f["maxDiff"])
	}
}

func TestCoreStem(t *testing.T) {
	for p, want := range map[string]string{
		"client/client.go":               "client",
		"client/client_test.go":          "client",
		"tests/test_client.py":           "client",
		"src/Client.spec.ts":             "client",
		"src/test/java/ClientTest.java":  "client",
		"src/test/java/ClientTests.java": "client",
		"test.go":                        "test",
		"util/latest.go":                 "latest",
		".gitignore":                     "",
		"lib/foo-spec.js":                "foo",
		"spec/foo_spec.rb":               "foo",
		"pkg/contest_test.go":            "contest",
		"tests/util_tests.py":            "util",
		"README.md":                      "readme",
	} {
		if got := coreStem(p); got != want {
			t.Errorf("coreStem(%q) = %q, want %q", p, got, want)
		}
	}
}

// TestFileRankDiffDeleted: a deleted file's test and directory carry the
// diff's features, though the file is no longer in the tree.
func TestFileRankDiffDeleted(t *testing.T) {
	snap := indexFiles(t, map[string]string{
		"go.mod":              "module example.com/m\n",
		"store/cache_test.go": "package store\n\nfunc TestEvictStale(t *testing.T) {\n\tc := newCache()\n\tc.evictStale()\n}\n",
		"store/db.go":         "package store\n\n// DB holds the rows.\ntype DB struct {\n\trows map[string]string\n}\n",
	})
	diff := "diff --git a/store/cache.go b/store/cache.go\ndeleted file mode 100644\n--- a/store/cache.go\n+++ /dev/null\n" +
		"@@ -1,4 +0,0 @@\n-package store\n-\n-// evictStale drops the stale entries of the cache.\n-func (c *cache) evictStale() {}\n"
	res, _ := assembleOpts(t, snap, DefaultOptions(), Request{Diff: diff, Budget: assemble.Budget{MaxTokens: 4000}, Explain: true})
	feats := fileFeaturesByPath(res)
	f := feats["store/cache_test.go"]
	if f == nil {
		t.Fatalf("no file features for the deleted file's test: %v", feats)
	}
	if f["own"] != 0 || f["diffDir"] != 1 || f["diffStem"] != 1 {
		t.Errorf("store/cache_test.go: own %v, diffDir %v, diffStem %v; want 0, 1, 1", f["own"], f["diffDir"], f["diffStem"])
	}
}

// TestFileRankModelOf: a question has the question's weights, a diff
// (with or without a question) the diff's, a cursor none.
func TestFileRankModelOf(t *testing.T) {
	e := &Engine{opts: DefaultOptions()}
	diff := []FileDiff{{Path: "a.go"}}
	for _, c := range []struct {
		name string
		r    *run
		want *[nFileFeatures]float64
	}{
		{"question", &run{e: e, req: Request{Query: "retry"}}, &e.files.question},
		{"diff", &run{e: e, diffFiles: diff}, &e.files.diff},
		{"question and diff", &run{e: e, req: Request{Query: "retry"}, diffFiles: diff}, &e.files.diff},
		{"cursor and diff", &run{e: e, req: Request{Focus: &Focus{Path: "a.go", Line: 1}}, diffFiles: diff}, nil},
		{"nothing", &run{e: e, req: Request{Query: " "}}, nil},
	} {
		if got, _ := c.r.fileRankModel(); got != c.want {
			t.Errorf("%s: the wrong weights (or none)", c.name)
		}
	}
}
