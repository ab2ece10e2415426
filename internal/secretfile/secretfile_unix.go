//go:build unix

package secretfile

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// open opens file for reading without waiting: O_NONBLOCK makes opening a
// FIFO (or a device) return at once instead of blocking until a writer
// appears, so that Read can refuse it; on a regular file the flag changes
// nothing.
func open(file string) (*os.File, error) {
	return os.OpenFile(file, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// checkOwner refuses a file that another user owns: whoever owns it can
// change its mode, or the secret.
func checkOwner(st fs.FileInfo) error {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := os.Getuid(); int(sys.Uid) != uid {
		return fmt.Errorf("owned by another user (uid %d, this process runs as %d)", sys.Uid, uid)
	}
	return nil
}
