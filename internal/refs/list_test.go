package refs

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/tokens"
)

// testEntries are n entries of a listing, one line each.
func testEntries(n int) []entry {
	out := make([]entry, n)
	for i := range out {
		out[i] = entry{line: fmt.Sprintf("pkg/file%d.go:%d:%d call in Type%d.Method\n", i%7, i+1, i%13+1, i),
			omitted: Omitted{Path: fmt.Sprintf("pkg/file%d.go", i%7), Line: i + 1, Kind: KindCall}}
	}
	return out
}

// A listing holds its budget exactly whatever the counter: Tokens is the
// count of the text returned and never over the budget, the text is the
// head and the first Listed entries, and every entry is listed or
// omitted — with a counter that is additive over lines and with one
// whose whole count exceeds the sum of its lines'.
func TestListBudgetIsExact(t *testing.T) {
	words := func(s string) int { return len(strings.Fields(s)) }
	lumpy := func(s string) int { return words(s) + strings.Count(s, "\n")/3 }
	head := "References to Method (method at pkg/a.go:3): 30, by types\n"
	entries := testEntries(30)
	for name, count := range map[string]func(string) int{"words": words, "lumpy": lumpy} {
		for budget := 1; budget <= count(head)+6*len(entries)+5; budget++ {
			l := list(head, entries, budget, count)
			if l.Tokens != count(l.Text) || l.Tokens > budget {
				t.Fatalf("%s, budget %d: tokens %d, count of the text %d", name, budget, l.Tokens, count(l.Text))
			}
			if l.Listed+l.OmittedTotal != len(entries) {
				t.Fatalf("%s, budget %d: %d listed and %d omitted of %d", name, budget, l.Listed, l.OmittedTotal, len(entries))
			}
			want := ""
			if l.Text != "" {
				want = head
				for _, e := range entries[:l.Listed] {
					want += e.line
				}
			}
			if l.Text != want {
				t.Fatalf("%s, budget %d: text\n%s\nwant\n%s", name, budget, l.Text, want)
			}
		}
		if l := list(head, entries, 0, count); l.Listed != len(entries) || l.Tokens != count(l.Text) {
			t.Errorf("%s, no budget: %+v", name, l)
		}
	}
}

// A listing that fits its budget is counted once, whole: a thousand
// references cost one pass of the counter, not one per line and two more.
func TestListCountsOnceWhenItFits(t *testing.T) {
	calls := 0
	count := func(s string) int { calls++; return len(strings.Fields(s)) }
	head := "References to Method (method at pkg/a.go:3): 1000, by types\n"
	entries := testEntries(1000)
	l := list(head, entries, 1_000_000, count)
	if l.Listed != len(entries) || calls != 1 {
		t.Errorf("listed %d of %d with %d counts, want all with 1", l.Listed, len(entries), calls)
	}
	calls = 0
	if l := list(head, entries, 0, count); l.Listed != len(entries) || calls != 1 {
		t.Errorf("no budget: listed %d with %d counts, want all with 1", l.Listed, calls)
	}
}

// BenchmarkList is the listing of 1 500 references within a budget that
// holds them all, counted in cl100k_base.
func BenchmarkList(b *testing.B) {
	count := testCounter(b)
	head := "References to Method (method at pkg/a.go:3): 1500, by types\n"
	entries := testEntries(1500)
	b.ReportAllocs()
	for b.Loop() {
		if l := list(head, entries, 10_000_000, count); l.Listed != len(entries) {
			b.Fatal(l.Listed)
		}
	}
}

// testCounter is the cl100k_base counter.
func testCounter(tb testing.TB) func(string) int {
	tb.Helper()
	c, err := tokens.NewRegistry().Get("cl100k_base")
	if err != nil {
		tb.Fatal(err)
	}
	return c.Count
}
