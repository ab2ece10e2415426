package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxls/ctxls/eval"
	"github.com/ctxls/ctxls/eval/mine"
)

// workMarker is the go.mod written at the top of the work directory: a
// module boundary, so that `go build ./...`, `go vet ./...` and `go test
// ./...` of the ctxls module never walk into the Go trees under it.
const workMarker = `// Source trees of the quality eval (not committed). This go.mod keeps
// them out of the ctxls module: ./... never walks into them.
module ctxls.eval/work
`

// prepareWork creates the work directory with its go.mod marker.
func prepareWork(work string) error {
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	p := filepath.Join(work, "go.mod")
	if _, err := os.Stat(p); err == nil {
		return nil
	}
	return os.WriteFile(p, []byte(workMarker), 0o644)
}

// treeDir returns the directory of c's tree under work, building it first
// if it is not there: the parent's files and, for a diff case, the diff's
// file at the case's commit. Trees are built in a temporary directory and
// renamed into place, so an interrupted run never leaves a partial tree.
func treeDir(ctx context.Context, work string, g mine.Git, c *eval.Case) (string, error) {
	dir := filepath.Join(work, strings.ReplaceAll(c.Repo, "/", "+"), c.Tree())
	return dir, buildDir(dir, func(tmp string) error {
		if err := g.Extract(ctx, treeRev(c), tmp); err != nil {
			return err
		}
		if c.Task == eval.TaskCursor {
			if err := emptyLine(filepath.Join(tmp, filepath.FromSlash(c.Focus.Path)), c.Focus.Line); err != nil {
				return fmt.Errorf("cursor case %s: %w", c.ID, err)
			}
		}
		if c.Task == eval.TaskDiff {
			b, err := g.Blob(ctx, c.Commit, c.DiffFile)
			if err != nil {
				return err
			}
			p := filepath.Join(tmp, filepath.FromSlash(c.DiffFile))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				return err
			}
		}
		return nil
	})
}

// treeRev is the commit c's tree is made from: the parent for the query
// and diff tasks, the commit itself for the cursor and review tasks.
func treeRev(c *eval.Case) string {
	if c.Task == eval.TaskCursor || c.Task == eval.TaskReview {
		return c.Commit
	}
	return c.Parent
}

// commitTreeDir returns the directory of rev's tree of repo under work
// (its files as committed), building it first if it is not there.
func commitTreeDir(ctx context.Context, work string, g mine.Git, repo, rev string) (string, error) {
	dir := filepath.Join(work, strings.ReplaceAll(repo, "/", "+"), "commit-"+rev)
	return dir, buildDir(dir, func(tmp string) error { return g.Extract(ctx, rev, tmp) })
}

// buildDir makes dir, unless it is there already, by fill on a temporary
// directory renamed into place, so that an interrupted run never leaves a
// partial tree.
func buildDir(dir string, fill func(tmp string) error) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".tmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := fill(tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("tree %s: %w", dir, err)
	}
	return nil
}

// linkGit makes dir a git checkout of rev for the history channel: a
// .git directory whose HEAD is rev and whose objects are the repository's
// own (objects/info/alternates), so that only rev's ancestry is reachable
// and nothing is copied. Trees that have one already are left as they are.
func linkGit(g mine.Git, rev, dir string) error {
	gd := filepath.Join(dir, ".git")
	if _, err := os.Stat(filepath.Join(gd, "HEAD")); err == nil {
		return nil
	}
	objects, err := filepath.Abs(filepath.Join(g.Dir, "objects"))
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(dir, ".git-tmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	files := map[string]string{
		"HEAD":                    "ref: refs/heads/main\n",
		"config":                  "[core]\n\trepositoryformatversion = 0\n\tbare = false\n",
		"refs/heads/main":         rev + "\n",
		"objects/info/alternates": objects + "\n",
	}
	for name, text := range files {
		p := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Join(tmp, "refs", "tags"), 0o755); err != nil {
		return err
	}
	return os.Rename(tmp, gd)
}

// emptyLine empties line n (1-based) of the file at p, keeping its line
// end: the line the user is about to type.
func emptyLine(p string, n int) error {
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	lines := strings.SplitAfter(string(b), "\n")
	if n < 1 || n > len(lines) {
		return fmt.Errorf("%s has no line %d", p, n)
	}
	l := lines[n-1]
	lines[n-1] = l[len(strings.TrimRight(l, "\r\n")):]
	return os.WriteFile(p, []byte(strings.Join(lines, "")), 0o644)
}
