package history

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// repo is a git repository built by a test.
type repo struct {
	t    *testing.T
	dir  string
	tick int
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is needed by these tests (make test installs it): %v", err)
	}
	r := &repo{t: t, dir: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	date := fmt.Sprintf("2026-01-01T00:00:%02dZ", r.tick%60)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@example.com", "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date,
		"GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// commit writes each file (a new line each time, so that it changes) and
// commits them.
func (r *repo) commit(files ...string) {
	r.t.Helper()
	r.tick++
	for _, f := range files {
		p := filepath.Join(r.dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			r.t.Fatal(err)
		}
		fh, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			r.t.Fatal(err)
		}
		fmt.Fprintf(fh, "change %d\n", r.tick)
		fh.Close()
	}
	r.git("add", "-A")
	r.git("commit", "-q", "-m", fmt.Sprintf("commit %d", r.tick))
}

func paths(s []Scored) []string {
	var out []string
	for _, x := range s {
		out = append(out, x.Path)
	}
	return out
}

func TestCoChangeAndRecency(t *testing.T) {
	r := newRepo(t)
	r.commit("a.go", "b.go", "c.go", "d.go", "e.go") // root commit: every file added, no co-change
	r.commit("a.go", "b.go")
	r.commit("a.go", "b.go")
	r.commit("a.go", "c.go", "x.go", "y.go")
	r.commit("d.go")
	r.commit("e.go")
	l, err := Read(context.Background(), r.dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Len() != 5 {
		t.Fatalf("kept %d commits, want 5 (the root commit dropped): %v", l.Len(), l)
	}
	got := paths(l.CoChanged([]string{"a.go"}, 10, 0))
	if want := []string{"b.go", "c.go", "x.go", "y.go"}; !slices.Equal(got, want) {
		t.Errorf("CoChanged(a.go) = %v, want %v (two shared two-file commits before one four-file commit; ties by path)", got, want)
	}
	if got := paths(l.CoChanged([]string{"a.go"}, 1, 0)); !slices.Equal(got, []string{"b.go"}) {
		t.Errorf("CoChanged(a.go, 1) = %v, want [b.go]", got)
	}
	if got := l.CoChanged([]string{"nothere.go"}, 10, 0); len(got) != 0 {
		t.Errorf("CoChanged of an unknown file = %v, want none", got)
	}
	if got := paths(l.CoChanged([]string{"d.go", "e.go"}, 10, 0)); len(got) != 0 {
		t.Errorf("files changed alone co-change with nothing, got %v", got)
	}
	if l.Recency("e.go") <= l.Recency("d.go") {
		t.Errorf("Recency: e.go (changed last) %.3f should beat d.go %.3f", l.Recency("e.go"), l.Recency("d.go"))
	}
	if l.Recency("a.go") != 1 {
		t.Errorf("Recency(a.go) = %.3f, want 1 (changed most)", l.Recency("a.go"))
	}
	if l.Recency("nothere.go") != 0 {
		t.Errorf("Recency of an unknown file = %v, want 0", l.Recency("nothere.go"))
	}
}

func TestMaxFilesDropsBigCommits(t *testing.T) {
	r := newRepo(t)
	r.commit("seed.go")
	r.commit("a.go", "b.go", "c.go", "d.go")
	r.commit("a.go", "b.go")
	l, err := Read(context.Background(), r.dir, Options{MaxFiles: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(l.CoChanged([]string{"a.go"}, 10, 0)); !slices.Equal(got, []string{"b.go"}) {
		t.Errorf("CoChanged(a.go) = %v, want [b.go]: the four-file commit is over MaxFiles", got)
	}
}

// A subdirectory workspace sees its own files, relative to it, and only
// the commits that touch it.
func TestSubdirectoryRoot(t *testing.T) {
	r := newRepo(t)
	r.commit("README")
	r.commit("svc/a.go", "svc/b.go", "other/z.go")
	r.commit("other/z.go", "other/y.go")
	l, err := Read(context.Background(), filepath.Join(r.dir, "svc"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(l.CoChanged([]string{"a.go"}, 10, 0)); !slices.Equal(got, []string{"b.go"}) {
		t.Errorf("CoChanged(a.go) in svc = %v, want [b.go]", got)
	}
	if l.Len() != 1 {
		t.Errorf("kept %d commits, want the one touching svc", l.Len())
	}
}

// Refresh after new commits, with and without merges and past the
// commit bound, gives byte for byte what a full read gives.
func TestRefreshEqualsFullRead(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.commit("seed.go")
	for i := range 4 {
		r.commit("a.go", fmt.Sprintf("f%d.go", i))
	}
	for k, opts := range []Options{{}, {MaxCommits: 3}} {
		side := fmt.Sprintf("side%d", k)
		old, err := Read(ctx, r.dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		same, err := Refresh(ctx, r.dir, old, opts)
		if err != nil || same != old {
			t.Fatalf("Refresh at the same HEAD: %v, %v; want the old log", same, err)
		}
		r.commit("a.go", "g.go")
		r.commit("h.go", "big.go")
		check := func(what string) {
			t.Helper()
			inc, err := Refresh(ctx, r.dir, old, opts)
			if err != nil {
				t.Fatal(err)
			}
			full, err := Read(ctx, r.dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			bi, _ := inc.MarshalBinary()
			bf, _ := full.MarshalBinary()
			if !bytes.Equal(bi, bf) {
				t.Errorf("%s (MaxCommits %d): refreshed log %v differs from a full read %v", what, opts.MaxCommits, inc, full)
			}
			if inc.Head() != r.git("rev-parse", "HEAD") {
				t.Errorf("%s: head %s, want HEAD", what, inc.Head())
			}
			old = inc
		}
		check("two new commits")
		r.git("checkout", "-q", "-b", side, "HEAD~1")
		r.commit("side.go", "a.go")
		r.git("checkout", "-q", "main")
		r.tick++
		r.git("merge", "-q", "--no-ff", "-m", "merge", side)
		check("a merge")
		r.git("reset", "-q", "--hard", "HEAD~2")
		check("a reset to an older commit")
	}
}

func TestUnavailable(t *testing.T) {
	ctx := context.Background()
	if _, err := Read(ctx, t.TempDir(), Options{}); !Unavailable(err) {
		t.Errorf("Read of a directory outside git: %v, want ErrUnavailable", err)
	}
	empty := newRepo(t)
	if _, err := Read(ctx, empty.dir, Options{}); !Unavailable(err) {
		t.Errorf("Read of a repository without commits: %v, want ErrUnavailable", err)
	}
	r := newRepo(t)
	r.commit("a.go")
	t.Setenv("PATH", t.TempDir())
	if _, err := Read(ctx, r.dir, Options{}); !Unavailable(err) || !strings.Contains(err.Error(), "not installed") {
		t.Errorf("Read without git on PATH: %v, want ErrUnavailable saying git is not installed", err)
	}
}

// A shallow clone's boundary commit lists every file as added: it is
// dropped, so a depth-1 clone has no co-change at all.
func TestShallowClone(t *testing.T) {
	r := newRepo(t)
	r.commit("a.go", "b.go")
	r.commit("a.go", "b.go")
	r.commit("c.go")
	clone := t.TempDir()
	r.git("clone", "-q", "--depth", "1", "file://"+r.dir, clone)
	l, err := Read(context.Background(), clone, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !l.Shallow() || l.Len() != 0 {
		t.Errorf("depth-1 clone: %v, want shallow with no commits kept", l)
	}
	r2 := &repo{t: t, dir: clone}
	r2.commit("a.go", "c.go")
	l, err = Read(context.Background(), clone, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(l.CoChanged([]string{"a.go"}, 10, 0)); !slices.Equal(got, []string{"c.go"}) {
		t.Errorf("CoChanged(a.go) after a commit on the shallow clone = %v, want [c.go]", got)
	}
}

func TestLoadCache(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.commit("seed.go")
	r.commit("a.go", "b.go")
	cache := filepath.Join(t.TempDir(), "idx", CacheFile)
	l, err := Load(ctx, r.dir, cache, Options{}, func(f string, a ...any) { t.Errorf("warning: "+f, a...) })
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(cache)
	if err != nil {
		t.Fatalf("the cache was not written: %v", err)
	}
	c, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := l.MarshalBinary()
	got, _ := c.MarshalBinary()
	if !bytes.Equal(got, want) {
		t.Error("the cache does not decode to the log it was written from")
	}
	// A corrupt cache is read again from git, and written again.
	b[len(b)/2] ^= 0xff
	if _, err := Unmarshal(b); err == nil {
		t.Error("a corrupt cache decoded without error")
	}
	if err := os.WriteFile(cache, b, 0o644); err != nil {
		t.Fatal(err)
	}
	l2, err := Load(ctx, r.dir, cache, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(l2.CoChanged([]string{"a.go"}, 10, 0)); !slices.Equal(got, []string{"b.go"}) {
		t.Errorf("after a corrupt cache: CoChanged(a.go) = %v, want [b.go]", got)
	}
	if b2, _ := os.ReadFile(cache); bytes.Equal(b2, b) {
		t.Error("the corrupt cache was not rewritten")
	}
	// A cache that cannot be written is told, and the log used.
	var warned string
	bad := filepath.Join(t.TempDir(), "file")
	os.WriteFile(bad, nil, 0o644)
	r.commit("c.go", "a.go")
	l3, err := Load(ctx, r.dir, filepath.Join(bad, CacheFile), Options{}, func(f string, a ...any) { warned = fmt.Sprintf(f, a...) })
	if err != nil || l3 == nil || l3.Head() != r.git("rev-parse", "HEAD") {
		t.Fatalf("Load with an unwritable cache: %v, %v", l3, err)
	}
	if !strings.Contains(warned, "history cache") {
		t.Errorf("unwritable cache: warning %q, want one naming the history cache", warned)
	}
}

// A tracker sees a new commit without being asked to, and says nothing
// where there is no history.
func TestTracker(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.commit("seed.go")
	r.commit("a.go", "b.go")
	cache := filepath.Join(t.TempDir(), CacheFile)
	warn := func(f string, a ...any) { t.Errorf("warning: "+f, a...) }
	tr := NewTracker(r.dir, cache, Options{}, time.Millisecond, warn)
	defer tr.Close()
	l := tr.Wait(ctx)
	if l == nil || l.Head() != r.git("rev-parse", "HEAD") {
		t.Fatalf("first read: %v", l)
	}
	r.commit("a.go", "c.go")
	want := r.git("rev-parse", "HEAD")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if l := tr.Current(); l != nil && l.Head() == want {
			if got := paths(l.CoChanged([]string{"c.go"}, 5, 0)); !slices.Equal(got, []string{"a.go"}) {
				t.Errorf("after the commit: CoChanged(c.go) = %v, want [a.go]", got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tracker did not see the new commit: %v", tr.Current())
		}
		time.Sleep(5 * time.Millisecond)
	}
	tr.Close()
	b, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := Unmarshal(b); err != nil || c.Head() != want {
		t.Errorf("the cache holds %v (%v), want the log at the new HEAD", c, err)
	}

	none := NewTracker(t.TempDir(), "", Options{}, time.Millisecond, warn)
	defer none.Close()
	if l := none.Wait(ctx); l != nil {
		t.Errorf("a directory outside git has history %v", l)
	}
}

func TestNewMatchesRead(t *testing.T) {
	r := newRepo(t)
	r.commit("seed.go")
	r.commit("a.go", "b.go")
	r.commit("c.go")
	read, err := Read(context.Background(), r.dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	made := FromCommits(read.Head(), []Commit{{"commit 3", []string{"c.go"}}, {"commit 2", []string{"a.go", "b.go"}}}, Options{})
	a, _ := read.MarshalBinary()
	b, _ := made.MarshalBinary()
	if !bytes.Equal(a, b) {
		t.Errorf("New = %v, Read = %v: want the same log", made, read)
	}
}

// With a half-life, a pair that changed together lately outweighs one
// that changed together more often long ago.
func TestCoChangedHalfLife(t *testing.T) {
	commits := [][]string{{"a.go", "new.go"}}
	for range 300 {
		commits = append(commits, []string{"x.go"})
	}
	commits = append(commits, []string{"a.go", "old.go"}, []string{"a.go", "old.go"})
	l := New("head", commits, Options{})
	if got := paths(l.CoChanged([]string{"a.go"}, 2, 0)); !slices.Equal(got, []string{"old.go", "new.go"}) {
		t.Errorf("without a half-life: %v, want old.go (twice) before new.go (once)", got)
	}
	if got := paths(l.CoChanged([]string{"a.go"}, 2, 100)); !slices.Equal(got, []string{"new.go", "old.go"}) {
		t.Errorf("half-life 100 commits: %v, want new.go (lately) before old.go (twice, 300 commits back)", got)
	}
}

// A message's terms: camel- and snake-case parts and the whole name,
// lower-cased, sorted; stop words, numbers and single letters out.
func TestMessageTerms(t *testing.T) {
	got := messageTerms("Fix parseHTTPHeader in the_router (v2, #123)\n\nSee HTTPServer.")
	want := []string{"fix", "header", "http", "http", "httpserver", "parse", "parsehttpheader", "router", "see", "server", "therouter", "v2"}
	if !slices.Equal(got, want) {
		t.Errorf("messageTerms = %q, want %q", got, want)
	}
	long := strings.Repeat("word ", 3*maxMessageTerms)
	if n := len(messageTerms(long)); n != maxMessageTerms {
		t.Errorf("a long message keeps %d terms, want %d", n, maxMessageTerms)
	}
}

// The files of the commits whose messages read like the question come
// first; a commit of many files gives each less; nothing in common gives
// nothing.
func TestMessageMatches(t *testing.T) {
	l := FromCommits("head", []Commit{
		{"Add CORS middleware for preflight requests", []string{"middleware.go", "middleware_test.go"}},
		{"Refactor route matching", []string{"route.go"}},
		{"Update docs", []string{"README.md"}},
		{"middleware: order of execution", []string{"middleware.go"}},
		{"Route variables in host names", []string{"route.go", "regexp.go", "mux.go", "doc.go"}},
	}, Options{})
	got := l.MessageMatches("CORSMethodMiddleware sets the allowed methods on preflight", 20, 10)
	if len(got) < 2 || got[0].Path != "middleware.go" || got[0].Score != 1 || got[1].Path != "middleware_test.go" {
		t.Fatalf("MessageMatches = %v, want middleware.go (1) then its test", got)
	}
	for _, s := range got {
		if s.Path == "README.md" || s.Path == "route.go" {
			t.Errorf("%s matched: no term in common", s.Path)
		}
	}
	got = l.MessageMatches("route matching in host names", 20, 10)
	if len(got) < 2 || got[0].Path != "route.go" {
		t.Fatalf("MessageMatches = %v, want route.go first (two commits)", got)
	}
	if s := scoreOf(got, "mux.go"); s <= 0 || s >= scoreOf(got, "route.go") {
		t.Errorf("mux.go %v: want above 0, below route.go", s)
	}
	if got := l.MessageMatches("the of and", 20, 10); got != nil {
		t.Errorf("stop words only: %v, want nil", got)
	}
	if got := l.MessageMatches("route", 1, 10); len(got) != 1 {
		t.Errorf("one commit: %v, want its one file", got)
	}
	var none *Log
	if got := none.MessageMatches("route", 20, 10); got != nil {
		t.Errorf("no history: %v", got)
	}
}

func scoreOf(s []Scored, path string) float64 {
	for _, x := range s {
		if x.Path == path {
			return x.Score
		}
	}
	return 0
}

// Read takes each commit's whole message (subject and body), and a
// refresh carries the older commits' terms over.
func TestReadMessages(t *testing.T) {
	r := newRepo(t)
	r.commit("seed.go")
	r.tick++
	if err := os.WriteFile(filepath.Join(r.dir, "a.go"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.git("add", "-A")
	r.git("commit", "-q", "-m", "Subject line", "-m", "Body names the frobnicator.")
	l, err := Read(context.Background(), r.dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := l.MessageMatches("frobnicator", 20, 10); len(got) != 1 || got[0].Path != "a.go" {
		t.Errorf("a term of the body: %v, want a.go", got)
	}
	r.commit("b.go")
	l2, err := Refresh(context.Background(), r.dir, l, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := l2.MessageMatches("frobnicator", 20, 10); len(got) != 1 || got[0].Path != "a.go" {
		t.Errorf("after a refresh: %v, want a.go", got)
	}
}
