//go:build windows

package osfile_test

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/ctxls/ctxls/internal/osfile"
)

// underWine reports whether the test runs under wine (its ntdll exports
// wine_get_version).
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

// Environment of TestHoldOpenHelper: the file to hold, for how many
// milliseconds, and whether to lock it.
const (
	envHoldPath = "CTXLS_TEST_HOLD_OPEN"
	envHoldMs   = "CTXLS_TEST_HOLD_MS"
	envHoldLock = "CTXLS_TEST_HOLD_LOCK"
)

// TestHoldOpenHelper is not a test: run with $CTXLS_TEST_HOLD_OPEN set
// (by holdOpen, or by scripts/windows-test.sh), it is another process
// that holds a file open as a program unaware of ctxls does — os.Open,
// which does not share the file for deletion — or, with
// $CTXLS_TEST_HOLD_LOCK=1, holds the exclusive lock on it as another
// ctxls does (TryLock); it says "held" on stdout and keeps it
// $CTXLS_TEST_HOLD_MS milliseconds.
func TestHoldOpenHelper(t *testing.T) {
	path := os.Getenv(envHoldPath)
	if path == "" {
		t.Skip("a helper process for the other tests")
	}
	ms, _ := strconv.Atoi(os.Getenv(envHoldMs))
	var f *os.File
	var err error
	if os.Getenv(envHoldLock) == "1" {
		if f, err = osfile.OpenNoFollow(path, os.O_RDWR|os.O_CREATE, 0o600); err == nil {
			var ok bool
			if ok, err = osfile.TryLock(f, osfile.Exclusive); err == nil && !ok {
				err = errors.New("locked by another process")
			}
		}
	} else {
		f, err = os.Open(path)
	}
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("held\n")
	time.Sleep(time.Duration(ms) * time.Millisecond)
	f.Close()
}

// holdOpen starts TestHoldOpenHelper on path for d and returns once the
// file is held.
func holdOpen(t *testing.T, path string, d time.Duration, lock bool) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHoldOpenHelper$")
	cmd.Env = append(os.Environ(), envHoldPath+"="+path, envHoldMs+"="+strconv.Itoa(int(d.Milliseconds())))
	if lock {
		cmd.Env = append(cmd.Env, envHoldLock+"=1")
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "held\n" {
		t.Fatalf("the helper says %q, %v", line, err)
	}
	return cmd
}

// TestRenameWaitsForAnotherProcess: a rename over a file another process
// holds for a moment without sharing it for deletion (an antivirus
// scanning it) succeeds once the file is let go.
func TestRenameWaitsForAnotherProcess(t *testing.T) {
	dir := tempDir(t)
	p, tmp := filepath.Join(dir, "CURRENT"), filepath.Join(dir, "CURRENT.tmp")
	write(t, p, "old\n")
	write(t, tmp, "new\n")
	holder := holdOpen(t, p, 300*time.Millisecond, false)
	start := time.Now()
	if err := osfile.Rename(tmp, p); err != nil {
		t.Fatalf("rename after the holder lets go: %v", err)
	}
	t.Logf("renamed after %v", time.Since(start).Round(time.Millisecond))
	holder.Wait()
	if got := read(t, p); got != "new\n" {
		t.Errorf("CURRENT holds %q", got)
	}
}

// TestRenameRefusedLeavesBoth: a rename over a file another process
// keeps open past the retries fails, and leaves the old file and the new
// one as they were.
func TestRenameRefusedLeavesBoth(t *testing.T) {
	dir := tempDir(t)
	p, tmp := filepath.Join(dir, "CURRENT"), filepath.Join(dir, "CURRENT.tmp")
	write(t, p, "old\n")
	write(t, tmp, "new\n")
	holdOpen(t, p, 10*time.Second, false)
	start := time.Now()
	err := osfile.Rename(tmp, p)
	took := time.Since(start)
	if err == nil {
		t.Fatal("renamed over a file held without sharing deletion")
	}
	var le *os.LinkError
	if !errors.As(err, &le) || !osfile.IsUnwritable(err) || !strings.Contains(err.Error(), "another program may hold the file open") {
		t.Errorf("error %v (%T): want an *os.LinkError that IsUnwritable and says why", err, err)
	}
	if took < time.Second || took > 5*time.Second {
		t.Errorf("gave up after %v, want about two seconds of retries", took)
	}
	if got := read(t, p); got != "old\n" {
		t.Errorf("CURRENT holds %q, want the old bytes", got)
	}
	if got := read(t, tmp); got != "new\n" {
		t.Errorf("the new file holds %q", got)
	}
}

// TestOpenSharesDeletion: a file ctxls reads (Open) can be deleted and
// its directory's entries renamed meanwhile by another process.
func TestOpenSharesDeletion(t *testing.T) {
	dir := tempDir(t)
	p := filepath.Join(dir, "seg")
	write(t, p, "x")
	f, err := osfile.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.Remove(p); err != nil {
		t.Errorf("delete a file held by Open: %v", err)
	}
}

// TestLockAcrossProcesses: a lock another process holds keeps this one's
// off, shared or exclusive, until that process lets it go.
func TestLockAcrossProcesses(t *testing.T) {
	p := filepath.Join(tempDir(t), "lock")
	holder := holdOpen(t, p, 500*time.Millisecond, true)
	f, err := osfile.OpenNoFollow(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range []osfile.Lock{osfile.Exclusive, osfile.Shared} {
		if ok, err := osfile.TryLock(f, l); ok || err != nil {
			t.Fatalf("TryLock(%d) while another process holds it: %v, %v", l, ok, err)
		}
	}
	holder.Wait()
	if ok, err := osfile.TryLock(f, osfile.Exclusive); !ok || err != nil {
		t.Fatalf("TryLock once the holder exited: %v, %v", ok, err)
	}
}
