package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"
)

// rrtFailingLister fails every listing with err.
type rrtFailingLister struct{ err error }

func (l rrtFailingLister) List(context.Context, string) ([]Entry, []Skipped, error) {
	return nil, nil, l.err
}

// A root that cannot be listed (permission denied: the errno of a cache
// directory that cannot be written too) is the root's error — a
// *RootReadError naming it — not a cache directory to give up for memory; and
// a build that failed is never started a second time (whose end closed
// the build's channel again: a panic).
func TestRootListErrorIsNotACacheFailure(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, fixture())
	denied := &fs.PathError{Op: "open", Path: root, Err: syscall.EACCES}
	for _, noFallback := range []bool{false, true} {
		t.Run(fmt.Sprintf("NoMemoryFallback=%v", noFallback), func(t *testing.T) {
			opts := testOptions(t)
			opts.Lister = rrtFailingLister{denied}
			opts.NoMemoryFallback = noFallback
			var warnings []string
			opts.Warnf = func(format string, args ...any) { warnings = append(warnings, fmt.Sprintf(format, args...)) }
			x, err := Open(ctx, root, opts)
			if err == nil {
				x.Close()
				t.Fatal("Open of a root that cannot be listed succeeded")
			}
			var re *RootReadError
			if !errors.As(err, &re) || re.Root != root || !strings.HasPrefix(err.Error(), "cannot read the root "+root+": ") || !strings.Contains(err.Error(), "permission denied") {
				t.Errorf("error %q, want a *RootReadError: cannot read the root %s: … permission denied", err, root)
			}
			var ce *CacheDirError
			if errors.As(err, &ce) || len(warnings) != 0 {
				t.Errorf("error %q, warnings %q: the cache directory was blamed", err, warnings)
			}
		})
	}
}

// A build that fails on what looks like a storage failure even in memory
// (here every chunker fails with permission denied) fails Open once; the
// build is not started yet again.
func TestFailedBuildIsNotStartedAgain(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, fixture())
	opts := testOptions(t)
	opts.NewChunker = func() (Chunker, error) {
		return nil, &fs.PathError{Op: "open", Path: "grammar", Err: syscall.EACCES}
	}
	opts.Warnf = t.Logf
	x, err := Open(ctx, root, opts)
	if err == nil {
		x.Close()
		t.Fatal("Open succeeded without a chunker")
	}
	if !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("error %q, want the chunker's", err)
	}
}
