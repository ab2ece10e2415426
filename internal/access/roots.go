package access

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxls/ctxls/internal/index/walk"
)

// Roots are the directories a network-face server may serve: a client may
// open one of them or a directory inside one, nothing else. A Roots is
// immutable and safe for concurrent use.
type Roots struct {
	// dirs are absolute, clean and symlink-free, without duplicates, in
	// the order given.
	dirs []string
}

// NewRoots returns the roots dirs (made absolute against the working
// directory, symlinks resolved); no dirs means the working directory. Each
// must be an existing directory outside version-control metadata and
// secret directories (walk.CheckRoot).
func NewRoots(dirs []string) (*Roots, error) {
	if len(dirs) == 0 {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("allowed root: the working directory: %w", err)
		}
		dirs = []string{wd}
	}
	r := &Roots{}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("allowed root %q: %w", d, err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, fmt.Errorf("allowed root %q: %w", d, err)
		}
		st, err := os.Stat(real)
		if err != nil {
			return nil, fmt.Errorf("allowed root %q: %w", d, err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("allowed root %q: not a directory", d)
		}
		// An allowed root bounds the folders a client may open; it may be
		// as broad as "/" (a folder inside it is checked when named), but
		// never lie in .git or a secret directory.
		var re *walk.RootError
		if err := walk.CheckRoot(abs); err != nil && !(errors.As(err, &re) && re.Broad != "") {
			return nil, fmt.Errorf("allowed root %q: %w", d, err)
		}
		if !r.has(real) {
			r.dirs = append(r.dirs, real)
		}
	}
	return r, nil
}

func (r *Roots) has(dir string) bool {
	for _, d := range r.dirs {
		if d == dir {
			return true
		}
	}
	return false
}

// List returns the roots (absolute, symlinks resolved), in the order given.
func (r *Roots) List() []string { return append([]string(nil), r.dirs...) }

// String lists the roots, comma-separated.
func (r *Roots) String() string { return strings.Join(r.dirs, ", ") }

// OutsideError is Check's refusal of a path outside every root.
type OutsideError struct {
	// Path is the path checked; Resolved is where it leads (symlinks
	// and ".." resolved) when that differs.
	Path, Resolved string
	// Roots are the allowed roots.
	Roots []string
}

func (e *OutsideError) Error() string {
	where := e.Path
	if e.Resolved != "" && e.Resolved != e.Path {
		where = fmt.Sprintf("%s (which resolves to %s)", e.Path, e.Resolved)
	}
	return fmt.Sprintf("%s is outside the allowed roots (%s); the server serves only the roots it was started with (--root) and the directories inside them",
		where, strings.Join(e.Roots, ", "))
}

// Check returns nil when path (absolute) is one of the roots or inside
// one, once its symlinks and ".." elements are resolved; else an
// *OutsideError naming the roots, or an error saying why path cannot be
// resolved. A path with ".." elements must pass read both lexically and as
// the kernel reads it (see the package documentation). A path that is or
// lies in version-control metadata or a secret directory (.git, .aws,
// .ssh, …) is refused too, whichever reading leads there, with a
// *walk.RootError: the index would refuse to open it.
func (r *Roots) Check(path string) error {
	if !filepath.IsAbs(path) {
		return fmt.Errorf("%s: not an absolute path", path)
	}
	readings := []string{filepath.Clean(path)}
	if raw := trimSeparators(path); raw != readings[0] {
		readings = append(readings, raw)
	}
	for _, p := range readings {
		real, err := resolve(p)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if !r.contains(real) {
			return &OutsideError{Path: path, Resolved: real, Roots: r.List()}
		}
		for _, q := range [...]string{p, real} {
			if err := walk.CheckRoot(q); err != nil {
				return err
			}
		}
	}
	return nil
}

// contains reports whether real is a root or inside one.
func (r *Roots) contains(real string) bool {
	for _, d := range r.dirs {
		if within(d, real) {
			return true
		}
	}
	return false
}

// within reports whether p is dir or below it (both clean and absolute).
func within(dir, p string) bool {
	if p == dir {
		return true
	}
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		dir += string(filepath.Separator)
	}
	return strings.HasPrefix(p, dir)
}

// trimSeparators drops trailing separators (but keeps a root "/").
func trimSeparators(p string) string {
	for len(p) > 1 && os.IsPathSeparator(p[len(p)-1]) && p != filepath.VolumeName(p)+string(filepath.Separator) {
		p = p[:len(p)-1]
	}
	return p
}

// resolve returns the real path p leads to, reading ".." as the kernel
// does (after the symlinks before it are followed). A path that does not
// exist is resolved through its longest existing prefix, the rest appended;
// a component that exists but cannot be resolved is an error.
func resolve(p string) (string, error) {
	real, err := filepath.EvalSymlinks(p)
	if err == nil {
		return real, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if _, lerr := os.Lstat(p); lerr == nil {
		// It exists (a dangling symlink, or a symlink chain with a missing
		// link): where it leads is unknown.
		return "", fmt.Errorf("cannot resolve: %w", err)
	}
	i := lastSeparator(p)
	if i < 0 {
		return "", err
	}
	parent, base := p[:i], p[i+1:]
	if parent == "" || parent == filepath.VolumeName(p) {
		parent += string(filepath.Separator)
	}
	if parent == p {
		return "", err
	}
	realParent, perr := resolve(parent)
	if perr != nil {
		return "", perr
	}
	joined := filepath.Join(realParent, base)
	if base != ".." && base != "." {
		if _, lerr := os.Lstat(joined); lerr == nil {
			// The component exists under its real parent but p did not
			// resolve: a dangling link.
			return "", fmt.Errorf("cannot resolve: %w", err)
		}
	}
	return joined, nil
}

// lastSeparator returns the index of p's last path separator, or -1.
func lastSeparator(p string) int {
	for i := len(p) - 1; i >= 0; i-- {
		if os.IsPathSeparator(p[i]) {
			return i
		}
	}
	return -1
}
