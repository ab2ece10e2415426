//go:build (!cgo || ctxls_wasm) && unix

package syntax

import (
	"os"
	"syscall"
)

// privateDir reports whether dir is a directory (not a link to one) owned
// by this user that no one else may write to or read.
func privateDir(dir string) bool {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
