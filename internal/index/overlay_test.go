package index

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
)

// viewSearch runs q on o's view and returns the hit paths, in order.
func viewSearch(t *testing.T, o *Overlay, q Query) []string {
	t.Helper()
	s, release := o.Snapshot()
	defer release()
	hits, err := s.Search(context.Background(), q, 20)
	if err != nil {
		t.Fatal(err)
	}
	var ps []string
	for _, h := range hits {
		ps = append(ps, h.Path)
	}
	return ps
}

func TestOverlayIsPrivateToItsClient(t *testing.T) {
	x, _ := openFixture(t, testOptions(t))
	mine, theirs := x.NewOverlay(), x.NewOverlay()
	defer mine.Close()
	defer theirs.Close()
	buf := "package ranges\n\n// Stitch is being rewritten.\nfunc Stitch(rs []Range, gap int) []Range {\n\treturn zebrafishmerge(rs)\n}\n"
	if err := mine.Set(ctx, "ranges/stitch.go", []byte(buf)); err != nil {
		t.Fatal(err)
	}

	// The client that set the buffer reads it: search, text, symbols.
	if got := viewSearch(t, mine, Query{Text: "zebrafishmerge"}); !slices.Equal(got, []string{"ranges/stitch.go"}) {
		t.Errorf("own view: search for a word of the buffer = %v", got)
	}
	s, release := mine.Snapshot()
	if f, err := s.File("ranges/stitch.go"); err != nil || f.Text != buf {
		t.Errorf("own view: File = %q, %v; want the buffer", f.Text, err)
	}
	if refs := s.Refs("zebrafishmerge"); len(refs) != 1 {
		t.Errorf("own view: Refs(zebrafishmerge) = %v, want the buffer's chunk", refs)
	}
	// The disk version's words are not found through its documents any
	// more: "merge" is only in the disk text of stitch.go.
	hits, err := s.Search(ctx, Query{Identifiers: []string{"merge"}}, 20)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.Path == "ranges/stitch.go" {
			t.Errorf("own view: the disk version's word matched %+v", h)
		}
	}
	release()

	// Another client, and the index itself, read the disk.
	if got := viewSearch(t, theirs, Query{Text: "zebrafishmerge"}); len(got) != 0 {
		t.Errorf("another client's view found the buffer: %v", got)
	}
	if got := hitPaths(t, x, Query{Text: "zebrafishmerge"}); len(got) != 0 {
		t.Errorf("the index found the buffer: %v", got)
	}
	ts, trelease := theirs.Snapshot()
	if f, err := ts.File("ranges/stitch.go"); err != nil || f.Text != fixture()["ranges/stitch.go"] {
		t.Errorf("another client's File = %q, %v; want the disk text", f.Text, err)
	}
	if refs := ts.Refs("zebrafishmerge"); len(refs) != 0 {
		t.Errorf("another client's Refs(zebrafishmerge) = %v", refs)
	}
	trelease()

	// Cleared, the client reads the disk again.
	if err := mine.Clear("ranges/stitch.go"); err != nil {
		t.Fatal(err)
	}
	if got := viewSearch(t, mine, Query{Text: "zebrafishmerge"}); len(got) != 0 {
		t.Errorf("after Clear: %v", got)
	}
	if got := viewSearch(t, mine, Query{Identifiers: []string{"merge"}}); !slices.Contains(got, "ranges/stitch.go") {
		t.Errorf("after Clear, the disk word is not found: %v", got)
	}
}

