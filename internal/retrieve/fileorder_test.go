package retrieve

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/assemble"
)

// fileOrderFiles is a workspace where server.go's Server type is what
// every other file refers to (the graph, overview and path channels rank
// it first in its file), while the question's words are in one method.
func fileOrderFiles() map[string]string {
	var srv strings.Builder
	srv.WriteString("package server\n\n// Server serves the API.\ntype Server struct {\n\tAddr string\n\tconns map[int]*conn\n\tmu sync.Mutex\n}\n\n")
	srv.WriteString("// New returns a server listening on addr.\nfunc New(addr string) *Server {\n\treturn &Server{Addr: addr, conns: map[int]*conn{}}\n}\n\n")
	srv.WriteString("// closeIdle closes the connections that carry no request, so that a\n// shutdown does not wait for their keep-alive timeout.\nfunc (s *Server) closeIdle() {\n\ts.mu.Lock()\n\tdefer s.mu.Unlock()\n\tfor id, c := range s.conns {\n\t\tif c.idle() {\n\t\t\tc.close()\n\t\t\tdelete(s.conns, id)\n\t\t}\n\t}\n}\n\n")
	srv.WriteString("// Serve accepts connections until the listener fails.\nfunc (s *Server) Serve() error {\n\tfor {\n\t\tc, err := s.accept()\n\t\tif err != nil {\n\t\t\treturn err\n\t\t}\n\t\tgo s.handle(c)\n\t}\n}\n")
	files := map[string]string{"go.mod": "module example.com/m\n", "server/server.go": srv.String()}
	for i := range 6 {
		files[fmt.Sprintf("api/h%d.go", i)] = fmt.Sprintf("package api\n\n// Handler%d routes to the server.\nfunc Handler%d(s *server.Server) {\n\ts.Serve()\n\tlog.Print(s.Addr)\n}\n", i, i)
	}
	return files
}

// TestLexicalFileOrder: with LexicalFileOrder the file's best score goes
// to the unit whose words the question uses (closeIdle), not to the type
// that the path channel (the question says "server") and the graph and
// overview channels (every other file refers to it) put first; the file
// keeps its place in the ranking.
func TestLexicalFileOrder(t *testing.T) {
	snap := indexFiles(t, fileOrderFiles())
	req := Request{Query: "server: close idle connections so that shutdown does not wait for the keep-alive timeout",
		Budget: assemble.Budget{MaxTokens: 4000}, Strategy: assemble.ByScore}
	best := func(opts Options) (symbol string, rank int) {
		res, _ := assembleOpts(t, snap, opts, req)
		for i, p := range res.Parts {
			if p.Path == "server/server.go" {
				return p.Symbol, i
			}
		}
		t.Fatal("server/server.go not shown")
		return "", 0
	}
	if DefaultOptions().LexicalFileOrder <= 0 {
		t.Error("LexicalFileOrder is off by default")
	}
	on := DefaultOptions()
	on.LexicalFileOrder = 1 // the words' order alone (the default mixes in the fused one)
	off := DefaultOptions()
	off.LexicalFileOrder = 0
	symOn, rankOn := best(on)
	symOff, rankOff := best(off)
	if !strings.Contains(symOn, "closeIdle") {
		t.Errorf("with the lexical file order, server.go's best part is %q, want closeIdle", symOn)
	}
	if strings.Contains(symOff, "closeIdle") {
		t.Errorf("without it, server.go's best part is already closeIdle: the test no longer shows the option's effect")
	}
	t.Logf("server.go's best part: %s with the order, %s without", symOn, symOff)
	if rankOn != rankOff {
		t.Errorf("server.go moved in the ranking: first part at %d with the order, %d without", rankOn, rankOff)
	}
}

// TestExplainPriors: --explain names the steps after fusion that moved a
// candidate — the within-file order that gave closeIdle its file's best
// score, the tooling penalty of a release script — so that a part's
// channels are not its whole story untold.
func TestExplainPriors(t *testing.T) {
	snap := indexFiles(t, fileOrderFiles())
	req := Request{Query: "server: close idle connections so that shutdown does not wait for the keep-alive timeout",
		Budget: assemble.Budget{MaxTokens: 4000}, Strategy: assemble.ByScore}
	on := DefaultOptions()
	on.LexicalFileOrder = 1 // as TestLexicalFileOrder: the words' order alone
	on.FileDepth = 0        // no other step after it (TestFileDepthFromBudget)
	res, _ := assembleOpts(t, snap, on, req)
	priorsOf := func(res *Response, path, symbol string) []string {
		for _, e := range res.Explain {
			if e.Path == path && strings.Contains(e.Symbol, symbol) {
				return e.Priors
			}
		}
		t.Fatalf("no explanation for %s %s", path, symbol)
		return nil
	}
	if got := priorsOf(res, "server/server.go", "closeIdle"); len(got) != 1 || !strings.HasPrefix(got[0], "ordered within its file by the question's words: the file's score 1 of ") {
		t.Errorf("closeIdle's priors = %q, want the within-file order", got)
	}
	off := DefaultOptions()
	off.LexicalFileOrder, off.FileDepth = 0, 0
	res, _ = assembleOpts(t, snap, off, req)
	if got := priorsOf(res, "server/server.go", "closeIdle"); len(got) != 0 {
		t.Errorf("without the within-file order closeIdle's priors = %q, want none", got)
	}

	files := map[string]string{
		"scripts/version.py": "def bump_version(version):\n    \"\"\"Bump the version number of the package version file.\"\"\"\n    return version\n",
		"pkg/version.py":     "def parse_version(text):\n    \"\"\"Parse the version number.\"\"\"\n    return tuple(int(p) for p in text.split('.'))\n",
	}
	res, _ = assembleOpts(t, indexFiles(t, files), DefaultOptions(), Request{Query: "parse and bump the package version number", Budget: assemble.Budget{MaxTokens: 2000}})
	if got := priorsOf(res, "scripts/version.py", "bump_version"); len(got) != 1 || got[0] != "build, CI or docs tooling ×0.40" {
		t.Errorf("the release script's priors = %q, want the tooling penalty", got)
	}
	if got := priorsOf(res, "pkg/version.py", "parse_version"); len(got) != 0 {
		t.Errorf("the project's code has priors %q", got)
	}
}
