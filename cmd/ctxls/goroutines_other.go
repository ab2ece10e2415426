//go:build !unix

package main

import "os"

// goroutinesSignal is nil: Windows has no SIGUSR1, and the soak harness
// that asks for the goroutine count runs on Linux.
func goroutinesSignal() os.Signal { return nil }
