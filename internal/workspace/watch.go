package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/ctxls/ctxls/internal/index/walk"
)

// watcher reports the paths of a root that change on disk: one fsnotify
// watch per directory the index may list (the walker's rules decide which
// directories are entered, so ignored trees such as node_modules/ or build
// output cost no watch). A directory created later is watched as soon as
// its creation is seen.
type watcher struct {
	root    string
	fw      *fsnotify.Watcher
	changed func(rel string)
	lost    func()
	done    chan struct{}

	// sentinel is a private directory, watched through the same queue as
	// the root: flush writes a file there and waits for its event, after
	// which every event queued before it has been seen.
	sentinel string

	mu      sync.Mutex
	matcher *walk.Matcher
	dirs    int                      // directories watched
	seq     uint64                   // last flush number
	waiters map[uint64]chan struct{} // flushes waiting for their event
}

// ignoreFiles are the names whose change alters which directories are
// entered.
var ignoreFiles = map[string]bool{".gitignore": true, ".ignore": true, ".ctxlsignore": true}

// newWatcher watches root and its indexable directories. changed receives
// root-relative slash paths of created, written, removed or renamed
// entries; lost is called when events may have been dropped (the kernel's
// queue overflowed, a new directory could not be watched).
func newWatcher(root string, changed func(string), lost func()) (*watcher, error) {
	m, err := walk.NewMatcher(root, walk.Options{})
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", root, err)
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", root, err)
	}
	w := &watcher{root: root, fw: fw, changed: changed, lost: lost, done: make(chan struct{}), matcher: m,
		waiters: map[uint64]chan struct{}{}}
	fail := func(err error) (*watcher, error) {
		fw.Close()
		if w.sentinel != "" {
			os.RemoveAll(w.sentinel)
		}
		return nil, err
	}
	if w.sentinel, err = os.MkdirTemp("", "ctxls-watch-"); err != nil {
		return fail(fmt.Errorf("watch %s: %w", root, err))
	}
	if err := fw.Add(w.sentinel); err != nil {
		return fail(fmt.Errorf("watch %s: %w", w.sentinel, err))
	}
	if err := w.addTree("."); err != nil {
		return fail(err)
	}
	go w.loop()
	return w, nil
}

// addTree watches dir (root-relative) and the directories below it that
// the walker would enter.
func (w *watcher) addTree(dir string) error {
	w.mu.Lock()
	m := w.matcher
	w.mu.Unlock()
	start := filepath.Join(w.root, filepath.FromSlash(dir))
	return filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == start {
				return fmt.Errorf("watch %s: %w", p, err)
			}
			return nil // vanished or unreadable below: nothing to watch
		}
		if !d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(w.root, p)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if rel != "." {
			if ok, _ := m.DirAllowed(rel); !ok {
				return filepath.SkipDir
			}
		}
		if err := w.fw.Add(p); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipDir
			}
			return fmt.Errorf("watch %s: %w (see fs.inotify.max_user_watches)", p, err)
		}
		w.mu.Lock()
		w.dirs++
		w.mu.Unlock()
		return nil
	})
}

// loop turns fsnotify's events into changes until close.
func (w *watcher) loop() {
	defer close(w.done)
	for {
		select {
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			w.event(ev)
		case err, ok := <-w.fw.Errors:
			if !ok {
				return
			}
			_ = err // an overflow or a read error: events may be lost either way
			w.lost()
		}
	}
}

func (w *watcher) event(ev fsnotify.Event) {
	if filepath.Dir(ev.Name) == w.sentinel {
		if n, err := strconv.ParseUint(filepath.Base(ev.Name), 10, 64); err == nil && ev.Has(fsnotify.Create) {
			w.flushed(n)
			os.Remove(ev.Name)
		}
		return
	}
	if !ev.Has(fsnotify.Create) && !ev.Has(fsnotify.Write) && !ev.Has(fsnotify.Remove) && !ev.Has(fsnotify.Rename) {
		return // chmod: the content is the same
	}
	rel, err := filepath.Rel(w.root, ev.Name)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return
	}
	rel = filepath.ToSlash(rel)
	if ignoreFiles[filepath.Base(rel)] {
		if m, err := walk.NewMatcher(w.root, walk.Options{}); err == nil {
			w.mu.Lock()
			w.matcher = m
			w.mu.Unlock()
		}
	}
	if ev.Has(fsnotify.Create) {
		if st, err := os.Lstat(ev.Name); err == nil && st.IsDir() {
			if err := w.addTree(rel); err != nil {
				w.lost()
			}
		}
	}
	w.changed(rel)
}

// flush returns once every event that happened before the call has been
// passed to changed (or lost). It gives up after a second (then reporting
// lost events, so that the index refreshes).
func (w *watcher) flush(ctx context.Context) error {
	w.mu.Lock()
	w.seq++
	n := w.seq
	ch := make(chan struct{})
	w.waiters[n] = ch
	w.mu.Unlock()
	if err := os.WriteFile(filepath.Join(w.sentinel, strconv.FormatUint(n, 10)), nil, 0o600); err != nil {
		w.flushed(n)
		w.lost()
		return nil
	}
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
		w.flushed(n)
		w.lost()
	case <-ctx.Done():
		return ctx.Err()
	case <-w.done:
	}
	return nil
}

// flushed releases the flushes up to number n.
func (w *watcher) flushed(n uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for k, ch := range w.waiters {
		if k <= n {
			close(ch)
			delete(w.waiters, k)
		}
	}
}

// watched returns how many directories are watched.
func (w *watcher) watched() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dirs
}

// close stops watching.
func (w *watcher) close() {
	w.fw.Close()
	<-w.done
	os.RemoveAll(w.sentinel)
}
