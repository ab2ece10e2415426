package workspace

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/index"
)

var ctx = context.Background()

// tree writes files under a new directory and returns it.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

var files = map[string]string{
	"ranges/stitch.go": "package ranges\n\n// Stitch joins ranges.\nfunc Stitch(rs []int) []int { return rs }\n",
	"server/http.go":   "package server\n\nfunc handleConnection() {}\n",
}

// find reports whether a search of v's snapshot for word finds path.
func find(t *testing.T, v *View, word, path string) bool {
	t.Helper()
	hits, err := v.Snap.Search(ctx, index.Query{Text: word}, 10)
	if err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(hits, func(h index.Hit) bool { return h.Path == path })
}

func acquire(t *testing.T, s *Session) *View {
	t.Helper()
	v, err := s.Acquire(ctx, AcquireOptions{Wait: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestPoolSharesOneRootPerDirectory(t *testing.T) {
	dir := tree(t, files)
	p := NewPool(t.Logf)
	opts := index.Options{InMemory: true}
	a := p.Acquire(dir, opts, RootOptions{})
	b := p.Acquire(dir, opts, RootOptions{})
	if a != b || a.Users() != 2 || len(p.Roots()) != 1 {
		t.Fatalf("two acquires of one directory: same %v, users %d, roots %d", a == b, a.Users(), len(p.Roots()))
	}
	other := p.Acquire(tree(t, files), opts, RootOptions{})
	if other == a || len(p.Roots()) != 2 {
		t.Fatalf("another directory shares a root")
	}
	<-a.Ready()
	if err := a.Release(); err != nil {
		t.Fatal(err)
	}
	if a.Users() != 1 || len(p.Roots()) != 2 {
		t.Fatalf("after one release: users %d, roots %d", a.Users(), len(p.Roots()))
	}
	if err := b.Release(); err != nil {
		t.Fatal(err)
	}
	if err := other.Release(); err != nil {
		t.Fatal(err)
	}
	if len(p.Roots()) != 0 {
		t.Fatalf("roots left after the last release: %d", len(p.Roots()))
	}
}

// Each session reads its own buffers; the root's index keeps the disk.
func TestSessionsKeepTheirBuffers(t *testing.T) {
	dir := tree(t, files)
	r := NewPool(t.Logf).Acquire(dir, index.Options{InMemory: true}, RootOptions{})
	defer r.Release()
	a, b := r.NewSession(2), r.NewSession(2)
	defer a.Close()
	defer b.Close()
	<-r.Ready()
	if err := a.SetBuffer(ctx, "ranges/stitch.go", "package ranges\n\nfunc Okapistitch() {}\n"); err != nil {
		t.Fatal(err)
	}
	va, vb := acquire(t, a), acquire(t, b)
	defer va.Done()
	defer vb.Done()
	if !find(t, va, "Okapistitch", "ranges/stitch.go") {
		t.Errorf("a does not read its buffer")
	}
	if find(t, vb, "Okapistitch", "ranges/stitch.go") || !find(t, vb, "Stitch", "ranges/stitch.go") {
		t.Errorf("b reads a's buffer, or not the disk")
	}
}

// A change the client tells is in the next view (Changed, then Acquire's
// Sync), and so is a deleted directory's content gone.
func TestToldChangesBeforeTheNextView(t *testing.T) {
	dir := tree(t, files)
	r := NewPool(t.Logf).Acquire(dir, index.Options{InMemory: true}, RootOptions{})
	defer r.Release()
	s := r.NewSession(1)
	defer s.Close()
	acquire(t, s).Done()
	if err := os.WriteFile(filepath.Join(dir, "server", "http.go"), []byte("package server\n\nfunc Narwhalserve() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.Changed("server/http.go")
	v := acquire(t, s)
	if !find(t, v, "Narwhalserve", "server/http.go") {
		t.Errorf("a told change is not in the next view")
	}
	v.Done()
	if err := os.RemoveAll(filepath.Join(dir, "ranges")); err != nil {
		t.Fatal(err)
	}
	r.Changed("ranges")
	v = acquire(t, s)
	defer v.Done()
	if _, ok := v.Snap.Stat("ranges/stitch.go"); ok {
		t.Errorf("a removed directory's file is still in the view")
	}
	if got := r.RecentChanges(); !slices.Equal(got, []string{"ranges", "server/http.go"}) {
		t.Errorf("recent changes = %v", got)
	}
}

// A watched root sees a change on disk without being told; an unwatched
// one that refreshes on each request sees it too.
func TestWatchedAndRefreshedRoots(t *testing.T) {
	for _, ro := range []RootOptions{{Watch: true}, {RefreshEach: true}} {
		dir := tree(t, files)
		r := NewPool(t.Logf).Acquire(dir, index.Options{InMemory: true}, ro)
		s := r.NewSession(1)
		acquire(t, s).Done()
		if err := os.WriteFile(filepath.Join(dir, "server", "new.go"), []byte("package server\n\nfunc Dugongserve() {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		v := acquire(t, s)
		if !find(t, v, "Dugongserve", "server/new.go") {
			t.Errorf("%+v: a new file on disk is not in the next view (status %+v)", ro, r.Status())
		}
		v.Done()
		st := r.Status()
		if st.State != "ready" || st.Watching != ro.Watch || st.Files != 3 {
			t.Errorf("%+v: status %+v", ro, st)
		}
		s.Close()
		if err := r.Release(); err != nil {
			t.Fatal(err)
		}
	}
}

// Kept states are found again by state or by handles, up to the session's
// limit, most recently used kept.
func TestHeldStates(t *testing.T) {
	dir := tree(t, files)
	r := NewPool(t.Logf).Acquire(dir, index.Options{InMemory: true}, RootOptions{})
	defer r.Release()
	s := r.NewSession(2)
	defer s.Close()
	<-r.Ready()
	var states []string
	for i, word := range []string{"Alpha", "Beta", "Gamma"} {
		if err := s.SetBuffer(ctx, "ranges/stitch.go", "package ranges\n\nfunc "+word+"() {}\n"); err != nil {
			t.Fatal(err)
		}
		v := acquire(t, s)
		states = append(states, v.Snap.StateRoot())
		v.Keep([]string{word})
		if i > 0 && states[i] == states[i-1] {
			t.Fatalf("two buffers, one state root")
		}
	}
	if v := s.Held(states[0], nil); v != nil {
		t.Errorf("the oldest of three states is still held with a limit of 2")
	}
	v := s.Held("", []string{"Beta"})
	if v == nil || v.Snap.StateRoot() != states[1] || !v.Borrowed() {
		t.Fatalf("state by handle: %v", v)
	}
	if f, err := v.Snap.File("ranges/stitch.go"); err != nil || f.Text != "package ranges\n\nfunc Beta() {}\n" {
		t.Errorf("held state's buffer = %q, %v", f.Text, err)
	}
	v.Done()
	if v := s.Held(states[2], nil); v == nil {
		t.Errorf("the last state is not held")
	} else {
		v.Done()
	}
}
