package tokens

import (
	"slices"
	"testing"
)

// FuzzCountMatchesTiktoken checks, for both encodings, that the
// pre-tokenizer splits like tiktoken's regular expression under regexp2 and
// that the exact counter counts like tiktoken-go. Seeds live in
// testdata/fuzz/FuzzCountMatchesTiktoken.
func FuzzCountMatchesTiktoken(f *testing.F) {
	for _, text := range edgeCases {
		if len(text) < 200 {
			f.Add(text)
		}
	}
	counters := map[string]*bpeCounter{}
	for _, name := range tiktokenEncodings {
		// One warm counter per encoding, so the cache is exercised too.
		counters[name] = encoding(f, name).exact(name)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, name := range tiktokenEncodings {
			e := encoding(t, name)
			if got, want := e.pieces(text), e.regexPieces(t, text); !slices.Equal(got, want) {
				t.Fatalf("%s %q: pieces %q, regexp2 %q", name, text, got, want)
			}
			if got, want := counters[name].Count(text), e.oracle.Count(text); got != want {
				t.Fatalf("%s %q: count %d, tiktoken-go %d", name, text, got, want)
			}
		}
	})
}
