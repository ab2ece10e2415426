package lsp

import (
	"context"
	"slices"
	"testing"

	"github.com/ctxls/ctxls/internal/workspace"
)

// A disk change the client reports goes through one queue, its Root's
// (workspace.Root.Changed), which every session of the root shares: told
// before the folder has its Root it waits in the folder and is handed
// over as the Root is acquired; told after, it goes straight to the Root,
// before the index has even opened.
func TestDiskChangesGoToTheRoot(t *testing.T) {
	root := writeTree(t, map[string]string{"a.go": "package a\n"})
	pool := workspace.NewPool(nil)
	cfg := folderConfig{
		uri: pathToURI(root), root: root, pool: pool, maxHeld: 1, logf: func(string, ...any) {},
		docText:      func(string) (string, bool) { return "", false },
		indexOptions: func() workspace.IndexOptions { return workspace.IndexOptions{InMemory: true} },
	}
	f := newFolder(context.Background(), cfg)
	f.diskChanged("early.go")
	opened := make(chan struct{})
	f.open(cfg, func(*folder) { close(opened) }, func(*folder) {})
	<-opened
	f.diskChanged("late.go")
	// Root.Changed records a change at once: no worker of the folder's
	// stands between the client and the Root.
	if got := f.rt.Load().RecentChanges(); !slices.Contains(got, "early.go") || !slices.Contains(got, "late.go") {
		t.Errorf("the Root's changes: %v, want early.go and late.go", got)
	}
	if err := f.close(); err != nil {
		t.Fatal(err)
	}
}
