//go:build unix

package access

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// openTokenFile opens file for reading without waiting: O_NONBLOCK makes
// opening a FIFO (or a device) return at once instead of blocking until a
// writer appears, so that LoadToken can refuse it; on a regular file the
// flag changes nothing.
func openTokenFile(file string) (*os.File, error) {
	return os.OpenFile(file, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// checkTokenOwner refuses a token file that another user owns: whoever
// owns it can change its mode, or the token.
func checkTokenOwner(st fs.FileInfo) error {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := os.Getuid(); int(sys.Uid) != uid {
		return fmt.Errorf("owned by another user (uid %d, the server runs as %d)", sys.Uid, uid)
	}
	return nil
}
