//go:build windows

package lsp

import (
	"errors"

	"golang.org/x/sys/windows"
)

// processGone says why the process pid is gone (nil: it lives). Windows
// sends a process no signal 0: a handle on it, opened only to wait,
// says whether it has exited (one that may not be opened lives).
func processGone(pid int) error {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		return nil
	}
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	ev, err := windows.WaitForSingleObject(h, 0)
	switch {
	case err != nil:
		return err
	case ev == uint32(windows.WAIT_TIMEOUT):
		return nil
	}
	return errors.New("exited")
}
