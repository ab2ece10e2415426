package history

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"

	"github.com/ctxls/ctxls/internal/gitexec"
)

// ErrUnavailable is wrapped by the errors that mean "no history here": git
// is not installed, the root is not in a git work tree, or git refuses to
// read the repository. Callers go on without history.
var ErrUnavailable = errors.New("no git history")

// git runs git in dir with the configuration that keeps its output stable
// and runs no other program (package gitexec), and returns its standard
// output.
func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := gitexec.Command(ctx, dir, []gitexec.ConfigPair{{Key: "diff.renames", Value: "false"}}, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, fmt.Errorf("%w: git is not installed", ErrUnavailable)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		msg := strings.TrimSpace(stderr.String())
		return nil, fmt.Errorf("git %s in %s: %w: %s", args[0], dir, err, msg)
	}
	return out, nil
}

// head returns HEAD's commit and whether the repository is shallow, or an
// error wrapping ErrUnavailable when dir is not in a git work tree (or
// HEAD has no commit yet).
func head(ctx context.Context, dir string) (sha string, shallow bool, err error) {
	out, err := git(ctx, dir, "rev-parse", "--is-shallow-repository", "--verify", "HEAD^{commit}")
	if err != nil {
		if errors.Is(err, ErrUnavailable) || ctx.Err() != nil {
			return "", false, err
		}
		return "", false, fmt.Errorf("%w: %s is not a git checkout with a commit (%v)", ErrUnavailable, dir, err)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 || len(f[1]) < 40 {
		return "", false, fmt.Errorf("git rev-parse in %s: unexpected output %q", dir, out)
	}
	return f[1], f[0] == "true", nil
}

// rawCommit is one commit as git lists it.
type rawCommit struct {
	sha     string
	parents int
	files   []string
	message string
}

// readLog lists at most n commits of rev (a revision or a range) that
// touch dir, newest first, with the files each changed relative to dir.
func readLog(ctx context.Context, dir, rev string, n int) ([]rawCommit, error) {
	out, err := git(ctx, dir, "log", "-z", "--relative", "--name-only", "--no-renames", "--no-ext-diff", "--no-textconv",
		"--format=%x01%H %P%x02%B%x03", "-n", strconv.Itoa(n), rev, "--", ".")
	if err != nil {
		return nil, err
	}
	var cs []rawCommit
	for _, tok := range bytes.Split(out, []byte{0}) {
		tok = bytes.TrimPrefix(tok, []byte{'\n'})
		if len(tok) == 0 {
			continue
		}
		if tok[0] == 1 {
			// \x01 sha parents… \x02 message \x03
			names, msg, _ := bytes.Cut(tok[1:], []byte{2})
			f := strings.Fields(string(names))
			if len(f) == 0 {
				return nil, fmt.Errorf("git log in %s: a commit without a name", dir)
			}
			cs = append(cs, rawCommit{sha: f[0], parents: len(f) - 1, message: string(bytes.TrimSuffix(msg, []byte{3}))})
			continue
		}
		if len(cs) == 0 {
			return nil, fmt.Errorf("git log in %s: a file before any commit", dir)
		}
		c := &cs[len(cs)-1]
		c.files = append(c.files, string(tok))
	}
	return cs, nil
}

// linearSince reports whether old is an ancestor of sha joined to it by
// commits without merges: then the log of sha is the new commits followed
// by the log of old.
func linearSince(ctx context.Context, dir, old, sha string) (bool, error) {
	if _, err := git(ctx, dir, "merge-base", "--is-ancestor", old, sha); err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return false, nil
	}
	out, err := git(ctx, dir, "rev-list", "--merges", "-n", "1", old+".."+sha)
	if err != nil {
		return false, err
	}
	return len(bytes.TrimSpace(out)) == 0, nil
}
