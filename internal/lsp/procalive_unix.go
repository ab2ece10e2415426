//go:build unix

package lsp

import (
	"errors"
	"os"
	"syscall"
)

// processGone says why the process pid is gone (nil: it lives): signal 0
// reaches it, or is refused only for want of permission.
func processGone(pid int) error {
	p, err := os.FindProcess(pid)
	if err == nil {
		err = p.Signal(syscall.Signal(0))
	}
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return err
	}
	return nil
}
