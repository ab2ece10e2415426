package gitdiff

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/internal/history/historytest"
)

// TestDiffRunsNoRepositoryProgram: a repository configured to run programs
// (fsmonitor, filter drivers, external diff, textconv, pager) gets its diff
// computed without any of them, for every form of --diff.
func TestDiffRunsNoRepositoryProgram(t *testing.T) {
	root := historytest.Repo(t)
	ran := historytest.Arm(t, root)
	for _, rev := range []string{"HEAD", "HEAD~1", "HEAD~2..HEAD", "HEAD~2...HEAD"} {
		out, err := Diff(context.Background(), root, rev, 1<<20)
		if err != nil {
			t.Fatalf("Diff(%s): %v", rev, err)
		}
		if !strings.Contains(out, "+++ b/svc/handler.go") {
			t.Errorf("Diff(%s) lacks the handler's change:\n%s", rev, out)
		}
		if rev == "HEAD" && !strings.Contains(out, "armed") {
			t.Errorf("Diff(HEAD) lacks the working tree's change:\n%s", out)
		}
		if got := ran(); len(got) > 0 {
			t.Fatalf("Diff(%s) ran the repository's programs %v", rev, got)
		}
	}
	// The same repository run by a plain git does run them: the test arms
	// what it claims to.
	cmd := exec.Command("git", "diff", "HEAD")
	cmd.Dir = root
	_ = cmd.Run()
	if got := ran(); len(got) == 0 {
		t.Fatal("a plain git diff ran none of the armed programs: the test checks nothing")
	}
}

// TestDiffNoLazyFetch: in a partial clone whose old blobs are missing, a
// diff that needs them fails instead of fetching from the promisor remote
// (the remote's upload-pack program, which a fetch would start, never runs).
func TestDiffNoLazyFetch(t *testing.T) {
	server := historytest.Repo(t)
	gitIn := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitIn(server, "config", "uploadpack.allowFilter", "true")
	client := filepath.Join(t.TempDir(), "client")
	gitIn(filepath.Dir(client), "clone", "-q", "--filter=blob:none", "file://"+server, client)
	marks := t.TempDir()
	up := filepath.Join(marks, "upload-pack.sh")
	if err := os.WriteFile(up, []byte("#!/bin/sh\ntouch '"+filepath.Join(marks, "fetched")+"'\nexec git-upload-pack \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(client, "config", "remote.origin.uploadpack", up)
	_, err := Diff(context.Background(), client, "HEAD~2..HEAD", 1<<20)
	if _, serr := os.Stat(filepath.Join(marks, "fetched")); serr == nil {
		t.Fatalf("Diff fetched from the promisor remote (err %v)", err)
	}
	if err == nil {
		t.Log("Diff succeeded without fetching (blobs present)")
	}
	// A plain git would fetch: the test is armed.
	cmd := exec.Command("git", "diff", "HEAD~2..HEAD")
	cmd.Dir = client
	_ = cmd.Run()
	if _, serr := os.Stat(filepath.Join(marks, "fetched")); serr != nil {
		t.Fatal("a plain git diff did not fetch either: the test checks nothing")
	}
}

// TestDiffTooLarge: a diff longer than the limit is a *TooLargeError, and
// one within it is whole.
func TestDiffTooLarge(t *testing.T) {
	root := historytest.Repo(t)
	full, err := Diff(context.Background(), root, "HEAD~2", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Diff(context.Background(), root, "HEAD~2", len(full)); err != nil || got != full {
		t.Errorf("at its own length: %v, %d bytes of %d", err, len(got), len(full))
	}
	_, err = Diff(context.Background(), root, "HEAD~2", len(full)-1)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Limit != len(full)-1 {
		t.Errorf("one byte over: %v, want a *TooLargeError", err)
	}
}
