package assemble

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/ctxls/ctxls/internal/ranges"
	"github.com/ctxls/ctxls/internal/tokens"
)

var update = flag.Bool("update", false, "rewrite the golden sections of testdata/golden/*.txtar")

// goldenParams is the params.json section of a golden case.
type goldenParams struct {
	Budget   Budget   `json:"budget"`
	Format   Format   `json:"format"`
	Strategy Strategy `json:"strategy"`
	Encoding string   `json:"encoding"`
	// Policy overrides; absent fields keep DefaultPolicy.
	Levels    *bool `json:"levels"`
	Outlines  *bool `json:"outlines"`
	StitchGap *int  `json:"stitchGap"`
}

// TestGolden runs each testdata/golden/*.txtar case: files under files/,
// candidates.json and params.json in; the rendered context and an annotated
// view of the selected lines out. go test ./assemble -update rewrites them.
func TestGolden(t *testing.T) {
	paths, _ := filepath.Glob("testdata/golden/*.txtar")
	if len(paths) == 0 {
		t.Fatal("no golden cases")
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			files := MapFiles{}
			var params goldenParams
			var cands []Candidate
			for _, f := range ar.Files {
				switch {
				case strings.HasPrefix(f.Name, "files/"):
					files[strings.TrimPrefix(f.Name, "files/")] = string(f.Data)
				case f.Name == "params.json":
					if err := json.Unmarshal(f.Data, &params); err != nil {
						t.Fatalf("params.json: %v", err)
					}
				case f.Name == "candidates.json":
					if err := json.Unmarshal(f.Data, &cands); err != nil {
						t.Fatalf("candidates.json: %v", err)
					}
				}
			}
			req := Request{Budget: params.Budget, Format: params.Format, Strategy: params.Strategy, Policy: DefaultPolicy()}
			if params.Levels != nil {
				req.Policy.Levels = *params.Levels
			}
			if params.Outlines != nil {
				req.Policy.Outlines = *params.Outlines
			}
			if params.StitchGap != nil {
				req.Policy.StitchGap = *params.StitchGap
			}
			counter := goldenCounter(t, params.Encoding)
			res, err := Assemble(context.Background(), req, cands, files, counter)
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, req, files, res, counter)
			got := map[string]string{"want/rendered": res.Rendered, "want/selection": annotate(files, res)}
			if *update {
				var kept []txtar.File
				for _, f := range ar.Files {
					if !strings.HasPrefix(f.Name, "want/") {
						kept = append(kept, f)
					}
				}
				for _, name := range []string{"want/rendered", "want/selection"} {
					kept = append(kept, txtar.File{Name: name, Data: []byte(got[name])})
				}
				ar.Files = kept
				if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, f := range ar.Files {
				if want, ok := got[f.Name]; ok && !bytes.Equal(f.Data, []byte(want)) {
					t.Errorf("%s differs (go test ./assemble -run TestGolden -update to accept):\n--- want\n%s\n--- got\n%s", f.Name, f.Data, want)
				}
				delete(got, f.Name)
			}
			for name := range got {
				t.Errorf("section %s missing (run with -update)", name)
			}
		})
	}
}

func goldenCounter(t *testing.T, name string) tokens.Counter {
	switch name {
	case "", "approx":
		return approxCounter{}
	}
	for _, c := range tiktokenCounters(t) {
		if c.Name() == name {
			return c
		}
	}
	t.Skipf("encoding %s not available", name)
	return nil
}

// annotate shows, for each file with parts, every line with the id of the
// part that includes it ("p1"), "~p1" for a line elided inside a part, and
// then the omitted candidates with their reasons.
func annotate(files MapFiles, res *Result) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "stats: tokens %d/%d, parts %d, files %d, candidates %d, dedup %d, truncated %d, dropped %d\n",
		res.Stats.TotalTokens, res.Stats.MaxTokens, res.Stats.Parts, res.Stats.Files, res.Stats.Candidates,
		res.Stats.DedupRemoved, res.Stats.TruncatedParts, res.Stats.DroppedParts)
	byPath := map[string][]Part{}
	var paths []string
	for _, p := range res.Parts {
		if _, ok := byPath[p.Path]; !ok {
			paths = append(paths, p.Path)
		}
		byPath[p.Path] = append(byPath[p.Path], p)
		fmt.Fprintf(&sb, "%s %s %s %s %s tokens=%d score=%g sources=%s\n", p.ID, p.Path, ranges.Format(p.Ranges), p.Level, p.Symbol, p.Tokens, p.Score, strings.Join(p.Sources, ","))
	}
	sort.Strings(paths)
	for _, path := range paths {
		f := newFileText(path, files[path])
		fmt.Fprintf(&sb, "== %s\n", path)
		for l := 1; l <= f.lines; l++ {
			mark := ""
			for _, p := range byPath[path] {
				switch {
				case ranges.ContainsLine(p.Ranges, l):
					mark = p.ID
				case l > p.Ranges[0].Start && l < p.Ranges[len(p.Ranges)-1].End:
					mark = "~" + p.ID
				}
			}
			fmt.Fprintf(&sb, "%4s %3d| %s\n", mark, l, f.line(l))
		}
	}
	for _, o := range res.Omitted {
		fmt.Fprintf(&sb, "omitted %s (%s) tokens=%d score=%g\n", o.Handle, o.Reason, o.Tokens, o.Score)
	}
	return sb.String()
}
