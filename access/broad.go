package access

import (
	"fmt"
	"os"
	"path/filepath"
)

// CheckBroadRoot refuses a root that is a whole file system ("/", a
// volume's root) or the user's home directory: ctxls indexes every file
// below its root, so such a root means hours of work, gigabytes of index,
// and every credential of the user's dot-directories put one filter away
// from an answer. It happens by accident — an MCP client started from "/"
// or from the home directory, an editor opened on "~" — far more often
// than on purpose; the error says what to do instead. dir is absolute.
func CheckBroadRoot(dir string) error {
	clean := resolved(dir)
	if parent := filepath.Dir(clean); parent == clean {
		return fmt.Errorf("%s is the root of the file system: ctxls indexes every file below its root; start it in a project's directory or name one (--root DIR, or the project folder as the client's root)", dir)
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" && resolved(home) == clean {
		return fmt.Errorf("%s is your home directory: ctxls indexes every file below its root; start it in a project's directory or name one (--root DIR, or the project folder as the client's root)", dir)
	}
	return nil
}

// resolved is p made absolute and clean with its symlinks resolved, or as
// clean as can be when it cannot be resolved.
func resolved(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return filepath.Clean(p)
}
