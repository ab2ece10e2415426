package index

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func TestTextCacheEvictsLeastRecentlyUsed(t *testing.T) {
	c := newTextCache(40)
	c.put("a", "ha", strings.Repeat("a", 10))
	c.put("b", "hb", strings.Repeat("b", 10))
	c.put("c", "hc", strings.Repeat("c", 10))
	if _, ok := c.get("a", "ha"); !ok { // a is now the most recent
		t.Fatal("a missing")
	}
	c.put("d", "hd", strings.Repeat("d", 10))
	c.put("e", "he", strings.Repeat("e", 10)) // 50 > 40: b goes
	if _, ok := c.get("b", "hb"); ok {
		t.Error("b, the least recently used, was kept")
	}
	for _, p := range []string{"a", "c", "d", "e"} {
		if _, ok := c.get(p, "h"+p); !ok {
			t.Errorf("%s evicted", p)
		}
	}
	if c.size != 40 || len(c.m) != 4 || c.lru.Len() != 4 {
		t.Errorf("size %d, %d entries, %d in the list", c.size, len(c.m), c.lru.Len())
	}
	// Another hash of the same path is a miss, and replaces the old text.
	if _, ok := c.get("a", "other"); ok {
		t.Error("a text served for another content hash")
	}
	c.put("a", "h2", "new")
	if got, ok := c.get("a", "h2"); !ok || got != "new" || c.size != 33 {
		t.Errorf("replaced: %q %v, size %d", got, ok, c.size)
	}
	// Texts over a quarter of the limit are not kept; a zero limit keeps none.
	c.put("big", "hbig", strings.Repeat("x", 11))
	if _, ok := c.get("big", "hbig"); ok {
		t.Error("a text over limit/4 was kept")
	}
	var none *textCache = newTextCache(0)
	none.put("a", "h", "x")
	if _, ok := none.get("a", "h"); ok {
		t.Error("a zero-limit cache kept a text")
	}
}

func TestPathsWithWords(t *testing.T) {
	x, _ := openFixture(t, testOptions(t))
	ctx := context.Background()
	s, release := x.Snapshot()
	if got := s.PathsWithWords([]string{"stitch", "server"}); !slices.Equal(got, []string{"ranges/stitch.go", "server/http.go"}) {
		t.Errorf("stem and directory words: %v", got)
	}
	if got := s.PathsWithWords([]string{"nothing"}); got != nil {
		t.Errorf("no match: %v", got)
	}
	release()
	// Files added and removed since the base tables are seen too.
	if err := x.Update(ctx, "server/Keep_Alive.go", []byte("package server\n")); err != nil {
		t.Fatal(err)
	}
	if err := x.Remove(ctx, "ranges/stitch.go"); err != nil {
		t.Fatal(err)
	}
	s, release = x.Snapshot()
	defer release()
	if got := s.PathsWithWords([]string{"alive", "stitch"}); !slices.Equal(got, []string{"server/Keep_Alive.go"}) {
		t.Errorf("after an update and a removal: %v", got)
	}
	if got := s.PathsWithWords([]string{"server"}); !slices.Equal(got, []string{"server/Keep_Alive.go", "server/http.go"}) {
		t.Errorf("directory word after an update: %v", got)
	}
	var words []string
	PathWords("a/Net-HTTP/keep_alive.test.go", func(w string) { words = append(words, w) })
	if want := []string{"keep_alive.test", "keep", "alive", "test", "a", "net-http"}; !slices.Equal(words, want) {
		t.Errorf("PathWords = %q, want %q", words, want)
	}
}

func TestStemParts(t *testing.T) {
	for _, tc := range []struct {
		stem string
		want []string
	}{
		{"PostgresQueryRunner", []string{"postgres", "query", "runner"}},
		{"HTTPServer", []string{"http", "server"}},
		{"keep_alive.test", []string{"keep", "alive", "test"}},
		{"Net-HTTP", []string{"net", "http"}},
		{"utf8Decoder", []string{"utf8", "decoder"}},
		{"__init__", []string{"init"}},
		{"server", nil},
		{"README", nil},
	} {
		var got []string
		StemParts(tc.stem, true, func(p string) { got = append(got, p) })
		if !slices.Equal(got, tc.want) {
			t.Errorf("StemParts(%q) = %q, want %q", tc.stem, got, tc.want)
		}
	}
	var got []string
	StemParts("PostgresQuery_runner", false, func(p string) { got = append(got, p) })
	if want := []string{"postgresquery", "runner"}; !slices.Equal(got, want) {
		t.Errorf("StemParts without camel = %q, want %q", got, want)
	}
}
