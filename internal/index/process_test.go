package index

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxls/ctxls/internal/tokens"
)

// The helper process opens an index as another process would. It is the
// test binary itself, run with CTXLS_HELPER set to what it should do.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv("CTXLS_HELPER")
	if mode == "" {
		t.Skip("helper process only")
	}
	root, cache := os.Getenv("CTXLS_HELPER_ROOT"), os.Getenv("CTXLS_HELPER_CACHE")
	// Not testOptions: its t.TempDir would outlive the process, which
	// exits before the test's cleanup runs.
	opts := Options{
		CacheDir:        cache,
		NewChunker:      func() (Chunker, error) { return blockChunker{}, nil },
		Counters:        map[string]tokens.Counter{"words": wordCounter{}},
		LockTimeout:     200 * time.Millisecond,
		CheckpointDelay: -1,
		Logf:            func(string, ...any) {},
	}
	x, err := Open(ctx, root, opts)
	if err != nil {
		os.Stdout.WriteString("error " + err.Error() + "\n")
		os.Exit(3)
	}
	switch mode {
	case "hold":
		os.Stdout.WriteString("ready\n")
		// Hold the index until stdin closes.
		bufio.NewReader(os.Stdin).ReadString('\n')
		x.Close()
	case "crash":
		// Change the index, then die without a checkpoint.
		if err := x.Update(ctx, "server/http.go", []byte("package server\n\nfunc crashed() {}\n")); err != nil {
			os.Exit(4)
		}
		os.Stdout.WriteString("ready\n")
		os.Exit(0)
	}
	os.Exit(0)
}

func helper(t *testing.T, mode, root, cache string) (*exec.Cmd, *bufio.Reader, func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), "CTXLS_HELPER="+mode, "CTXLS_HELPER_ROOT="+root, "CTXLS_HELPER_CACHE="+cache)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	line, err := r.ReadString('\n')
	if strings.TrimSpace(line) != "ready" {
		t.Fatalf("helper %s: %q %v", mode, line, err)
	}
	return cmd, r, func() { stdin.Close(); cmd.Wait() }
}

func TestLockAcrossProcesses(t *testing.T) {
	root, cache := t.TempDir(), filepath.Join(t.TempDir(), "cache")
	writeTree(t, root, fixture())
	_, _, stop := helper(t, "hold", root, cache)
	opts := testOptions(t)
	opts.CacheDir = cache
	start := time.Now()
	if _, err := Open(ctx, root, opts); !errors.Is(err, ErrLocked) {
		stop()
		t.Fatalf("Open while another process holds the index: %v, want ErrLocked", err)
	}
	if time.Since(start) < opts.LockTimeout {
		t.Error("did not wait for the lock")
	}
	stop()
	// Released when the other process is done: open at once, no rebuild.
	x := mustOpen(t, root, opts)
	defer x.Close()
	if st := x.Stats(); st.Mode != "open" {
		t.Errorf("after the other process closed: %+v", st)
	}
}

func TestCrashBeforeCheckpointRebuilds(t *testing.T) {
	root, cache := t.TempDir(), filepath.Join(t.TempDir(), "cache")
	writeTree(t, root, fixture())
	_, _, wait := helper(t, "crash", root, cache)
	wait()
	opts := testOptions(t)
	opts.CacheDir = cache
	x := mustOpen(t, root, opts)
	defer x.Close()
	st := x.Stats()
	if st.Mode != "build" || !strings.Contains(st.Reason, "incomplete") {
		t.Errorf("after a crash with unrecorded changes: mode %q reason %q, want a rebuild", st.Mode, st.Reason)
	}
	if got := hitPaths(t, x, Query{Text: "crashed"}); len(got) != 0 {
		t.Errorf("change of the crashed process served: %v", got)
	}
	if got := hitPaths(t, x, Query{Identifiers: []string{"parseHTTPRequest"}}); len(got) == 0 {
		t.Error("disk content not indexed after the rebuild")
	}
}
