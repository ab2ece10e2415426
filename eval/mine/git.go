package mine

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Git runs git on one repository. Dir is its git directory (a bare
// repository or the .git directory of a clone).
type Git struct {
	Dir string
}

// Commit is a commit of the mined history.
type Commit struct {
	SHA     string
	Parents []string
	Author  string // "name <email>"
	Message string
}

// Subject is the first line of the message.
func (c *Commit) Subject() string {
	s, _, _ := strings.Cut(strings.TrimSpace(c.Message), "\n")
	return strings.TrimSpace(s)
}

// command builds a git command that ignores the user's and system's
// configuration, so that diffs are the same everywhere.
func (g Git) command(ctx context.Context, args ...string) *exec.Cmd {
	full := append([]string{"--git-dir=" + g.Dir, "-c", "core.quotePath=false", "-c", "diff.noprefix=false",
		"-c", "diff.mnemonicPrefix=false", "-c", "diff.renames=true", "-c", "core.autocrlf=false"}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "LC_ALL=C")
	return cmd
}

// Output runs git with args and returns its standard output.
func (g Git) Output(ctx context.Context, args ...string) ([]byte, error) {
	cmd := g.command(ctx, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// Resolve returns the full SHA of rev.
func (g Git) Resolve(ctx context.Context, rev string) (string, error) {
	out, err := g.Output(ctx, "rev-parse", "--verify", rev+"^{commit}")
	return strings.TrimSpace(string(out)), err
}

// Commits lists the non-merge commits reachable from rev, newest first.
func (g Git) Commits(ctx context.Context, rev string) ([]Commit, error) {
	out, err := g.Output(ctx, "log", "--no-merges", "--format=%H%x00%P%x00%an <%ae>%x00%B%x1e", rev, "--")
	if err != nil {
		return nil, err
	}
	var cs []Commit
	for _, rec := range strings.Split(string(out), "\x1e") {
		rec = strings.TrimLeft(rec, "\n")
		if rec == "" {
			continue
		}
		f := strings.SplitN(rec, "\x00", 4)
		if len(f) != 4 {
			return nil, fmt.Errorf("git log: bad record %q", rec[:min(len(rec), 80)])
		}
		cs = append(cs, Commit{SHA: f[0], Parents: strings.Fields(f[1]), Author: f[2], Message: f[3]})
	}
	return cs, nil
}

// Patch returns `git diff` from parent to commit with the given number of
// context lines, limited to paths when any are given. Renames are
// detected; the diff algorithm is fixed (Myers).
func (g Git) Patch(ctx context.Context, parent, commit string, context int, paths ...string) (string, error) {
	args := []string{"diff", "--no-color", "--no-ext-diff", "--no-textconv", "--diff-algorithm=myers", "-M",
		"--src-prefix=a/", "--dst-prefix=b/", fmt.Sprintf("-U%d", context), parent, commit, "--"}
	out, err := g.Output(ctx, append(args, paths...)...)
	return string(out), err
}

// Change is one changed path of `git diff --raw --no-renames`.
type Change struct {
	Status byte // 'A', 'D', 'M', 'T'
	Path   string
	// Submodule: the path is a submodule (a gitlink) on either side, not
	// a file.
	Submodule bool
}

// Changes lists the paths changed from parent to commit, without rename
// detection (which would read blobs: some mirrors lack large binaries).
func (g Git) Changes(ctx context.Context, parent, commit string) ([]Change, error) {
	out, err := g.Output(ctx, "diff", "--raw", "--no-renames", "-z", parent, commit, "--")
	if err != nil {
		return nil, err
	}
	f := strings.Split(string(out), "\x00")
	var cs []Change
	for i := 0; i+1 < len(f); i += 2 {
		meta := strings.Fields(f[i])
		if len(meta) != 5 || meta[4] == "" {
			return nil, fmt.Errorf("git diff --raw: bad record %q", f[i])
		}
		sub := meta[0] == ":160000" || meta[1] == "160000"
		cs = append(cs, Change{Status: meta[4][0], Path: f[i+1], Submodule: sub})
	}
	return cs, nil
}

// Blob returns the content of path at rev.
func (g Git) Blob(ctx context.Context, rev, path string) ([]byte, error) {
	return g.Output(ctx, "cat-file", "blob", rev+":"+path)
}

// LineCount is the number of lines of path at rev (a last line without a
// newline counts).
func (g Git) LineCount(ctx context.Context, rev, path string) (int, error) {
	b, err := g.Blob(ctx, rev, path)
	if err != nil {
		return 0, err
	}
	return CountLines(b), nil
}

// CountLines is the number of lines of b (a last line without a newline
// counts).
func CountLines(b []byte) int {
	n := bytes.Count(b, []byte{'\n'})
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// Files lists the paths of the regular files of rev's tree.
func (g Git) Files(ctx context.Context, rev string) ([]string, error) {
	out, err := g.Output(ctx, "ls-tree", "-r", "-z", "--name-only", rev)
	if err != nil {
		return nil, err
	}
	return strings.FieldsFunc(string(out), func(r rune) bool { return r == 0 }), nil
}

// Extract writes the regular files of rev's tree under dst (created if
// needed), as `git archive` would but ignoring export-ignore and
// export-subst attributes: the tree is exactly the commit's. Symbolic links
// and submodules are left out.
func (g Git) Extract(ctx context.Context, rev, dst string) error {
	ls, err := g.Output(ctx, "ls-tree", "-r", "-z", "--full-tree", rev)
	if err != nil {
		return err
	}
	type entry struct {
		mode, sha, path string
	}
	var entries []entry
	for _, rec := range strings.Split(string(ls), "\x00") {
		if rec == "" {
			continue
		}
		meta, p, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[1] != "blob" || (f[0] != "100644" && f[0] != "100755") {
			continue
		}
		if !filepath.IsLocal(filepath.FromSlash(p)) {
			return fmt.Errorf("extract %s: unsafe path %q", rev, p)
		}
		entries = append(entries, entry{f[0], f[2], p})
	}
	cmd := g.command(ctx, "cat-file", "--batch")
	var in bytes.Buffer
	for _, e := range entries {
		in.WriteString(e.sha + "\n")
	}
	cmd.Stdin = &in
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	r := bufio.NewReaderSize(stdout, 1<<16)
	werr := func() error {
		for _, e := range entries {
			head, err := r.ReadString('\n')
			if err != nil {
				return fmt.Errorf("extract %s: %w", rev, err)
			}
			f := strings.Fields(head)
			if len(f) == 2 && f[0] == e.sha && f[1] == "missing" {
				continue // a blob this mirror lacks (large binaries)
			}
			if len(f) != 3 || f[0] != e.sha {
				return fmt.Errorf("extract %s: unexpected cat-file header %q", rev, head)
			}
			size, err := strconv.Atoi(f[2])
			if err != nil {
				return fmt.Errorf("extract %s: %w", rev, err)
			}
			full := filepath.Join(dst, filepath.FromSlash(e.path))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				return err
			}
			mode := os.FileMode(0o644)
			if e.mode == "100755" {
				mode = 0o755
			}
			out, err := os.OpenFile(full, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
			if err != nil {
				return err
			}
			_, err = io.CopyN(out, r, int64(size))
			if cerr := out.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("extract %s: %s: %w", rev, e.path, err)
			}
			if b, err := r.ReadByte(); err != nil || b != '\n' {
				return fmt.Errorf("extract %s: cat-file output out of step", rev)
			}
		}
		return nil
	}()
	if werr != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return werr
	}
	if err := cmd.Wait(); err != nil {
		return errors.Join(fmt.Errorf("git cat-file: %w", err), errors.New(strings.TrimSpace(stderr.String())))
	}
	return nil
}

// FindRepo looks for the git directory of repo (owner/name) under dir, in
// the layouts people and tools use: dir/owner+name/repo, dir/owner+name.git,
// dir/owner+name, dir/owner/name.git, dir/owner/name, dir/name.git,
// dir/name (a bare repository, or a clone whose .git is used).
func FindRepo(dir, repo string) (string, bool) {
	owner, name, _ := strings.Cut(repo, "/")
	plus := owner + "+" + name
	for _, c := range []string{
		filepath.Join(dir, plus, "repo"), filepath.Join(dir, plus+".git"), filepath.Join(dir, plus),
		filepath.Join(dir, owner, name+".git"), filepath.Join(dir, owner, name),
		filepath.Join(dir, name+".git"), filepath.Join(dir, name),
	} {
		if isGitDir(filepath.Join(c, ".git")) {
			return filepath.Join(c, ".git"), true
		}
		if isGitDir(c) {
			return c, true
		}
	}
	return "", false
}

func isGitDir(d string) bool {
	st, err := os.Stat(filepath.Join(d, "objects"))
	if err != nil || !st.IsDir() {
		return false
	}
	_, err = os.Stat(filepath.Join(d, "HEAD"))
	return err == nil
}
