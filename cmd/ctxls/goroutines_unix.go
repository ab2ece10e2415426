//go:build unix

package main

import (
	"os"
	"syscall"
)

// goroutinesSignal is the signal that makes ctxls print its goroutine
// count (printGoroutinesOnSignal).
func goroutinesSignal() os.Signal { return syscall.SIGUSR1 }
