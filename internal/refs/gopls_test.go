package refs

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/index"
)

// TestRepositoryAgreesWithGopls: on this repository, the references of
// ranges.Normalize and of the index's Close (a method of a common name,
// called through io.Closer in its own package) are the sites gopls v0.23.0
// lists (testdata/gopls, recorded with `gopls references FILE:LINE:COL`),
// compared in the files that have not changed since they were recorded.
func TestRepositoryAgreesWithGopls(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes the whole repository")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	x, err := index.Open(context.Background(), root, index.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	snap, release := x.Snapshot()
	defer release()
	for _, name := range []string{"normalize", "close"} {
		t.Run(name, func(t *testing.T) {
			symbol, files, want := readGoplsExpectation(t, filepath.Join("testdata", "gopls", name+".txt"))
			current := map[string]bool{}
			for p, sum := range files {
				b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
				if h := sha256.Sum256(b); err == nil && hex.EncodeToString(h[:]) == sum {
					current[p] = true
				} else {
					t.Logf("%s changed since gopls was asked: not compared", p)
				}
			}
			if len(current) < len(files)/2 {
				t.Skipf("most of the recorded files changed (%d of %d current): record %s again", len(current), len(files), name)
			}
			res, err := Find(context.Background(), snap, Query{Symbol: symbol})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range res.Sites {
				if current[s.Path] {
					got = append(got, fmt.Sprintf("%s:%d:%d", s.Path, s.Line, s.Column))
				}
				if !s.Exact {
					t.Errorf("%s:%d not exact", s.Path, s.Line)
				}
			}
			want = slices.DeleteFunc(want, func(s string) bool { return !current[strings.SplitN(s, ":", 2)[0]] })
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("%s: ctxls lists\n%s\ngopls\n%s", symbol, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			// A change to the body: impact lists the unit of every site
			// as a caller.
			f, err := snap.File(res.Target.Path)
			if err != nil {
				t.Fatal(err)
			}
			line := lineText(f.Text, res.Target.Line+1)
			diff := fmt.Sprintf("--- a/%s\n+++ b/%s\n@@ -%d +%d @@\n-%s\n+%s\n", res.Target.Path, res.Target.Path, res.Target.Line+1, res.Target.Line+1, line, line)
			imp, err := Impact(context.Background(), snap, diff, 1)
			if err != nil {
				t.Fatal(err)
			}
			callers := map[string]bool{}
			for _, r := range imp.Reached {
				if r.Hop == 1 && strings.HasPrefix(r.Reason, "calls ") {
					callers[fmt.Sprintf("%s:%d", r.Path, r.Line)] = true
				}
			}
			for _, s := range res.Sites {
				if c, ok := unitAt(snap, s.Path, s.Line); ok && !callers[fmt.Sprintf("%s:%d", c.Path, c.StartLine)] {
					t.Errorf("impact of a change to %s misses the caller %s (%s:%d)", symbol, c.QualifiedName, s.Path, s.Line)
				}
			}
		})
	}
}

// readGoplsExpectation reads a recorded gopls answer: its symbol, its
// files' sha256 and its sites (path:line:column).
func readGoplsExpectation(t *testing.T, p string) (symbol string, files map[string]string, sites []string) {
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	files = map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		switch {
		case len(fs) == 3 && fs[0] == "#" && fs[1] == "symbol":
			symbol = fs[2]
		case len(fs) == 3 && fs[0] == "file":
			files[fs[2]] = fs[1]
		case len(fs) == 2 && fs[0] == "site":
			sites = append(sites, fs[1])
		}
	}
	if symbol == "" || len(sites) == 0 {
		t.Fatalf("%s: no symbol or no sites", p)
	}
	return symbol, files, sites
}
