package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sync"
	"time"

	"github.com/ctxls/ctxls/internal/index/walk"
)

// WalkLister is the default Lister: the workspace walker (index/walk) with
// its ignore files, size, binary, generated and secret filters. It also
// judges single files (Allow) so that Update and overlays are filtered
// exactly like the listing. It is safe for concurrent use: the Index's
// writer lists and judges while clients' buffers are judged
// (Overlay).
type WalkLister struct {
	Options walk.Options
	// m caches the ignore files; List replaces it, so that a listing always
	// sees the ignore files as they are now. mu guards it, and Allow's use
	// of it (a matcher reads ignore files as it meets directories).
	mu sync.Mutex
	m  *walk.Matcher
}

// List implements Lister.
func (l *WalkLister) List(ctx context.Context, root string) ([]Entry, []Skipped, error) {
	return l.list(ctx, root, l.Options)
}

// listUnchanged is List with Options.Unchanged replaced by unchanged and
// Options.SkippedBefore by the verdicts v (l.Options itself is left
// alone).
func (l *WalkLister) listUnchanged(ctx context.Context, root string, unchanged func(string, int64, time.Time) bool, v verdicts) ([]Entry, []Skipped, error) {
	opts := l.Options
	opts.Unchanged = unchanged
	if v != nil {
		opts.SkippedBefore = v.lookup
	}
	return l.list(ctx, root, opts)
}

func (l *WalkLister) list(ctx context.Context, root string, opts walk.Options) ([]Entry, []Skipped, error) {
	m, err := walk.NewMatcher(root, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("list %s: %w", root, err)
	}
	files, skipped, err := m.Walk(ctx)
	l.mu.Lock()
	l.m = m
	l.mu.Unlock()
	if err != nil {
		return nil, nil, fmt.Errorf("list %s: %w", root, err)
	}
	entries := make([]Entry, len(files))
	for i, f := range files {
		entries[i] = Entry{Path: f.Path, Size: f.Size, ModTime: f.ModTime}
	}
	sk := make([]Skipped, len(skipped))
	for i, s := range skipped {
		sk[i] = Skipped{Path: s.Path, Reason: string(s.Reason), Detail: s.Detail, Size: s.Size, ModTime: s.ModTime}
	}
	return entries, sk, nil
}

// Allow implements FileFilter: content is an editor buffer or the new
// content given to Update; nil means the file on disk.
func (l *WalkLister) Allow(root, p string, content []byte) (bool, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil || isIgnoreFile(p) {
		m, err := walk.NewMatcher(root, l.Options)
		if err != nil {
			return false, string(walk.ReasonUnreadable)
		}
		l.m = m
	}
	if content != nil {
		// An editor buffer: its path on disk (symlinks) as the walk would
		// judge it, then its name and text.
		if ok, r := l.m.BufferPathAllowed(p); !ok {
			return false, string(r)
		}
		ok, r := l.m.Allowed(p, content)
		return ok, string(r)
	}
	_, s, err := l.m.CheckFile(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return true, "" // the caller finds it missing and removes it
	case err != nil:
		return false, string(walk.ReasonUnreadable)
	case s != nil:
		return false, string(s.Reason)
	}
	return true, ""
}

// A FileFilter is a Lister that can also judge one file, so that files
// changed through Update, SetOverlay or ClearOverlay are admitted by the
// same rules as a listing. content is the file's new content, or nil for
// the file on disk. It is called from the writer and from clients'
// overlays (Overlay) at once: an implementation must be safe for
// concurrent use.
type FileFilter interface {
	Allow(root, path string, content []byte) (ok bool, reason string)
}

// isIgnoreFile reports whether p is a file whose change alters what the
// walker lists.
func isIgnoreFile(p string) bool {
	switch path.Base(p) {
	case ".gitignore", ".ignore", ".ctxlsignore":
		return true
	}
	return p == ".git/info/exclude"
}
