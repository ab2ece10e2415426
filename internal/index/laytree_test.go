//go:build unix

package index

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestOverlayLayTree: a pull request's checkout laid over the index is
// read by the walk's rules for that tree. Its own change is in the view;
// a symbolic link out of the tree (a file, /proc/self/environ, /dev/zero)
// or into its .git, a secret, an ignored file and one over the size limit
// are not read, and hide the index's file of the same path, as an index
// of the tree would not hold them; every read ends.
func TestOverlayLayTree(t *testing.T) {
	x, _ := openFixture(t, testOptions(t))
	base := t.TempDir()
	tree, outside := filepath.Join(base, "tree"), filepath.Join(base, "outside")
	files := fixture()
	files["ranges/stitch.go"] = strings.Replace(files["ranges/stitch.go"], "merge(rs, gap)", "pelicanmerge(rs, gap)", 1)
	files[".git/config"] = "[remote \"origin\"]\n\turl = https://x-access-token:cormorant@example.com/r\n"
	files[".gitignore"] = "gen/\n"
	files["gen/made.go"] = "package gen\n\nfunc Heron() {}\n"
	files[".env"] = "TOKEN=grebe\n"
	files["big.go"] = "package big\n\n// Puffin\n" + strings.Repeat("// padding padding padding\n", 50000)
	writeTree(t, tree, files)
	writeTree(t, outside, map[string]string{"leak.go": "package leak\n\nfunc Albatross() {}\n"})
	links := map[string]string{
		"server/http.go":    filepath.Join(outside, "leak.go"), // replaces an indexed file
		"ranges/leak.go":    filepath.Join(outside, "leak.go"),
		"ranges/environ.go": "/proc/self/environ",
		"ranges/zero.go":    "/dev/zero",
		"ranges/config.go":  "../.git/config",
	}
	if err := os.Remove(filepath.Join(tree, "server", "http.go")); err != nil {
		t.Fatal(err)
	}
	for link, target := range links {
		if err := os.Symlink(target, filepath.Join(tree, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	o := x.NewOverlay()
	defer o.Close()
	paths := []string{"ranges/stitch.go", "gen/made.go", ".env", "big.go"}
	for link := range links {
		paths = append(paths, link)
	}
	slices.Sort(paths)
	type result struct {
		skipped []Skipped
		err     error
	}
	done := make(chan result, 1)
	go func() {
		s, err := o.LayTree(ctx, tree, paths)
		done <- result{s, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(time.Minute):
		t.Fatal("LayTree did not end (an endless file read?)")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	want := map[string]string{
		"server/http.go": "symlink_outside_root", "ranges/leak.go": "symlink_outside_root",
		"ranges/environ.go": "symlink_outside_root", "ranges/zero.go": "symlink_outside_root",
		"ranges/config.go": "vcs_dir", "gen/made.go": "ignored", ".env": "secret", "big.go": "too_large",
	}
	got := map[string]string{}
	for _, s := range r.skipped {
		got[s.Path] = s.Reason
	}
	if len(got) != len(want) {
		t.Errorf("skipped %v, want %v", got, want)
	}
	for p, reason := range want {
		if got[p] != reason {
			t.Errorf("%s: skipped for %q, want %q", p, got[p], reason)
		}
	}
	s, release := o.Snapshot()
	defer release()
	if f, err := s.File("ranges/stitch.go"); err != nil || !strings.Contains(f.Text, "pelicanmerge") {
		t.Errorf("the pull request's change is not in the view: %q, %v", f.Text, err)
	}
	for p := range want {
		if f, err := s.File(p); err == nil {
			t.Errorf("%s is in the view: %q", p, f.Text)
		}
	}
	for _, word := range []string{"Albatross", "cormorant", "Heron", "grebe", "Puffin", "PATH"} {
		if got := viewSearch(t, o, Query{Text: word}); len(got) != 0 {
			t.Errorf("a search for %s found %v", word, got)
		}
	}
	// A path the tree does not hold is an error naming it.
	if _, err := o.LayTree(ctx, tree, []string{"nope.go"}); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "nope.go") {
		t.Errorf("LayTree of a missing file: %v", err)
	}
}
