package index

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// vanishingLister lists with the default walk, then — between the walk and
// the reads that follow it — deletes one listed file and replaces another
// by a directory, as an editor or a checkout may do at any moment.
type vanishingLister struct {
	WalkLister
	deleted, replaced string // slash paths relative to the root
}

func (l *vanishingLister) List(ctx context.Context, root string) ([]Entry, []Skipped, error) {
	entries, skipped, err := l.WalkLister.List(ctx, root)
	if err != nil {
		return nil, nil, err
	}
	if err := os.Remove(filepath.Join(root, filepath.FromSlash(l.deleted))); err != nil && !os.IsNotExist(err) {
		return nil, nil, err
	}
	p := filepath.Join(root, filepath.FromSlash(l.replaced))
	if fi, err := os.Lstat(p); err == nil && !fi.IsDir() {
		if err := os.Remove(p); err != nil {
			return nil, nil, err
		}
		if err := os.MkdirAll(filepath.Join(p, "inner"), 0o755); err != nil {
			return nil, nil, err
		}
	}
	return entries, skipped, nil
}

// A file deleted, and one replaced by a directory, between the listing and
// the read: a build and a refresh leave both out, keep the rest and do not
// fail.
func TestFileVanishesBetweenWalkAndRead(t *testing.T) {
	for _, mode := range []string{"build", "refresh"} {
		t.Run(mode, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, fixture())
			opts := testOptions(t)
			if mode == "refresh" {
				x := mustOpen(t, root, opts)
				x.Close()
				// Change both files so that the refresh reads them again.
				for _, p := range []string{"ranges/stitch.go", "server/http.go"} {
					if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(p)), []byte("package changed\n\nfunc Changed() {}\n\n// a longer text\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			opts.Lister = &vanishingLister{deleted: "ranges/stitch.go", replaced: "server/http.go"}
			x := mustOpen(t, root, opts)
			defer x.Close()
			if err := x.Wait(ctx); err != nil {
				t.Fatalf("%s with files vanishing: %v", mode, err)
			}
			snap, release := x.Snapshot()
			defer release()
			paths := snap.Paths()
			for _, gone := range []string{"ranges/stitch.go", "server/http.go"} {
				if slices.Contains(paths, gone) {
					t.Errorf("%s: %s is served after it vanished: %v", mode, gone, paths)
				}
			}
			if len(paths) != len(fixture())-2 {
				t.Errorf("%s: %d files served, want the %d that are left: %v", mode, len(paths), len(fixture())-2, paths)
			}
			if got := hitPaths(t, x, Query{Identifiers: []string{"Stitch"}}); slices.Contains(got, "ranges/stitch.go") {
				t.Errorf("%s: a search finds the deleted file: %v", mode, got)
			}
		})
	}
}
