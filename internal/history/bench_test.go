package history

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// BenchmarkRead reads the history of the git checkout CTXLS_BENCH_GIT_ROOT
// names (skipped without one): "full" a cold read of the last 2 000
// commits, "same-head" a refresh when HEAD has not moved (what a server
// does on a request every few seconds).
func BenchmarkRead(b *testing.B) {
	root := os.Getenv("CTXLS_BENCH_GIT_ROOT")
	if root == "" {
		b.Skip("set CTXLS_BENCH_GIT_ROOT to a git checkout")
	}
	ctx := context.Background()
	var l *Log
	b.Run("full", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var err error
			if l, err = Read(ctx, root, Options{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(l.Len()), "commits")
	})
	b.Run("same-head", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Refresh(ctx, root, l, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// syntheticLog is a history of n commits over paths, for benchmarks: each
// commit changes 1–8 files, mostly of one directory, drawn by a fixed seed.
func syntheticLog(paths []string, n int) *Log {
	rng := rand.New(rand.NewPCG(1, 2))
	commits := make([][]string, n)
	for i := range commits {
		k := 1 + rng.IntN(8)
		at := rng.IntN(len(paths))
		for j := range k {
			commits[i] = append(commits[i], paths[min(len(paths)-1, at+j*(1+rng.IntN(3)))])
		}
	}
	return New("synthetic", commits, Options{})
}

// BenchmarkCoChanged measures the history channel's lookups over a
// synthetic 2 000-commit history of 50 000 paths.
func BenchmarkCoChanged(b *testing.B) {
	paths := make([]string, 50000)
	for i := range paths {
		paths[i] = fmt.Sprintf("pkg%03d/file%05d.go", i/100, i)
	}
	l := syntheticLog(paths, 2000)
	l.Recency(paths[0]) // build the tables once
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		l.CoChanged([]string{paths[i%len(paths)], paths[(i*7)%len(paths)], paths[(i*13)%len(paths)]}, 80, 150)
		for j := range 500 {
			l.Recency(paths[(i+j)%len(paths)])
		}
		i++
	}
}

// BenchmarkMessageMatches measures a question's lookup among 2 000 commit
// messages of 5–60 words each (a vocabulary of 3 000 words, Zipf-like).
func BenchmarkMessageMatches(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	words := make([]string, 3000)
	for i := range words {
		words[i] = fmt.Sprintf("w%dx", i)
	}
	word := func() string { return words[min(len(words)-1, int(rng.ExpFloat64()*300))] }
	commits := make([]Commit, 2000)
	for i := range commits {
		var msg []string
		for range 5 + rng.IntN(56) {
			msg = append(msg, word())
		}
		commits[i] = Commit{Message: strings.Join(msg, " "), Files: []string{fmt.Sprintf("f%d.go", rng.IntN(500)), fmt.Sprintf("f%d.go", rng.IntN(500))}}
	}
	l := FromCommits("synthetic", commits, Options{})
	l.MessageMatches("warm", 20, 160)
	var qs []string
	for range 64 {
		var q []string
		for range 12 {
			q = append(q, word())
		}
		qs = append(qs, strings.Join(q, " "))
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		l.MessageMatches(qs[i%len(qs)], 20, 160)
		i++
	}
}