// A buffer added for a path the index does not have, and one the rules
// refuse, are in (resp. hidden from) the client's view only.
func TestOverlayNewAndRefusedBuffers(t *testing.T) {
	x, _ := openFixture(t, testOptions(t))
	o := x.NewOverlay()
	defer o.Close()
	if err := o.Set(ctx, "server/new.go", []byte("package server\n\nfunc quokkahandler() {}\n")); err != nil {
		t.Fatal(err)
	}
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----\n"
	if err := o.Set(ctx, "server/http.go", []byte("package server\n\nconst k = `"+key+"`\n")); err != nil {
		t.Fatal(err)
	}
	s, release := o.Snapshot()
	defer release()
	if _, ok := s.Stat("server/new.go"); !ok || !slices.Contains(s.Paths(), "server/new.go") {
		t.Errorf("new buffer not in the view: paths %v", s.Paths())
	}
	if _, ok := s.Stat("server/http.go"); ok || slices.Contains(s.Paths(), "server/http.go") {
		t.Errorf("a buffer holding a private key is in the view")
	}
	if got := viewSearch(t, o, Query{Text: "parseHTTPRequest"}); slices.Contains(got, "server/http.go") {
		t.Errorf("the hidden path is still found through the index's documents: %v", got)
	}
	if got := viewSearch(t, o, Query{Text: "quokkahandler"}); !slices.Equal(got, []string{"server/new.go"}) {
		t.Errorf("new buffer: search = %v", got)
	}
	base, brelease := x.Snapshot()
	defer brelease()
	if _, ok := base.Stat("server/new.go"); ok {
		t.Errorf("the index has the client's new buffer")
	}
	if _, ok := base.Stat("server/http.go"); !ok {
		t.Errorf("the index lost server/http.go because of a client's buffer")
	}
	if s.StateRoot() == base.StateRoot() {
		t.Errorf("the view and the index have the same state root")
	}
}

// Views are made once per edit: requests between two edits share one, and
// it follows the index's changes.
func TestOverlayViewFollowsIndexAndEdits(t *testing.T) {
	x, root := openFixture(t, testOptions(t))
	o := x.NewOverlay()
	defer o.Close()
	if err := o.Set(ctx, "ranges/stitch.go", []byte("package ranges\n\nfunc platypus() {}\n")); err != nil {
		t.Fatal(err)
	}
	a, ra := o.Snapshot()
	b, rb := o.Snapshot()
	if a != b {
		t.Errorf("two requests between edits got different views")
	}
	ra()
	rb()
	writeTree(t, root, map[string]string{"server/http.go": "package server\n\nfunc wombatserve() {}\n"})
	if err := x.Update(ctx, "server/http.go", nil); err != nil {
		t.Fatal(err)
	}
	if got := viewSearch(t, o, Query{Text: "wombatserve"}); !slices.Equal(got, []string{"server/http.go"}) {
		t.Errorf("the view does not follow the index: %v", got)
	}
	if got := viewSearch(t, o, Query{Text: "platypus"}); !slices.Equal(got, []string{"ranges/stitch.go"}) {
		t.Errorf("the view lost the buffer after the index changed: %v", got)
	}
}

// Many clients editing while others search: each reads its own buffer
// (run with -race).
func TestOverlaysConcurrent(t *testing.T) {
	x, _ := openFixture(t, testOptions(t))
	const clients = 4
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := x.NewOverlay()
			defer o.Close()
			for i := range 30 {
				word := fmt.Sprintf("client%dedit%d", c, i)
				if err := o.Set(ctx, "ranges/stitch.go", []byte("package ranges\n\nfunc "+word+"() {}\n")); err != nil {
					errs <- err
					return
				}
				s, release := o.Snapshot()
				f, err := s.File("ranges/stitch.go")
				hits, serr := s.Search(context.Background(), Query{Text: word}, 5)
				release()
				if err != nil || serr != nil {
					errs <- fmt.Errorf("client %d: %v %v", c, err, serr)
					return
				}
				if !slices.Equal([]byte(f.Text), []byte("package ranges\n\nfunc "+word+"() {}\n")) || len(hits) != 1 {
					errs <- fmt.Errorf("client %d edit %d: text %q, %d hits", c, i, f.Text, len(hits))
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// A buffer that holds the file's indexed text changes nothing: the view is
// the index's own snapshot, scored exactly as every face scores it.
func TestOverlaySameAsDiskIsTheIndex(t *testing.T) {
	x, _ := openFixture(t, testOptions(t))
	o := x.NewOverlay()
	defer o.Close()
	if err := o.Set(ctx, "ranges/stitch.go", []byte(fixture()["ranges/stitch.go"])); err != nil {
		t.Fatal(err)
	}
	v, release := o.Snapshot()
	defer release()
	base, brelease := x.Snapshot()
	defer brelease()
	if v != base {
		t.Errorf("a buffer equal to the disk made a view of its own")
	}
}
