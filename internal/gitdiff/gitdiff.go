package gitdiff

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/ctxls/ctxls/internal/gitexec"
)

// revRange is a --diff value split as git reads it: "A...B" (B against
// the merge base of A and B), "A..B" (B against A), or one revision (the
// working tree against it). An empty end means HEAD.
type revRange struct {
	from, to string
	sep      string // "...", ".." or "" (one revision)
}

func parseRevRange(s string) revRange {
	for _, sep := range []string{"...", ".."} {
		if from, to, ok := strings.Cut(s, sep); ok {
			return revRange{from: from, to: to, sep: sep}
		}
	}
	return revRange{from: s}
}

// ends are the revisions the range names, HEAD for an empty end.
func (r revRange) ends() []string {
	head := func(s string) string {
		if s == "" {
			return "HEAD"
		}
		return s
	}
	if r.sep == "" {
		return []string{r.from}
	}
	return []string{head(r.from), head(r.to)}
}

// Diff returns the unified diff that REV names, run in dir: `git
// diff REV` with the options that make its output the same whatever the
// user's git configuration (no colour, no external diff or textconv, a/
// and b/ prefixes, paths relative to dir). Every revision is checked
// first, so that a bad one is named in a clear error (a *RevError); a
// range without a merge base (a shallow clone) is an error that says so.
//
// A diff longer than limit bytes is an error (a *TooLargeError) found
// after reading limit+1 bytes of git's output, never more.
func Diff(ctx context.Context, dir, rev string, limit int) (string, error) {
	if strings.TrimSpace(rev) == "" || strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, "\x00\n") {
		return "", &RevError{Rev: rev, Msg: "not a revision"}
	}
	r := parseRevRange(rev)
	for _, end := range r.ends() {
		if strings.HasPrefix(end, "-") || strings.Contains(end, "..") {
			return "", &RevError{Rev: rev, Msg: fmt.Sprintf("%q is not a revision", end)}
		}
		if _, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", end+"^{commit}"); err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) && ee.ExitCode() == 1 {
				return "", &RevError{Rev: rev, Msg: fmt.Sprintf("unknown revision %q in %s", end, dir)}
			}
			return "", fmt.Errorf("%s: %w", rev, err)
		}
	}
	if r.sep == "..." {
		ends := r.ends()
		if _, err := git(ctx, dir, "merge-base", ends[0], ends[1]); err != nil {
			return "", fmt.Errorf("%s: %s and %s have no merge base in %s (a shallow clone? fetch their history: git fetch --unshallow, or fetch-depth: 0 in actions/checkout): %w",
				rev, ends[0], ends[1], dir, err)
		}
	}
	// A diff against the working tree makes git run each filter driver's
	// clean command on the files that name it: every driver is turned off.
	filters, err := gitexec.FilterOverrides(ctx, dir)
	if err != nil {
		return "", fmt.Errorf("%s: %w", rev, err)
	}
	out, err := gitLimited(ctx, dir, filters, limit, "diff", "--no-color", "--no-ext-diff", "--no-textconv",
		"--src-prefix=a/", "--dst-prefix=b/", "--relative", rev, "--")
	if err != nil {
		return "", fmt.Errorf("%s: %w", rev, err)
	}
	return out, nil
}

// TooLargeError is a diff longer than the limit Diff was given.
type TooLargeError struct{ Limit int }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the diff is longer than the %d bytes a request may hold", e.Limit)
}

// gitLimited runs git with args and extra configuration in dir through
// gitexec and returns its standard output, reading at most limit+1 bytes
// of it: a longer output stops git and is a *TooLargeError. An error
// carries git's own message.
func gitLimited(ctx context.Context, dir string, config []gitexec.ConfigPair, limit int, args ...string) (string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := gitexec.Command(ctx, dir, config, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", fmt.Errorf("git %s in %s: %w", args[0], dir, err)
	}
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("git %s in %s: %w", args[0], dir, err)
	}
	out, rerr := io.ReadAll(io.LimitReader(stdout, int64(limit)+1))
	if len(out) > limit {
		cancel() // git is killed: its exit status no longer matters
		cmd.Wait()
		return "", &TooLargeError{Limit: limit}
	}
	werr := cmd.Wait()
	if rerr != nil {
		return "", fmt.Errorf("git %s in %s: %w", args[0], dir, rerr)
	}
	if werr != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			return "", fmt.Errorf("git %s in %s: %w", args[0], dir, werr)
		}
		return "", fmt.Errorf("git %s in %s: %w: %s", args[0], dir, werr, msg)
	}
	return string(out), nil
}

// RevError is a revision that cannot be used: not a revision at all, or
// unknown to the repository. Callers report it as bad input.
type RevError struct {
	Rev string
	Msg string
}

func (e *RevError) Error() string { return fmt.Sprintf("%q: %s", e.Rev, e.Msg) }

// git runs git with args in dir (package gitexec: no program the
// repository configures, no network) and returns its standard output (a
// line or two: revisions, a merge base); an error carries git's own
// message.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	return gitLimited(ctx, dir, nil, 1<<20, args...)
}
