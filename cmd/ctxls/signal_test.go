package main

import (
	"context"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// SIGUSR1 makes the process print its goroutine count (the soak harness
// reads it); the process goes on.
func TestGoroutinesOnSignal(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &syncBuffer{}
	printGoroutinesOnSignal(ctx, out)
	re := regexp.MustCompile(`ctxls: goroutines: (\d+)\n`)
	for i := 0; i < 2; i++ {
		if err := syscall.Kill(syscall.Getpid(), syscall.SIGUSR1); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for len(re.FindAllString(out.String(), -1)) < i+1 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		m := re.FindAllStringSubmatch(out.String(), -1)
		if len(m) != i+1 {
			t.Fatalf("after %d signals the output is %q", i+1, out.String())
		}
		if n, _ := strconv.Atoi(m[i][1]); n < 2 {
			t.Fatalf("goroutines: %d, want at least this test's and the handler's", n)
		}
	}
}
