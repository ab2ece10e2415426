package walk

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
)

// BufferPathAllowed judges, on the file system, the path of an editor
// buffer (slash path relative to the root) whose text Allowed judges: the
// walk never follows a symlink out of the root, into VCS metadata or onto a
// secret, and a buffer must not bring in through its name what the walk
// keeps out. Each ancestor directory that exists and the file itself, if it
// exists, are resolved as the walk would meet them; a symlink among them
// that leads outside the root (or is broken, loops, or leads into .git) is
// refused with the walk's reason, and so is a file whose symlink's target
// is a secret by name. A path that does not exist yet (a new, unsaved file)
// is judged by the part of it that does.
func (m *Matcher) BufferPathAllowed(relPath string) (bool, Reason) {
	rel, ok := cleanRel(relPath)
	if !ok {
		return false, ReasonOutsideRoot
	}
	realDir, dir, t := m.resolveDirs(rel)
	if dir == "" {
		t = m.resolve(filepath.Join(m.root, filepath.FromSlash(rel)), realDir)
	}
	switch {
	case errors.Is(t.err, fs.ErrNotExist):
		return true, "" // the rest of the path does not exist yet
	case t.err != nil:
		return false, ReasonUnreadable
	case t.reason != "":
		return false, t.reason
	case dir != "": // an ancestor that is not a directory
		return false, ReasonUnreadable
	}
	if t.link && t.real != "" {
		real := m.realRel(t.real)
		if r, _ := checkName(real, path.Base(real)); r != "" {
			return false, r
		}
	}
	return true, ""
}
